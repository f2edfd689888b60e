import { continuationLines, type Opener } from "./yaml-unclosed.js";

/**
 * A quoted value or a flow collection whose later lines start left of where
 * YAML 1.2 lets them, written as authors wrap a long description:
 *
 *   description: "Use for all Rust questions.
 *   Triggers on: cargo, rustc"
 *
 * YAML 1.2 wants each such line indented past the key (or the `- `) that
 * holds the value, and a strict parser (the yaml package) refuses the file.
 * PyYAML, js-yaml and the Agent Skills reference validator (skills-ref) do not
 * count indentation inside quotes and brackets, and read the value; inside
 * them a line's leading spaces stand for nothing (a quoted value folds each
 * line break and the spaces around it into one space, a flow collection skips
 * them), so the same text with those lines indented past the key reads as the
 * same value under YAML 1.2. This module writes that text and maps its
 * offsets back; yaml-tree.ts reads it only where the text as written fails.
 */

/** One construct read past the margin: where it opens, and the first of its lines written too far left. */
export interface MarginConstruct {
  /** `"` or `'` for a quoted value, `[` or `{` for a flow collection. */
  opener: Opener["char"];
  /** Offset (in the text as written) of the opening quote or bracket. */
  openerOffset: number;
  /** Offset (in the text as written) of the first character of the first line written too far left. */
  first: number;
  /** The column (1-based) its lines must reach: one past the key or `-` that holds the value. */
  column: number;
  /** What holds the value: a mapping's key or a list's `-`. */
  holder: "key" | "item";
  /** How many of its lines are written too far left. */
  lines: number;
}

export interface MarginReading {
  /** The text with each such line indented to the column YAML 1.2 asks for. */
  text: string;
  /** Where spaces were put, as offsets into the text as written, with how many, in order. */
  insertions: ReadonlyArray<{ at: number; count: number }>;
  constructs: readonly MarginConstruct[];
}

/** A document marker at the margin: PyYAML ends a quoted value there too, so such a text is left as written. */
const DOCUMENT_MARKER = /^(?:---|\.\.\.)(?:[ \t\n]|$)/;

/**
 * The text with the lines that go on a quoted value or a flow collection
 * indented as YAML 1.2 asks, or undefined when it has none written too far
 * left (or one is a document marker, which ends the value for every reader).
 * Only a construct that opens as a key's value (`key: "…`) or a list item's
 * (`- "…`) is read: its lines must start past that key's or dash's column.
 */
export function indentContinuations(text: string): MarginReading | undefined {
  const insertions: Array<{ at: number; count: number }> = [];
  const constructs: MarginConstruct[] = [];
  const holders = new Map<number, Holder | undefined>();
  for (const { lineStart, opener } of continuationLines(text)) {
    if (!holders.has(opener.offset)) holders.set(opener.offset, holderOf(text, opener.offset));
    const { column: holder, kind } = holders.get(opener.offset) ?? {};
    if (holder === undefined || kind === undefined) continue;
    const lineEnd = text.indexOf("\n", lineStart);
    const line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd);
    // A blank line stands for a line break whatever its indentation.
    if (line.trim() === "") continue;
    if (DOCUMENT_MARKER.test(line)) return undefined;
    const spaces = /^ */.exec(line)?.[0].length ?? 0;
    if (spaces > holder) continue;
    insertions.push({ at: lineStart, count: holder + 1 - spaces });
    const last = constructs.at(-1);
    if (last?.openerOffset === opener.offset) last.lines++;
    else constructs.push({ opener: opener.char, openerOffset: opener.offset, first: lineStart + (/^[ \t]*/.exec(line)?.[0].length ?? 0), column: holder + 2, holder: kind, lines: 1 });
  }
  if (insertions.length === 0) return undefined;
  let indented = "";
  let from = 0;
  for (const { at, count } of insertions) {
    indented += text.slice(from, at) + " ".repeat(count);
    from = at;
  }
  return { text: indented + text.slice(from), insertions, constructs };
}

interface Holder {
  /** 0-based. */
  column: number;
  kind: MarginConstruct["holder"];
}

/**
 * The key or `-` that holds the value opening at `offset`, and its 0-based
 * column, read from the text before it on its line: `key: "` (after any `- `
 * items) gives the key's column, `- "` the dash's, an anchor or a tag between
 * them and the value (`key: &a "`) changing neither. Undefined for an opener
 * written anywhere else (a line's first character: a key, or text going on
 * from the line above): its lines are left as written.
 */
function holderOf(text: string, offset: number): Holder | undefined {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const properties = text.slice(lineStart, offset).replace(/(?:(?<=[ \t])[&!][^\s]*[ \t]+)+$/, "");
  const shape = /^( *)((?:- +)*)(?:([^\s#-][^#]*?|-[^\s#][^#]*?):[ \t]+)?$/.exec(properties);
  if (shape === null) return undefined;
  const [, indent = "", dashes = "", key] = shape;
  if (key !== undefined) return { column: indent.length + dashes.length, kind: "key" };
  if (dashes === "") return undefined;
  return { column: indent.length + dashes.trimEnd().lastIndexOf("-"), kind: "item" };
}

/** The offset in the text as written of an offset into the reading's text: a point inside inserted spaces maps to the line's start. */
export function writtenOffset(reading: MarginReading, offset: number): number {
  let shift = 0;
  for (const { at, count } of reading.insertions) {
    if (offset < at + shift) break;
    if (offset < at + shift + count) return at;
    shift += count;
  }
  return offset - shift;
}
