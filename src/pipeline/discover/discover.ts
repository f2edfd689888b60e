import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { createDiagnostic, FILE_START, type Diagnostic, type Range } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../model.js";

/** The folder, relative to the project root, that holds one folder per skill. */
export const SKILLS_DIR = "skills";
export const SKILL_FILE = "SKILL.md";
/** Larger files are refused unread: a skill body is meant to be read whole by a model. */
export const MAX_SOURCE_BYTES = 1024 * 1024;

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
    const result = "code" in bytes && bytes.code === "ENOENT" ? missingSkillFile(root, folder) : toSourceFile(path, bytes);
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
 * Reads one root-relative file as normalised text: BOM removed, CRLF and lone
 * CR turned into LF, so positions match what an editor shows. Bytes that are
 * not UTF-8 give a diagnostic at the first bad byte.
 */
export async function readSourceFile(root: string, relPath: string): Promise<SourceFile | Diagnostic> {
  return readSourceFileSync(root, relPath);
}

export function readSourceFileSync(root: string, relPath: string): SourceFile | Diagnostic {
  return toSourceFile(relPath, readBytes(root, relPath));
}

type ReadOutcome = { raw: Buffer } | { tooLarge: number } | { code: string };

function readBytes(root: string, relPath: string): ReadOutcome {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(join(root, relPath), "r");
    const { size } = fstatSync(descriptor);
    if (size > MAX_SOURCE_BYTES) return { tooLarge: size };
    return { raw: readAll(descriptor, size) };
  } catch (error) {
    return { code: (error as NodeJS.ErrnoException).code ?? "unknown error" };
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

function toSourceFile(relPath: string, outcome: ReadOutcome): SourceFile | Diagnostic {
  if ("raw" in outcome) return decodeSource(relPath, outcome.raw);
  if ("tooLarge" in outcome) {
    return createDiagnostic("skill/file-too-large", relPath, FILE_START, `Unexpected file of ${outcome.tooLarge} bytes, expected at most ${MAX_SOURCE_BYTES} bytes`);
  }
  return createDiagnostic("skill/unreadable-file", relPath, FILE_START, `Unexpected read failure (${outcome.code}), expected a readable file`);
}

/** Reads up to the size fstat reported, and stops there even if the file grows meanwhile. */
function readAll(descriptor: number, size: number): Buffer {
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const count = readSync(descriptor, buffer, filled, size - filled, null);
    if (count === 0) break;
    filled += count;
  }
  return buffer.subarray(0, filled);
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Turns raw bytes into a {@link SourceFile}, or a diagnostic when they are not UTF-8. */
export function decodeSource(relPath: string, raw: Uint8Array): SourceFile | Diagnostic {
  let text: string;
  try {
    // The decoder drops a leading BOM itself (ignoreBOM defaults to false).
    text = strictUtf8.decode(raw);
  } catch {
    const offset = firstInvalidUtf8Offset(raw);
    return createDiagnostic(
      "source/invalid-utf8",
      relPath,
      invalidByteRange(raw, offset),
      `Unexpected byte 0x${(raw[offset] ?? 0).toString(16).padStart(2, "0")} that is not UTF-8, expected a UTF-8 text file`,
    );
  }
  if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
  return { path: relPath, text, contentHash: createHash("sha256").update(raw).digest("hex") };
}

/** Offset of the first byte that does not start or continue a well-formed UTF-8 sequence. */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] ?? 0;
    if (lead < 0x80) {
      index++;
      continue;
    }
    let length: number;
    let min = 0x80;
    let max = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) min = 0xa0; // overlong
      if (lead === 0xed) max = 0x9f; // surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) min = 0x90;
      if (lead === 0xf4) max = 0x8f;
    } else return index;
    for (let k = 1; k < length; k++) {
      const byte = bytes[index + k];
      const low = k === 1 ? min : 0x80;
      const high = k === 1 ? max : 0xbf;
      if (byte === undefined || byte < low || byte > high) return index;
    }
    index += length;
  }
  return bytes.length;
}

/** Line and column of a byte offset, counted the way the decoded, normalised text would count them. */
function invalidByteRange(bytes: Uint8Array, offset: number): Range {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset; index++) {
    const byte = bytes[index];
    if (byte === 0x0a || (byte === 0x0d && bytes[index + 1] !== 0x0a)) {
      line++;
      lineStart = index + 1;
    }
  }
  let prefix = new TextDecoder("utf-8").decode(bytes.subarray(lineStart, offset));
  if (line === 1 && prefix.startsWith("\uFEFF")) prefix = prefix.slice(1);
  const column = prefix.replace(/\r$/, "").length + 1;
  return { start: { line, column }, end: { line, column: column + 1 } };
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
