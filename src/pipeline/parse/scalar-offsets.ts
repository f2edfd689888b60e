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
  let position = skipProperties(text, start, end);
  const indicator = text[position];
  const style = indicator === '"' ? "double" : indicator === "'" ? "single" : indicator === "|" || indicator === ">" ? "block" : "plain";
  if (style === "double" || style === "single") position++;
  if (style === "block") {
    const lineBreak = text.indexOf("\n", position);
    if (lineBreak === -1 || lineBreak >= end) return undefined;
    position = lineBreak + 1;
  }
  let count = 0;
  for (const character of value) {
    const match = matchCharacter(text, position, end, character, style);
    if (match === undefined) return undefined;
    if (count === wanted) return match;
    position = match.next;
    count++;
  }
  return undefined;
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
