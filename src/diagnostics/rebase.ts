import { isAbsolute, relative, resolve, sep } from "node:path";
import type { Diagnostic } from "./diagnostic.js";

/**
 * Diagnostics name files relative to the project root; what a user reads or
 * CI annotates must be relative to the working folder (the repository root
 * in CI), whatever `--root` is. Paths that would leave the working folder
 * stay `../`-relative; nothing absolute is printed.
 */
export function relativeToWorkingFolder(diagnostics: readonly Diagnostic[], root: string, cwd: string = process.cwd()): Diagnostic[] {
  if (resolve(cwd, root) === resolve(cwd)) return [...diagnostics];
  const rebase = workingFolderPath(root, cwd);
  return diagnostics.map((diagnostic) => {
    const moved: Diagnostic = { ...diagnostic, file: rebase(diagnostic.file) };
    if (diagnostic.related) moved.related = { ...diagnostic.related, file: rebase(diagnostic.related.file) };
    return moved;
  });
}

/** Turns a root-relative path into one relative to the working folder (the same rule as for diagnostics). */
export function workingFolderPath(root: string, cwd: string = process.cwd()): (file: string) => string {
  const base = resolve(cwd, root);
  const rebased = new Map<string, string>();
  return (file: string): string => {
    let result = rebased.get(file);
    if (result === undefined) {
      const rel = relative(cwd, resolve(base, file));
      result = isAbsolute(rel) ? file : rel.split(sep).join("/");
      rebased.set(file, result);
    }
    return result;
  };
}
