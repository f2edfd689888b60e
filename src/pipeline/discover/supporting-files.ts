import { lstatSync, readdirSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { SKILL_FILE } from "./discover.js";
import { readBytes } from "./read-source.js";
import { withLfLineEndings } from "../../protocol/line-endings.js";
import { compareCodeUnits, errorCode, unlistableFolder } from "./sources.js";
import { isByproductFile, isByproductFolder } from "./byproduct-names.js";

/**
 * A skill's supporting files: everything in its folder besides SKILL.md, at
 * any depth (references/, scripts/, assets/, fonts, templates). They are
 * copied into dist/ as read, so they are read as bytes; the one change is a
 * text file's CRLF line endings, written as LF (protocol/line-endings.ts), so a
 * Windows checkout builds the same dist/. Dotfiles and dot-folders hold
 * tooling state and are skipped, and so is what tools write beside sources
 * on the machine that runs them ({@link isByproduct}): a Python bytecode
 * cache holds the source's modification time and the interpreter's version,
 * so copying it would make dist/ differ by machine, and a clean checkout
 * (where git ignores it) could not rebuild the same bytes. Only regular files
 * are taken: a symbolic link could point anywhere on the machine that builds,
 * and a FIFO would block the read.
 */

/** Default limit per supporting file (`supportingFiles.maxBytes` in the config). */
export const DEFAULT_SUPPORTING_FILE_MAX_BYTES = 1024 * 1024;

export interface SupportingFile {
  /** Path relative to the skill's folder, forward slashes, e.g. `references/api.md`. */
  path: string;
  bytes: Buffer;
}

/**
 * Root-relative paths of the entries beside a skill's SKILL.md (`skillFolder`
 * is root-relative, e.g. `skills/pdf` or `plugins/docs/skills/pdf`), sorted by
 * code unit, each marked whether it is a regular file (only those may be
 * read: a FIFO would block); what the persistent build cache hashes.
 * Unreadable folders are left to {@link readSupportingFiles}, which reports them.
 */
export function listSupportingEntries(root: string, skillFolder: string, walked: SupportingWalk = walkSupportingFolder(root, skillFolder)): Array<{ path: string; regular: boolean }> {
  const entries: Array<{ path: string; regular: boolean }> = [];
  for (const step of walked) if ("entry" in step) entries.push({ path: `${skillFolder}/${step.rel}`, regular: step.entry.isFile() });
  return entries.sort((a, b) => compareCodeUnits(a.path, b.path));
}

/**
 * One walk of a skill folder, in the order it was made: every entry below it that is not a folder (SKILL.md,
 * dot and byproduct names left out), and every folder that could not be listed, with the error's code. Lint
 * and the project checks of one run take the same walk, so a folder is listed once per run.
 */
export type SupportingWalk = ReadonlyArray<{ rel: string; entry: Dirent } | { rel: string; code: string }>;

export function walkSupportingFolder(root: string, skillFolder: string): SupportingWalk {
  const steps: Array<{ rel: string; entry: Dirent } | { rel: string; code: string }> = [];
  walk(root, skillFolder, "", (rel, entry) => steps.push({ rel, entry }), (rel, code) => steps.push({ rel, code }));
  return steps;
}

/** Reads one skill's supporting files; anything that cannot be an artifact is a diagnostic. */
export function readSupportingFiles(root: string, skillFolder: string, maxBytes: number, walked: SupportingWalk = walkSupportingFolder(root, skillFolder)): { files: SupportingFile[]; diagnostics: Diagnostic[] } {
  const files: SupportingFile[] = [];
  const diagnostics: Diagnostic[] = [];
  const base = skillFolder;
  const visit = (rel: string, entry: Dirent): void => {
    const file = `${base}/${rel}`;
    if (isUndecodableName(join(root, file))) {
      const what = entry.isDirectory() ? "folder" : "file";
      const left = entry.isDirectory() ? "nothing in it is copied into dist/" : "it is not copied into dist/";
      diagnostics.push(createDiagnostic("skill/supporting-file-skipped", file, FILE_START, `Unexpected ${what} name that is not UTF-8, expected a name in UTF-8, which the manifest and every system can hold (${left})`));
      return;
    }
    if (!entry.isFile()) {
      const what = entry.isSymbolicLink() ? "a symbolic link" : "not a regular file";
      diagnostics.push(createDiagnostic("skill/supporting-file-skipped", file, FILE_START, `Unexpected supporting file that is ${what}, expected a regular file (it is not copied into dist/)`));
      return;
    }
    if (rel.includes("\\")) {
      diagnostics.push(createDiagnostic("skill/supporting-file-skipped", file, FILE_START, "Unexpected backslash in a supporting file's name, expected a name that is the same path on every system (it is not copied into dist/)"));
      return;
    }
    const read = readBytes(root, file, maxBytes);
    if ("raw" in read) files.push({ path: rel, bytes: withLfLineEndings(read.raw) });
    else if ("tooLarge" in read) {
      diagnostics.push(createDiagnostic("skill/supporting-file-too-large", file, FILE_START, `Unexpected supporting file of ${read.tooLarge} bytes, expected at most ${maxBytes} bytes (supportingFiles.maxBytes in gamma-prompt.config.json)`));
    } else if ("refused" in read) {
      diagnostics.push(read.refused);
    } else {
      diagnostics.push(createDiagnostic("skill/unreadable-file", file, FILE_START, `Unexpected read failure (${read.code}), expected a readable file`));
    }
  };
  for (const step of walked) {
    if ("entry" in step) visit(step.rel, step.entry);
    // A skill folder not on disk at all is one an editor's unsaved SKILL.md names: it has no supporting file yet.
    else if (step.rel !== "" || step.code !== "ENOENT") diagnostics.push(unlistableFolder("skill/unreadable-file", step.rel === "" ? base : `${base}/${step.rel}`, step.code));
  }
  files.sort((a, b) => compareCodeUnits(a.path, b.path));
  diagnostics.push(...nameClashes(base, files));
  return { files, diagnostics };
}

/**
 * Files whose paths differ only in letter case or in Unicode form (a name typed on macOS is often decomposed,
 * é as e and a combining accent) are two files here and one on macOS and Windows, whose file systems take
 * such names for the same: a checkout there keeps one of them, and builds another dist/. Both are still
 * copied; each after the first is told, naming the first.
 */
function nameClashes(base: string, files: readonly SupportingFile[]): Diagnostic[] {
  const first = new Map<string, string>();
  const diagnostics: Diagnostic[] = [];
  for (const { path } of files) {
    const folded = path.normalize("NFC").toLowerCase();
    const earlier = first.get(folded);
    if (earlier === undefined) {
      first.set(folded, path);
      continue;
    }
    const how = earlier.toLowerCase() === path.toLowerCase() ? "letter case" : "Unicode form (the same letters, composed in one name and decomposed in the other)";
    diagnostics.push(
      createDiagnostic(
        "skill/supporting-file-skipped",
        `${base}/${path}`,
        FILE_START,
        `Unexpected supporting file "${path}" whose name differs from "${earlier}" only in ${how}, expected names that stay apart on every system: macOS and Windows take them for one file, so a checkout there keeps one of the two and builds another dist/ (both are copied here)`,
      ),
    );
  }
  return diagnostics;
}

/** Visits every non-dot entry below `base` that is not a folder, except the top-level SKILL.md. */
function walk(root: string, base: string, relDir: string, visit: (rel: string, entry: Dirent) => void, unreadable: (rel: string, code: string) => void): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(root, base, relDir), { withFileTypes: true });
  } catch (error) {
    unreadable(relDir, errorCode(error));
    return;
  }
  for (const entry of entries) {
    if (entry.name.startsWith(".") || isByproduct(entry)) continue;
    const rel = relDir === "" ? entry.name : `${relDir}/${entry.name}`;
    // A folder whose name cannot be decoded cannot be listed by the name Node gives it: it is reported, not walked.
    if (entry.isDirectory() && !isUndecodableName(join(root, base, rel))) walk(root, base, rel, visit, unreadable);
    else if (rel !== SKILL_FILE) visit(rel, entry);
  }
}

/**
 * Node gives a name that is not UTF-8 with U+FFFD in place of the bytes it could not decode, and no entry has
 * that name: reading it by that name fails with ENOENT, which once told the author nothing. A name that does
 * hold U+FFFD is found under it.
 */
function isUndecodableName(path: string): boolean {
  if (!path.includes("\uFFFD")) return false;
  try {
    lstatSync(path);
    return false;
  } catch {
    return true;
  }
}

/** What a tool wrote beside the sources on one machine, never a source itself: not listed, not copied. */
function isByproduct(entry: Dirent): boolean {
  return entry.isDirectory() ? isByproductFolder(entry.name) : isByproductFile(entry.name);
}
