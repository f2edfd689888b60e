import { join } from "node:path";
import { createDiagnostic, FILE_START, type Diagnostic, type Range } from "../../diagnostics/diagnostic.js";
import { loadTokenizer } from "../../tokens.js";
import { describeEntry, readRegularFile, statIfPossible } from "../../protocol/regular-file.js";
import { withLfLineEndings } from "../../protocol/line-endings.js";
import { listTree, unreadableFolderMessage } from "./emit.js";
import { describeFsError } from "../../protocol/path-problem.js";
import { MANIFEST_FILE, PREFIX_FILE, TOOLS_FILE, type ArtifactContent } from "./artifacts.js";
import type { TemplateOrigin } from "../render/prefix-origin.js";
import { sha256Hex } from "../discover/read-source.js";
import { isRecord } from "../../protocol/records.js";

/** One way dist/ disagrees with its sources or with its own manifest. */
export interface DriftEntry {
  /** dist-relative path. */
  artifact: string;
  kind: "changed" | "missing" | "extra" | "hash-mismatch" | "not-a-file" | "unreadable";
  /** For unreadable: the error the file system gave (EACCES), and whether the path is a folder that cannot be listed. */
  code?: string;
  folder?: boolean;
  /** For not-a-file: what the path holds instead (a FIFO, a socket, a device). */
  found?: string;
  /** sha256 the sources produce (changed, missing) or the manifest records (hash-mismatch). */
  expectedSha256?: string;
  /** sha256 of the file in dist/ (changed, extra, hash-mismatch). */
  actualSha256?: string;
  /** Where the file first differs (changed text artifacts). */
  firstDifference?: { byteOffset: number; line: number; column: number };
  /** For the static prefix: the first differing token and the template that produced it. */
  prefix?: PrefixDrift;
}

export interface PrefixDrift {
  tokenIndex: number;
  expectedToken: string;
  actualToken?: string;
  source?: TemplateOrigin;
}

export interface DriftReport {
  drift: DriftEntry[];
  /** The shared cached prefix (prefix text or tool schemas) differs: every variant's cache misses. */
  invalidatesSharedPrefix: boolean;
}

export async function compareDist(
  outDir: string,
  expected: ReadonlyMap<string, ArtifactContent>,
  locate: (offset: number) => Promise<TemplateOrigin | undefined>,
): Promise<DriftReport> {
  const unreadableFolders = new Map<string, string>();
  const present = listTree(outDir, unreadableFolders);
  const drift: DriftEntry[] = [];
  for (const [folder, code] of unreadableFolders) drift.push({ artifact: folder, kind: "unreadable", code, folder: true });
  // What an unreadable folder holds is unknown: its artifacts are neither missing nor compared.
  const hidden = (path: string): boolean => [...unreadableFolders.keys()].some((folder) => folder === "" || path.startsWith(`${folder}/`));
  for (const path of [...expected.keys()].sort()) {
    const content = expected.get(path) as ArtifactContent;
    const expectedSha256 = sha256Hex(content);
    if (hidden(path)) continue;
    if (!present.has(path)) {
      // A folder where the artifact belongs is listed as a folder, not as a file: it is no missing file either.
      const there = statIfPossible(join(outDir, path), { noFollow: true });
      if (there?.isDirectory() === true) drift.push({ artifact: path, kind: "not-a-file", expectedSha256, found: describeEntry(there) });
      else drift.push({ artifact: path, kind: "missing", expectedSha256 });
      continue;
    }
    const read = readRegularFile(join(outDir, path));
    if (read.kind === "not-a-file") {
      drift.push({ artifact: path, kind: "not-a-file", expectedSha256, found: read.what });
      continue;
    }
    if (read.kind === "error") {
      drift.push({ artifact: path, kind: "unreadable", expectedSha256, code: read.code });
      continue;
    }
    if (read.kind !== "file") {
      drift.push({ artifact: path, kind: "missing", expectedSha256 });
      continue;
    }
    // As built: a checkout's CRLF line endings (core.autocrlf) are undone first (protocol/line-endings.ts).
    const actual = withLfLineEndings(read.bytes);
    const actualSha256 = sha256Hex(actual);
    if (actualSha256 === expectedSha256) continue;
    if (typeof content !== "string") {
      // A supporting file, copied as bytes: where it differs is a byte offset, lines counted by LF.
      drift.push({ artifact: path, kind: "changed", expectedSha256, actualSha256, firstDifference: firstByteDifference(content, actual) });
      continue;
    }
    const actualText = actual.toString("utf8");
    const entry: DriftEntry = { artifact: path, kind: "changed", expectedSha256, actualSha256, firstDifference: firstDifference(content, actualText) };
    if (path === PREFIX_FILE) entry.prefix = await prefixDrift(content, actualText, entry.firstDifference?.byteOffset ?? 0, locate);
    drift.push(entry);
  }
  for (const path of [...present].sort()) {
    if (expected.has(path)) continue;
    const actual = readIfReadable(join(outDir, path));
    drift.push({ artifact: path, kind: "extra", ...(actual === undefined ? {} : { actualSha256: sha256Hex(actual) }) });
  }
  drift.push(...(await manifestMismatches(outDir, present)));
  const invalidatesSharedPrefix = drift.some((entry) => (entry.artifact === PREFIX_FILE || entry.artifact === TOOLS_FILE) && entry.kind !== "hash-mismatch" && entry.kind !== "unreadable");
  return { drift, invalidatesSharedPrefix };
}

/** Files whose bytes no longer match the hash their own manifest records (edited after the build). */
async function manifestMismatches(outDir: string, present: ReadonlySet<string>): Promise<DriftEntry[]> {
  // Any content is possible here (null, a list, a string per entry): what is not the expected shape has no
  // hashes to compare, and manifest.json itself is already reported as changed.
  let artifacts: unknown;
  try {
    const parsed: unknown = JSON.parse(readIfReadable(join(outDir, MANIFEST_FILE))?.toString("utf8") ?? "");
    artifacts = isRecord(parsed) ? parsed["artifacts"] : undefined;
  } catch {
    return [];
  }
  if (!isRecord(artifacts)) return [];
  const entries: DriftEntry[] = [];
  for (const [path, recorded] of Object.entries(artifacts).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!present.has(path) || !isRecord(recorded) || typeof recorded["sha256"] !== "string") continue;
    const actual = readIfReadable(join(outDir, path));
    // An unreadable file is already reported as unreadable, missing or extra.
    if (actual === undefined) continue;
    const actualSha256 = sha256Hex(actual);
    if (actualSha256 !== recorded["sha256"]) entries.push({ artifact: path, kind: "hash-mismatch", expectedSha256: recorded["sha256"], actualSha256 });
  }
  return entries;
}

/**
 * A listed entry may still be unreadable (a dangling symlink, a file removed
 * meanwhile, a FIFO, which is never opened for a blocking read): that is drift
 * to report, not a crash or a hang.
 */
function readIfReadable(file: string): Buffer | undefined {
  const read = readRegularFile(file);
  return read.kind === "file" ? withLfLineEndings(read.bytes) : undefined;
}


export function firstByteDifference(expected: Uint8Array, actual: Uint8Array): { byteOffset: number; line: number; column: number } {
  let index = 0;
  const limit = Math.min(expected.length, actual.length);
  while (index < limit && expected[index] === actual[index]) index++;
  let line = 1;
  let lineStart = 0;
  for (let at = 0; at < index; at++) {
    if (expected[at] === 0x0a) {
      line++;
      lineStart = at + 1;
    }
  }
  return { byteOffset: index, line, column: index - lineStart + 1 };
}

export function firstDifference(expected: string, actual: string): { byteOffset: number; line: number; column: number } {
  let index = 0;
  const limit = Math.min(expected.length, actual.length);
  while (index < limit && expected.charCodeAt(index) === actual.charCodeAt(index)) index++;
  const before = expected.slice(0, index);
  const line = before.split("\n").length;
  const column = index - before.lastIndexOf("\n");
  return { byteOffset: Buffer.byteLength(before), line, column };
}

async function prefixDrift(expected: string, actual: string, byteOffset: number, locate: (offset: number) => Promise<TemplateOrigin | undefined>): Promise<PrefixDrift> {
  const tokenizer = await loadTokenizer();
  const expectedTokens = tokenizer.encode(expected);
  const actualTokens = tokenizer.encode(actual);
  let tokenIndex = 0;
  while (tokenIndex < expectedTokens.length && expectedTokens[tokenIndex] === actualTokens[tokenIndex]) tokenIndex++;
  const charOffset = Buffer.from(expected).subarray(0, byteOffset).toString("utf8").length;
  const source = await locate(charOffset);
  const drift: PrefixDrift = { tokenIndex, expectedToken: tokenizer.decode(expectedTokens.slice(tokenIndex, tokenIndex + 1)) };
  if (tokenIndex < actualTokens.length) drift.actualToken = tokenizer.decode(actualTokens.slice(tokenIndex, tokenIndex + 1));
  if (source) drift.source = source;
  return drift;
}

export function driftDiagnostics(outRel: string, report: DriftReport): Diagnostic[] {
  return report.drift.map((entry) => {
    const file = `${outRel}/${entry.artifact}`;
    const range: Range = entry.firstDifference
      ? { start: { line: entry.firstDifference.line, column: entry.firstDifference.column }, end: { line: entry.firstDifference.line, column: entry.firstDifference.column } }
      : FILE_START;
    switch (entry.kind) {
      case "not-a-file":
        return createDiagnostic("dist/not-a-file", file, FILE_START, `Unexpected ${entry.found ?? "special file"}, expected a regular file (remove it and run \`gamma-prompt build\`)`);
      case "unreadable":
        return createDiagnostic(
          "dist/unreadable",
          entry.artifact === "" ? outRel : file,
          FILE_START,
          entry.folder === true
            ? unreadableFolderMessage(entry.code ?? "EACCES")
            : `Unexpected file that cannot be read (${describeFsError(entry.code)}, ${entry.code ?? "unknown error"}), expected an artifact gamma-prompt can read: give it read permission, then run the command again`,
        );
      case "missing":
        return createDiagnostic("dist/missing", file, FILE_START, "Unexpected missing artifact, expected the file the sources produce (run `gamma-prompt build`)");
      case "extra":
        return createDiagnostic("dist/extra", file, FILE_START, "Unexpected file the sources do not produce, expected it to be removed (run `gamma-prompt build`)");
      case "hash-mismatch":
        return createDiagnostic("dist/hash-mismatch", file, FILE_START, `Unexpected sha256 ${short(entry.actualSha256)}, expected ${short(entry.expectedSha256)} as recorded in ${MANIFEST_FILE} (${hashMismatchCause(entry.artifact, report.drift)})`);
      case "changed":
        return createDiagnostic("dist/changed", file, range, changedMessage(entry, report.invalidatesSharedPrefix));
    }
  });
}

/**
 * Which side of a hash mismatch moved: the file (its bytes differ from what
 * the sources produce), or manifest.json (the file is as built, the manifest
 * is not), or, when neither is known, either of them.
 */
function hashMismatchCause(artifact: string, drift: readonly DriftEntry[]): string {
  const differs = (path: string, kind: DriftEntry["kind"]) => drift.some((entry) => entry.artifact === path && entry.kind === kind);
  if (differs(artifact, "changed")) return "the file was edited after the build";
  if (!differs(artifact, "extra") && differs(MANIFEST_FILE, "changed")) return `${MANIFEST_FILE} was edited after the build: the file has the bytes the sources produce`;
  return `the file or ${MANIFEST_FILE} was edited after the build`;
}

function changedMessage(entry: DriftEntry, invalidates: boolean): string {
  const at = entry.firstDifference ? `starting at byte ${entry.firstDifference.byteOffset}` : "";
  let message = `Unexpected content ${at}, expected the bytes the sources produce (run \`gamma-prompt build\`)`;
  if (entry.prefix) {
    const { tokenIndex, expectedToken, actualToken, source } = entry.prefix;
    message += `; first differing token #${tokenIndex} is ${JSON.stringify(actualToken ?? "")}, expected ${JSON.stringify(expectedToken)}`;
    if (source) message += `, produced by ${source.kind === "content" ? "template text" : source.kind} at ${source.file}:${source.line}:${source.column}`;
  }
  if (entry.artifact === PREFIX_FILE || entry.artifact === TOOLS_FILE) {
    message += invalidates ? "; this invalidates the shared cache prefix of every variant" : "";
  } else if (entry.artifact.startsWith("variants/")) {
    message += invalidates
      ? "; the shared prefix changed (see prefix.md), so this variant loses its cached prefix too"
      : "; the shared prefix is unaffected, only this variant's own suffix changes";
  }
  return message;
}

function short(sha: string | undefined): string {
  return sha ? sha.slice(0, 12) : "(none)";
}
