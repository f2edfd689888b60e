import { isAbsolute, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Location, Position as LspPosition, Range as LspRange } from "vscode-languageserver/node";
import type { Range } from "../diagnostics/diagnostic.js";

/**
 * The two coordinate systems the server translates between: the compiler's
 * root-relative POSIX paths with 1-based lines and UTF-16 columns, and the
 * protocol's file URIs with 0-based lines and UTF-16 characters. Columns
 * count the same units on both sides, so a range only shifts by one.
 */

export function toLspRange(range: Range): LspRange {
  return { start: toLspPosition(range.start), end: toLspPosition(range.end) };
}

export function toLspPosition(position: { line: number; column: number }): LspPosition {
  return { line: Math.max(0, position.line - 1), character: Math.max(0, position.column - 1) };
}

/** A 1-based line and column (UTF-16) for a protocol position. */
export function fromLspPosition(position: LspPosition): { line: number; column: number } {
  return { line: position.line + 1, column: position.character + 1 };
}

export function containsPosition(range: Range, position: { line: number; column: number }): boolean {
  const afterStart = position.line > range.start.line || (position.line === range.start.line && position.column >= range.start.column);
  const beforeEnd = position.line < range.end.line || (position.line === range.end.line && position.column <= range.end.column);
  return afterStart && beforeEnd;
}

export class ProjectPaths {
  constructor(readonly root: string) {}

  uriOf(relPath: string): string {
    return pathToFileURL(`${this.root}${sep}${relPath.split("/").join(sep)}`).href;
  }

  /** The root-relative POSIX path of a file URI inside the project, else undefined. */
  pathOf(uri: string): string | undefined {
    if (!uri.startsWith("file:")) return undefined;
    let absolute: string;
    try {
      absolute = fileURLToPath(uri);
    } catch {
      return undefined;
    }
    const rel = relative(this.root, absolute);
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return undefined;
    return rel.split(sep).join("/");
  }

  location(relPath: string, range: Range): Location {
    return { uri: this.uriOf(relPath), range: toLspRange(range) };
  }
}
