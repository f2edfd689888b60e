import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../stage-data.js";
import { readSource, sourceReadRules } from "./read-source.js";
import { isByproductFile, isByproductFolder } from "./byproduct-names.js";

/** Reading of the build's own sources (prompts/, schemas/tools/, knowledge/, the config), through the one reader. */

/**
 * Reads one root-relative file. A missing file gives `undefined` so callers
 * decide whether absence is an error; other read failures become diagnostics.
 */
export async function readPromptSource(root: string, relPath: string): Promise<SourceFile | Diagnostic | undefined> {
  return readSource(root, relPath, sourceReadRules(relPath));
}

export function isDiagnostic(value: unknown): value is Diagnostic {
  return typeof value === "object" && value !== null && "ruleId" in value && "severity" in value;
}

/**
 * A folder that exists but cannot be listed (permissions, an I/O error): the
 * sources in it are unknown, not absent, so callers report it rather than
 * build without them.
 */
export interface UnreadableFolder {
  /** Root-relative POSIX path ("" for the root itself). */
  folder: string;
  /** The system's error code (EACCES, EIO). */
  code: string;
}

/** A folder that exists but cannot be listed, as a finding at its start under the caller's rule. */
export function unlistableFolder(ruleId: "skill/unreadable-file" | "source/unreadable-file", folder: string, code: string): Diagnostic {
  return createDiagnostic(ruleId, folder, FILE_START, `Unexpected folder that cannot be listed (${code}), expected a readable folder`);
}

/**
 * Names of the files in a folder with a given extension, dotfiles left out, sorted by code unit;
 * [] when the folder is absent, and also when it cannot be listed, which is then added to `unreadable`.
 */
export async function listFiles(root: string, relDir: string, extension: string, unreadable?: UnreadableFolder[], ignored?: string[]): Promise<string[]> {
  const entries = await readEntries(root, relDir, unreadable);
  // Not only regular files: a FIFO or a link named like a source is read (and refused) rather than skipped silently.
  // A dotfile is none (macOS' `._identity.hbs` beside a copied file, a hidden draft), as watch and the skills' readers agree.
  const isSource = (entry: Dirent): boolean => !entry.isDirectory() && !entry.name.startsWith(".") && entry.name.endsWith(extension);
  if (ignored !== undefined) {
    // What the folder holds that the build never reads, besides what tools leave beside sources: a folder (`/` at its end) or a file.
    for (const entry of entries) {
      if (isSource(entry) || entry.name.startsWith(".")) continue;
      const folder = entry.isDirectory();
      if (folder ? isByproductFolder(entry.name) : isByproductFile(entry.name) || FOR_PEOPLE.test(entry.name)) continue;
      ignored.push(`${relDir}/${entry.name}${folder ? "/" : ""}`);
    }
  }
  return entries.filter(isSource).map((entry) => entry.name).sort(compareCodeUnits);
}

/** Names of the sub-folders of a folder, sorted by code unit; [] when the folder is absent or cannot be listed (see {@link listFiles}). */
export async function listFolders(root: string, relDir: string, unreadable?: UnreadableFolder[]): Promise<string[]> {
  return (await readEntries(root, relDir, unreadable)).filter((entry) => entry.isDirectory() && !entry.name.startsWith(".")).map((entry) => entry.name).sort(compareCodeUnits);
}

/** A file for people beside the sources: a README or a licence, which no build is meant to read. */
const FOR_PEOPLE = /^(?:readme|licen[cs]e|notice|copying|changelog)(?:\.[\w.-]*)?$/i;

/** A folder's entries; none when it is absent or not a folder, or when it cannot be listed (noted in `unreadable`, else thrown). */
async function readEntries(root: string, relDir: string, unreadable: UnreadableFolder[] | undefined): Promise<Dirent[]> {
  try {
    return await readdir(join(root, relDir), { withFileTypes: true });
  } catch (error) {
    if (isNotFound(error) || errorCode(error) === "ENOTDIR") return [];
    if (unreadable === undefined) throw error;
    unreadable.push({ folder: relDir, code: errorCode(error) });
    return [];
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
