/**
 * Scoped knowledge as the compiler publishes it and the runtime serves it:
 * `dist/knowledge.json` (the index) and `dist/knowledge/<id>.md` (each body,
 * exactly what `read_workspace_rule` returns). Types, constants and the one
 * revision function, so compiled and live notes get revisions the same way.
 */
import { createHash } from "node:crypto";

export const KNOWLEDGE_INDEX_FILE = "knowledge.json";
export const KNOWLEDGE_DIR = "knowledge";

/** Who wrote a note; it sets the note's precedence (user-authored above system-authored). */
export type KnowledgeSource = "user" | "system";
export const KNOWLEDGE_SOURCES: readonly KnowledgeSource[] = ["user", "system"];

/** The skill-name rules: lowercase letters and digits in hyphen-separated words, at most 64 code points. */
export const KNOWLEDGE_ID_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const KNOWLEDGE_ID_MAX = 64;

/** A note's fields of plain text the knowledge hint shows as attributes (trusted text the model reads as written). */
export type KnowledgeTextField = "name" | "scope";

/**
 * DEL, the C1 controls (NEL included), U+2028, U+2029 and the bidirectional controls (ALM, LRM, RLM, embeddings,
 * overrides, isolates), as the body of a regular-expression character class.
 */
const FORBIDDEN_IN_BOTH = "\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069";

/**
 * What a note's `name` and `scope` never hold besides the Unicode tag characters, as the body of a
 * regular-expression character class: `<` and `>` (the hint is XML), the C0 controls but tab (`scope` also keeps
 * line feed and carriage return; `name` is one line) and {@link FORBIDDEN_IN_BOTH}.
 */
const KNOWLEDGE_TEXT_FORBIDDEN: Readonly<Record<KnowledgeTextField, string>> = {
  name: `<>\\x00-\\x08\\x0a-\\x1f${FORBIDDEN_IN_BOTH}`,
  scope: `<>\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f${FORBIDDEN_IN_BOTH}`,
};

/**
 * A Unicode tag character (U+E0000 to U+E007F: invisible copies of ASCII that some models decode, so they would
 * carry hidden words into trusted text) next in the text, written so that a validator reads it alike with or
 * without JavaScript's Unicode mode (the `u` flag), since many do without it (Python's re, Ajv with
 * `unicodeRegExp: false`, any `new RegExp(pattern)`), and `\u{…}` is an error there. Without the flag the text is
 * read by UTF-16 code units: the first branch, the surrogate pair U+DB40 U+DC00 to U+DC7F. With it, by code point:
 * a pair of `\u` escapes is one code point, so the second branch reads "up to U+E007F, and not up to U+DFFFF",
 * and the first reads lone surrogates no well-formed text holds. Without the flag the second branch matches no
 * code unit: the classes read "up to U+DB40 or U+DC7F, and not up to U+DB3F or U+DFFF", and the lookahead before
 * them turns away U+DB40 and U+DC7F (which with the flag are lone surrogates again). Python's re reads
 * the escapes as lone surrogates too, so it loads the pattern but lets the tag characters through.
 */
const TAG_CHARACTER = "\\uDB40[\\uDC00-\\uDC7F]|(?!\\uDB40|\\uDC7F)(?![\\x00-\\uDB3F\\uDFFF])[\\x00-\\uDB40\\uDC7F]";

/**
 * The pattern of schemas/knowledge-note.schema.json for `field`: no forbidden character, and not blank. The
 * compiler checks a note file by these patterns; the runtime refuses a host's live note by
 * {@link forbiddenKnowledgeCharacter}, which refuses the same characters.
 */
export function knowledgeTextPattern(field: KnowledgeTextField): string {
  const forbidden = KNOWLEDGE_TEXT_FORBIDDEN[field];
  return `^(?![\\s\\S]*(?:${TAG_CHARACTER}))[^${forbidden}]*[^\\s${forbidden}][^${forbidden}]*$`;
}

/** Unicode's tag characters (U+E0000 to U+E007F), in a `u`-flag character class. */
const TAG_RANGE = "\\u{e0000}-\\u{e007f}";

const FORBIDDEN_CHARACTER: Readonly<Record<KnowledgeTextField, RegExp>> = {
  name: new RegExp(`[${KNOWLEDGE_TEXT_FORBIDDEN.name}${TAG_RANGE}]`, "u"),
  scope: new RegExp(`[${KNOWLEDGE_TEXT_FORBIDDEN.scope}${TAG_RANGE}]`, "u"),
};

/**
 * The first character `field` may not hold, as an error names it (`U+202E, a bidirectional control, at code
 * point 7`), or undefined when there is none.
 */
export function forbiddenKnowledgeCharacter(field: KnowledgeTextField, value: string): string | undefined {
  const match = FORBIDDEN_CHARACTER[field].exec(value);
  if (match === null) return undefined;
  const character = match[0];
  const codePoint = character.codePointAt(0) ?? 0;
  const at = [...value.slice(0, match.index)].length + 1;
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}, ${characterKind(codePoint)}, at code point ${at}`;
}

function characterKind(codePoint: number): string {
  if (codePoint === 0x3c || codePoint === 0x3e) return "an angle bracket";
  if (codePoint === 0x0a || codePoint === 0x0d || codePoint === 0x85) return "a line break";
  if (codePoint === 0x2028 || codePoint === 0x2029) return "a Unicode line or paragraph separator";
  if (codePoint <= 0x9f) return "a control character";
  if (codePoint >= 0xe0000) return "a Unicode tag character";
  return "a bidirectional control";
}

/** Bodies longer than this (UTF-8 bytes) are not returned inline: the tool returns a path for focused reading. */
export const DEFAULT_INLINE_BYTES = 8192;

/** What the harness's candidate selection may match besides the scope text. */
export interface KnowledgeAppliesTo {
  skills: string[];
  tools: string[];
  keywords: string[];
}

/** The fields every note has, compiled or live. */
export interface KnowledgeNoteFields {
  id: string;
  name: string;
  /** "Use for …" / "Use when …": the condition the model matches against the task. */
  scope: string;
  source: KnowledgeSource;
  appliesTo: KnowledgeAppliesTo;
}

/** One entry of `knowledge.json` (an array sorted by id). */
export interface KnowledgeNoteInfo extends KnowledgeNoteFields {
  /** The body, e.g. `knowledge/brand-images.md`. */
  file: string;
  sha256: string;
  bytes: number;
  tokens: number;
  /** `sha256:` and the first 16 hex digits of the body's sha256: changes exactly when the body does. */
  revision: string;
}

export function knowledgeFile(id: string): string {
  return `${KNOWLEDGE_DIR}/${id}.md`;
}

export function knowledgeRevision(body: string): string {
  return `sha256:${createHash("sha256").update(body).digest("hex").slice(0, 16)}`;
}

export function isKnowledgeId(id: string): boolean {
  return KNOWLEDGE_ID_PATTERN.test(id) && [...id].length <= KNOWLEDGE_ID_MAX;
}
