import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../stage-data.js";
import { readBytes, SKILL_READ_RULES, toSourceFile } from "./read-source.js";

/** The folder, relative to the project root, that holds one folder per skill. */
export const SKILLS_DIR = "skills";
export const SKILL_FILE = "SKILL.md";

/**
 * Thrown when the project root cannot hold skills at all, or when the output
 * folder would hold the root; callers treat it as bad usage, not a finding.
 */
export class ProjectRootError extends Error {
  override readonly name = "ProjectRootError";
}

export interface SkillSources {
  /** Readable SKILL.md files, sorted by POSIX path. */
  files: SourceFile[];
  /** Findings about the tree itself and about files that could not be read. */
  diagnostics: Diagnostic[];
  /** Folders in skills/ without a readable SKILL.md, sorted. */
  unreadFolders: string[];
}

/** Every readable `skills/<name>/SKILL.md` under `root`, sorted by POSIX path. */
export async function discoverSkills(root: string): Promise<SourceFile[]> {
  return (await loadSkillSources(root)).files;
}

/**
 * Like {@link discoverSkills}, but also reports folders without SKILL.md and
 * unreadable files. File access is synchronous on purpose: for thousands of
 * small files it is several times faster than fs/promises, and lint has
 * nothing else to do while it waits.
 */
export async function loadSkillSources(root: string): Promise<SkillSources> {
  const files: SourceFile[] = [];
  const diagnostics: Diagnostic[] = [];
  const unreadFolders: string[] = [];
  for (const folder of findSkillFolders(root)) {
    const path = `${SKILLS_DIR}/${folder}/${SKILL_FILE}`;
    // Opening the expected file directly costs one syscall; the folder is listed only to explain a miss.
    const bytes = readBytes(root, path);
    const result = "code" in bytes && bytes.code === "ENOENT" ? missingSkillFile(root, folder) : toSourceFile(path, bytes, SKILL_READ_RULES);
    if ("text" in result) files.push(result);
    else {
      diagnostics.push(result);
      unreadFolders.push(folder);
    }
  }
  return { files, diagnostics, unreadFolders };
}

/** Names of the folders in skills/ (dot-folders excluded), sorted by code unit. */
export function findSkillFolders(root: string): string[] {
  assertProjectRoot(root);
  const skillsDir = join(root, SKILLS_DIR);
  const folders: string[] = [];
  for (const entry of readdirSync(skillsDir, { withFileTypes: true })) {
    // Dot-folders hold tooling state, never skills.
    if (entry.name.startsWith(".")) continue;
    if (entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(join(skillsDir, entry.name)))) folders.push(entry.name);
  }
  return folders.sort(comparePaths);
}

function missingSkillFile(root: string, folder: string): Diagnostic {
  const names = listNames(join(root, SKILLS_DIR, folder));
  const nearMiss = names.find((name) => name.toLowerCase() === SKILL_FILE.toLowerCase());
  if (nearMiss) {
    return createDiagnostic("skill/missing-skill-file", `${SKILLS_DIR}/${folder}/${nearMiss}`, FILE_START, `Unexpected file name "${nearMiss}", expected "${SKILL_FILE}"`);
  }
  return createDiagnostic("skill/missing-skill-file", `${SKILLS_DIR}/${folder}`, FILE_START, `Unexpected skill folder without ${SKILL_FILE}, expected ${SKILLS_DIR}/${folder}/${SKILL_FILE}`);
}

/**
 * Reads one root-relative file as normalised text (see read-source.ts). A
 * missing or unreadable file, or bytes that are not UTF-8, give a diagnostic.
 */
export async function readSourceFile(root: string, relPath: string): Promise<SourceFile | Diagnostic> {
  return readSourceFileSync(root, relPath);
}

export function readSourceFileSync(root: string, relPath: string): SourceFile | Diagnostic {
  return toSourceFile(relPath, readBytes(root, relPath), SKILL_READ_RULES);
}

function assertProjectRoot(root: string): void {
  if (!isDirectory(root)) throw new ProjectRootError(`project root "${root}" is not a folder`);
  if (!isDirectory(join(root, SKILLS_DIR))) throw new ProjectRootError(`project root "${root}" has no ${SKILLS_DIR}/ folder`);
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

function listNames(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** Code-unit order, so the result does not depend on the machine's locale. */
function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
