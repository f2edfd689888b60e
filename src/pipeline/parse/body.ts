import { parseOrderedLists } from "./body-remark.js";
import { scanOrderedLists } from "./body-scan.js";
import { outlineBlocks } from "./block-structure.js";
import { mayContainOrderedList, type OrderedListShape } from "./body-shape.js";

export type { OrderedListShape } from "./body-shape.js";

/** Deeper nesting than this is refused: a full parse of it grows quadratically, and no real skill needs it. */
export const MAX_NESTING = 32;

/**
 * 1-based line (within `body`, counted in line feeds) on which more than
 * {@link MAX_NESTING} block quotes and list items are open, as CommonMark
 * reads the body: markers inside code, HTML blocks or a thematic break
 * (`- - - -`) nest nothing. Each open container takes at least one column
 * of its line's lead (`>`, a list marker, the indentation of an item's
 * content), so a line that opens one past the limit leads with more columns
 * of those characters than the limit; the block pass runs only on bodies
 * that have such a line, and most have none.
 */
export function tooDeepLine(body: string, lines?: readonly string[]): number | undefined {
  if (!hasDeepLead(body)) return undefined;
  const tooDeep = outlineBlocks(lines ?? body.split("\n"), MAX_NESTING).tooDeep;
  return tooDeep === undefined ? undefined : tooDeep + 1;
}

/** Whether some line (after a line feed or carriage return) leads with more than MAX_NESTING columns of spaces, tabs, `>`, list markers and digits. */
function hasDeepLead(body: string): boolean {
  // Only line starts are looked at; most lines start with a letter, and a lead ends at the first other character.
  const breaks = body.includes("\r") ? /[\r\n]/g : undefined;
  for (let start = 0; start < body.length; ) {
    let columns = 0;
    for (let at = start; at < body.length; at++) {
      const code = body.charCodeAt(at);
      if (!isLeadCharacter(code)) break;
      columns += code === 0x09 ? 4 : 1;
      if (columns > MAX_NESTING) return true;
    }
    let next: number;
    if (breaks) {
      breaks.lastIndex = start;
      next = breaks.exec(body)?.index ?? -1;
    } else next = body.indexOf("\n", start);
    if (next === -1) return false;
    start = next + 1;
  }
  return false;
}

/** A space, a tab, `>`, `-`, `*`, `+`, a digit, `.` or `)`: what container markers and their indentation are made of. */
function isLeadCharacter(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x3e || code === 0x2d || code === 0x2a || code === 0x2b || code === 0x2e || code === 0x29 || (code >= 0x30 && code <= 0x39);
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
