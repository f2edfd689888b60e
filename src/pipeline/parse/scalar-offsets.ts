/**
 * Where a character of a YAML string value is written in the source. A
 * value is not its source: quotes, escapes (`\u00e9`, `''`), folded line
 * breaks and block indentation all sit between them. This walks the value
 * and the source side by side, so a finding about "the 1,025th character"
 * points at that character in a plain, quoted or block (`|`, `>`) scalar.
 */

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  "\t": "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
  N: "\x85",
  _: "\xa0",
  L: "\u2028",
  P: "\u2029",
};
const HEX_ESCAPE_DIGITS: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };

/**
 * The offset in `text` of the value's code point number `wanted` (0-based),
 * for the scalar written at `text[start, end)`; undefined when the source
 * cannot be matched to the value (an alias, a tag the walk does not know).
 */
export function scalarCharacterOffset(text: string, start: number, end: number, value: string, wanted: number): number | undefined {
  return scalarCharacterSpan(text, start, end, value, wanted)?.at;
}

/**
 * Where the value's code point number `wanted` is written: from `at` to just
 * before `next` (an escape such as `\u00e9` spans several source characters).
 */
export function scalarCharacterSpan(text: string, start: number, end: number, value: string, wanted: number): { at: number; next: number } | undefined {
  return new ScalarWalk(text, start, end, value).spanOf(wanted);
}

/**
 * One walk of a scalar's source beside its value, for looking up many
 * characters in order: each lookup goes on from where the last one stopped,
 * so finding every character of a long value costs one pass over its source,
 * not one pass per character.
 */
export class ScalarWalk {
  private readonly style: "double" | "single" | "block" | "plain";
  /** Source offset of the next character to match; undefined once the source and the value part. */
  private position: number | undefined;
  /** UTF-16 index in the value of the next character to match. */
  private valueIndex = 0;
  /** Code point number of the next character to match. */
  private count = 0;
  private last: { at: number; next: number } | undefined;

  constructor(
    private readonly text: string,
    start: number,
    private readonly end: number,
    private readonly value: string,
  ) {
    let position = skipProperties(text, start, end);
    const indicator = text[position];
    this.style = indicator === '"' ? "double" : indicator === "'" ? "single" : indicator === "|" || indicator === ">" ? "block" : "plain";
    if (this.style === "double" || this.style === "single") position++;
    if (this.style === "block") {
      const lineBreak = text.indexOf("\n", position);
      this.position = lineBreak === -1 || lineBreak >= end ? undefined : lineBreak + 1;
    } else this.position = position;
  }

  /** The span of code point number `wanted`; `wanted` may not go back before the last one asked for. */
  spanOf(wanted: number): { at: number; next: number } | undefined {
    if (wanted === this.count - 1) return this.last;
    if (wanted < this.count) throw new RangeError(`scalar characters are looked up in order: ${wanted} after ${this.count - 1}`);
    while (this.position !== undefined && this.valueIndex < this.value.length) {
      const codePoint = this.value.codePointAt(this.valueIndex) as number;
      const character = String.fromCodePoint(codePoint);
      const match = matchCharacter(this.text, this.position, this.end, character, this.style);
      if (match === undefined) {
        this.position = undefined;
        break;
      }
      this.position = match.next;
      this.valueIndex += character.length;
      this.last = match;
      this.count++;
      if (this.count - 1 === wanted) return match;
    }
    return undefined;
  }
}

/** Skips an anchor (`&a`) or a tag (`!!str`) written before the value. */
function skipProperties(text: string, start: number, end: number): number {
  let position = start;
  while (position < end && (text[position] === "&" || text[position] === "!")) {
    while (position < end && !/\s/.test(text[position] ?? "")) position++;
    while (position < end && /\s/.test(text[position] ?? "")) position++;
  }
  return position;
}

/** Finds where `character` is written at or after `position`: literally, as an escape, or as a folded line break. */
function matchCharacter(text: string, start: number, end: number, character: string, style: "double" | "single" | "block" | "plain"): { at: number; next: number } | undefined {
  let position = start;
  while (position < end) {
    const here = text[position] ?? "";
    if (style === "double" && here === "\\") {
      const escape = decodeEscape(text, position);
      if (escape === undefined) return undefined;
      if (escape.decoded === "") {
        // A line continuation stands for nothing.
        position = escape.next;
        continue;
      }
      return escape.decoded === character ? { at: position, next: escape.next } : undefined;
    }
    if (style === "single" && character === "'" && text.startsWith("''", position)) return { at: position, next: position + 2 };
    if (text.startsWith(character, position)) return { at: position, next: position + character.length };
    if (here === "\n" && (character === " " || character === "\n")) return { at: position, next: position + 1 };
    if (here !== " " && here !== "\t" && here !== "\n") return undefined;
    position++;
  }
  return undefined;
}

function decodeEscape(text: string, position: number): { decoded: string; next: number } | undefined {
  const code = text[position + 1] ?? "";
  if (code === "\n") return { decoded: "", next: position + 2 };
  const simple = SIMPLE_ESCAPES[code];
  if (simple !== undefined) return { decoded: simple, next: position + 2 };
  const digits = HEX_ESCAPE_DIGITS[code];
  if (digits === undefined) return undefined;
  const hex = text.slice(position + 2, position + 2 + digits);
  if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits) return undefined;
  const codePoint = Number.parseInt(hex, 16);
  if (codePoint > 0x10ffff) return undefined;
  return { decoded: String.fromCodePoint(codePoint), next: position + 2 + digits };
}
