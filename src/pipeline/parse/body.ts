import { parseOrderedLists } from "./body-remark.js";
import { scanOrderedLists } from "./body-scan.js";
import { mayContainOrderedList, type OrderedListShape } from "./body-shape.js";

export type { OrderedListShape } from "./body-shape.js";

/** Deeper nesting than this is refused: a full parse of it grows quadratically, and no real skill needs it. */
export const MAX_NESTING = 32;
export const MAX_INDENT = 256;
// Each marker owns the whitespace before it, so a failed match cannot backtrack through alternative splits.
const TOO_DEEP = new RegExp(`^(?:[ \\t]*(?:>|(?:[-*+]|\\d{1,9}[.)])(?=[ \\t]|$))){${MAX_NESTING + 1}}|^[ \\t]{${MAX_INDENT + 1}}`, "m");

/** 1-based line (within `body`) of the first line nested too deep, if any. */
export function tooDeepLine(body: string): number | undefined {
  const match = TOO_DEEP.exec(body);
  if (!match) return undefined;
  let line = 1;
  for (let index = body.indexOf("\n"); index !== -1 && index < match.index; index = body.indexOf("\n", index + 1)) line++;
  return line;
}

/**
 * The ordered lists of a skill body, by the cheapest path that is exact:
 * none when no line can start one, the line scanner for the usual Markdown,
 * the full remark parse otherwise. Callers check {@link tooDeepLine} first.
 */
export async function findOrderedLists(fullText: string, body: string, bodyStartLine: number): Promise<OrderedListShape[]> {
  if (!mayContainOrderedList(body)) return [];
  return scanOrderedLists(body.split("\n"), bodyStartLine) ?? (await parseOrderedLists(fullText, bodyStartLine));
}
