import { createHash } from "node:crypto";
import { createDiagnostic, FILE_START, type Diagnostic, type Range } from "../../diagnostics/diagnostic.js";
import type { RuleId } from "../../diagnostics/rules/index.js";
import type { SourceFile } from "../../stage-data.js";
import { readInsideRoot, refusedReadDiagnostic, type PlainFolders } from "./read-inside-root.js";
import { KNOWLEDGE_SOURCE_DIR, MAX_SOURCE_BYTES } from "./source-paths.js";

/**
 * The one reader of source files (skills, prompts, schemas, config). Text is
 * normalised the same way for every kind: BOM removed, CRLF and lone CR
 * turned into LF, so a Windows checkout renders the same bytes and positions
 * match what an editor shows. Columns count UTF-16 code units.
 */

// Defined with the source paths, which a command's definition may load without the reader.
export { MAX_SOURCE_BYTES };

/** The rule ids a caller reports read failures under (skills keep their own ids). */
export interface ReadRules {
  tooLarge: RuleId;
  unreadable: RuleId;
}

export const SKILL_READ_RULES: ReadRules = { tooLarge: "skill/file-too-large", unreadable: "skill/unreadable-file" };
export const SOURCE_READ_RULES: ReadRules = { tooLarge: "source/file-too-large", unreadable: "source/unreadable-file" };
/** A knowledge note over the limit is refused under the note rule its docs name. */
export const KNOWLEDGE_READ_RULES: ReadRules = { tooLarge: "knowledge/file-too-large", unreadable: "source/unreadable-file" };

/** The rules for reading one of the build's own sources: a knowledge note's, or any other source's. */
export function sourceReadRules(relPath: string): ReadRules {
  return relPath.startsWith(`${KNOWLEDGE_SOURCE_DIR}/`) ? KNOWLEDGE_READ_RULES : SOURCE_READ_RULES;
}

/** `refused`: a FIFO, socket or device (never read), or a link leaving the project root. */
export type ReadOutcome = { raw: Buffer } | { tooLarge: number } | { code: string } | { refused: Diagnostic };

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * Files taken as given instead of as read, by root-relative path: an editor's
 * unsaved buffers, or `lint --fix`'s fixed text checked before it is written.
 * A diagnostic stands for a buffer refused the way its file would be (too large).
 */
export type SourceOverrides = ReadonlyMap<string, SourceFile | Diagnostic>;

/** A buffer's text as the reader would have read its bytes: normalised, hashed, and refused past {@link MAX_SOURCE_BYTES}. */
export function overrideSource(relPath: string, text: string, rules: ReadRules): SourceFile | Diagnostic {
  const raw = Buffer.from(text, "utf8");
  return toSourceFile(relPath, raw.length > MAX_SOURCE_BYTES ? { tooLarge: raw.length } : { raw }, rules);
}

/**
 * Reads one root-relative file. A missing file gives `undefined` so callers
 * decide whether absence is an error; other failures become diagnostics
 * under `rules`. An override answers without touching the disk.
 */
export function readSource(root: string, relPath: string, rules: ReadRules, overrides?: SourceOverrides): SourceFile | Diagnostic | undefined {
  const override = overrides?.get(relPath);
  if (override !== undefined) return override;
  const outcome = readBytes(root, relPath);
  if ("code" in outcome && outcome.code === "ENOENT") return undefined;
  return toSourceFile(relPath, outcome, rules);
}

/**
 * Reads a file whole unless fstat says it is over `maxBytes`; stops at that size even if the file grows.
 * `plain`: the run's folders known to be no link (see read-inside-root.ts), for a run that reads many files.
 */
export function readBytes(root: string, relPath: string, maxBytes = MAX_SOURCE_BYTES, plain?: PlainFolders): ReadOutcome {
  const read = readInsideRoot(root, relPath, maxBytes, plain);
  switch (read.kind) {
    case "file":
      return { raw: read.bytes };
    case "too-large":
      return { tooLarge: read.size };
    case "missing":
      return { code: "ENOENT" };
    case "error":
      return { code: read.code };
    default:
      return { refused: refusedReadDiagnostic(relPath, read) as Diagnostic };
  }
}

export function toSourceFile(relPath: string, outcome: ReadOutcome, rules: ReadRules): SourceFile | Diagnostic {
  if ("raw" in outcome) return decodeSource(relPath, outcome.raw);
  if ("refused" in outcome) return outcome.refused;
  if ("tooLarge" in outcome) {
    return createDiagnostic(rules.tooLarge, relPath, FILE_START, `Unexpected file of ${outcome.tooLarge} bytes, expected at most ${MAX_SOURCE_BYTES} bytes`);
  }
  return createDiagnostic(rules.unreadable, relPath, FILE_START, `Unexpected read failure (${outcome.code}), expected a readable file`);
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
  const hadBom = raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;
  if (hadBom) return { path: relPath, text: text.replace(/\r\n?/g, "\n"), contentHash: sha256Hex(raw), byteOrderMark: true };
  if (text.includes("\r")) return { path: relPath, text: text.replace(/\r\n?/g, "\n"), contentHash: sha256Hex(raw) };
  return withLazyHash(relPath, text);
}

/**
 * Without a BOM or CR the text's UTF-8 is the raw bytes, so the hash can be
 * taken from the text when first asked for: a one-shot lint never asks.
 */
function withLazyHash(path: string, text: string): SourceFile {
  let hash: string | undefined;
  return {
    path,
    text,
    get contentHash(): string {
      hash ??= sha256Hex(text);
      return hash;
    },
  };
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

/** Line and column (in UTF-16 units) of a byte offset, counted the way the decoded, normalised text would count them. */
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

