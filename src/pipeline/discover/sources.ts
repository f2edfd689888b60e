import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../stage-data.js";
import { readSource, SOURCE_READ_RULES } from "./read-source.js";

/** Reading of the build's own sources (prompts/, schemas/tools/, the config), through the one reader. */

/**
 * Reads one root-relative file. A missing file gives `undefined` so callers
 * decide whether absence is an error; other read failures become diagnostics.
 */
export async function readPromptSource(root: string, relPath: string): Promise<SourceFile | Diagnostic | undefined> {
  return readSource(root, relPath, SOURCE_READ_RULES);
}

export function isDiagnostic(value: unknown): value is Diagnostic {
  return typeof value === "object" && value !== null && "ruleId" in value && "severity" in value;
}

/** Names of the files in a folder with a given extension, sorted by code unit; [] when the folder is absent. */
export async function listFiles(root: string, relDir: string, extension: string): Promise<string[]> {
  return (await readEntries(root, relDir))
    // Not only regular files: a FIFO or a link named like a source is read (and refused) rather than skipped silently.
    .filter((entry) => !entry.isDirectory() && entry.name.endsWith(extension))
    .map((entry) => entry.name)
    .sort(compareCodeUnits);
}

/** Names of the sub-folders of a folder, sorted by code unit; [] when the folder is absent. */
export async function listFolders(root: string, relDir: string): Promise<string[]> {
  return (await readEntries(root, relDir)).filter((entry) => entry.isDirectory() && !entry.name.startsWith(".")).map((entry) => entry.name).sort(compareCodeUnits);
}

/** A folder's entries; none when it is absent or not a folder. */
async function readEntries(root: string, relDir: string): Promise<import("node:fs").Dirent[]> {
  try {
    return await readdir(join(root, relDir), { withFileTypes: true });
  } catch (error) {
    if (isNotFound(error) || errorCode(error) === "ENOTDIR") return [];
    throw error;
  }
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
