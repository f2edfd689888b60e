import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../model.js";
import { firstInvalidUtf8Offset } from "./discover.js";

/**
 * Reading of the build's own sources (prompts/, schemas/tools/, the config).
 * Text is normalised exactly like skill files: BOM removed, CRLF and lone CR
 * turned into LF, so a Windows checkout renders the same bytes.
 */

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Decodes raw bytes into normalised text, or undefined when they are not UTF-8. */
export function decodeSourceText(raw: Uint8Array): string | undefined {
  let text: string;
  try {
    // With ignoreBOM false the decoder drops a leading BOM itself.
    text = utf8.decode(raw);
  } catch {
    return undefined;
  }
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

export function toSourceFile(path: string, raw: Uint8Array): SourceFile | Diagnostic {
  const text = decodeSourceText(raw);
  if (text === undefined) {
    const offset = Math.max(0, firstInvalidUtf8Offset(raw));
    const before = raw.subarray(0, offset);
    const line = before.filter((byte) => byte === 0x0a).length + 1;
    const column = offset - before.lastIndexOf(0x0a);
    const at = { line, column };
    return createDiagnostic("source/invalid-utf8", path, { start: at, end: at }, `Unexpected byte 0x${(raw[offset] ?? 0).toString(16).padStart(2, "0")} that is not UTF-8, expected a UTF-8 text file`);
  }
  return { path, text, contentHash: sha256Hex(raw) };
}

/**
 * Reads one root-relative file. A missing file gives `undefined` so callers
 * decide whether absence is an error; other read failures become diagnostics.
 */
export async function readPromptSource(root: string, relPath: string): Promise<SourceFile | Diagnostic | undefined> {
  let raw: Buffer;
  try {
    raw = await readFile(join(root, relPath));
  } catch (error) {
    if (isNotFound(error)) return undefined;
    return createDiagnostic("source/missing-file", relPath, FILE_START, `Unexpected unreadable file (${errorCode(error)}), expected a readable file`);
  }
  return toSourceFile(relPath, raw);
}

export function isDiagnostic(value: unknown): value is Diagnostic {
  return typeof value === "object" && value !== null && "ruleId" in value && "severity" in value;
}

/** Names of the files in a folder with a given extension, sorted by code unit; [] when the folder is absent. */
export async function listFiles(root: string, relDir: string, extension: string): Promise<string[]> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(join(root, relDir), { withFileTypes: true });
  } catch (error) {
    if (isNotFound(error) || errorCode(error) === "ENOTDIR") return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(extension))
    .map((entry) => entry.name)
    .sort(compareCodeUnits);
}

export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function isNotFound(error: unknown): boolean {
  return errorCode(error) === "ENOENT";
}

export function errorCode(error: unknown): string {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") return error.code;
  return "unknown error";
}
