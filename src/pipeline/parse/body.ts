import { parseOrderedLists } from "./body-remark.js";
import { scanOrderedLists } from "./body-scan.js";
import { mayContainOrderedList, type OrderedListShape } from "./body-shape.js";

export type { OrderedListShape } from "./body-shape.js";

/** Deeper nesting than this is refused: a full parse of it grows quadratically, and no real skill needs it. */
export const MAX_NESTING = 32;
export const MAX_INDENT = 256;
// Each marker owns the whitespace before it, so a failed match cannot backtrack through alternative splits.
const TOO_DEEP = new RegExp(`^(?:[ \\t]*(?:>|(?:[-*+]|\\d{1,9}[.)])(?=[ \\t]|$))){${MAX_NESTING + 1}}|^[ \\t]{${MAX_INDENT + 1}}`, "m");
/** The same pattern tried at one line start (sticky), for a body whose only line terminator is the line feed. */
const TOO_DEEP_AT = new RegExp(TOO_DEEP.source, "my");

/**
 * 1-based line (within `body`) of the first line nested too deep, if any.
 * A multiline `^` pattern is tried at every position of the text; where
 * line feeds are the only line terminators, it is tried only at the line
 * starts whose first character can begin a match (indentation, `>`, a list
 * marker), and most lines start with a letter.
 */
export function tooDeepLine(body: string): number | undefined {
  let at: number | undefined;
  if (body.includes("\r") || body.includes("\u2028") || body.includes("\u2029")) at = TOO_DEEP.exec(body)?.index;
  else {
    for (let start = 0; start < body.length; ) {
      if (mayOpenNesting(body.charCodeAt(start))) {
        TOO_DEEP_AT.lastIndex = start;
        if (TOO_DEEP_AT.test(body)) {
          at = start;
          break;
        }
      }
      const feed = body.indexOf("\n", start);
      if (feed === -1) break;
      start = feed + 1;
    }
  }
  if (at === undefined) return undefined;
  let line = 1;
  for (let index = body.indexOf("\n"); index !== -1 && index < at; index = body.indexOf("\n", index + 1)) line++;
  return line;
}

/** A space, a tab, `>`, `-`, `*`, `+` or a digit: what a line nested too deeply starts with. */
function mayOpenNesting(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x3e || code === 0x2d || code === 0x2a || code === 0x2b || (code >= 0x30 && code <= 0x39);
}

/**
 * The ordered lists of a skill body, by the cheapest path that is exact:
 * none when no line can start one, the line scanner for the usual Markdown,
 * the full remark parse otherwise. Callers check {@link tooDeepLine} first.
 */
export async function findOrderedLists(fullText: string, body: string, bodyStartLine: number, lines: readonly string[] = body.split("\n")): Promise<OrderedListShape[]> {
  if (!mayContainOrderedList(body)) return [];
  return scanOrderedLists(lines, bodyStartLine) ?? (await parseOrderedLists(fullText, bodyStartLine));
}
