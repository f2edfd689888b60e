import { verifies, type OrderedListShape } from "./body-shape.js";

/**
 * A checklist written as numbered step headings rather than an ordered
 * list: `## Step 1: Read the brief`, `### 1. Read the brief`. Two or more
 * such headings at one level make one checklist; a step verifies when its
 * heading or its section says so. Fenced code is skipped.
 */
const STEP_HEADING = /^ {0,3}(#{1,6})[ \t]+(?:step[ \t]+\d{1,3}(?![\d\p{L}])[ \t]*[:.)—–-]?|\d{1,3}[.)])(?:[ \t]+|$)(.*)$/iu;
const ANY_HEADING = /^ {0,3}(#{1,6})(?:[ \t]|$)/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The character after at most three leading spaces: each pattern above needs `#`, a backtick or `~` there, so prose lines skip them. */
function firstAfterIndent(line: string): string {
  let index = 0;
  while (index < 3 && line.charCodeAt(index) === 32) index++;
  return line.charAt(index);
}

/** `lines` is the body split at line feeds, when the caller has it already. */
export function findStepHeadings(body: string, bodyStartLine: number, lines?: readonly string[]): OrderedListShape[] {
  if (!/^ {0,3}#/m.test(body)) return [];
  lines ??= body.split("\n");
  const headings: Array<{ index: number; level: number; step: boolean; text: string }> = [];
  let fence: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index] ?? "";
    const first = firstAfterIndent(text);
    const marker = first === "`" || first === "~" ? FENCE.exec(text)?.[1] : undefined;
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      continue;
    }
    const heading = first === "#" ? ANY_HEADING.exec(text) : null;
    if (!heading) continue;
    const step = STEP_HEADING.exec(text);
    headings.push({ index, level: (heading[1] ?? "").length, step: step !== null, text: step?.[2] ?? "" });
  }
  const byLevel = new Map<number, OrderedListShape>();
  headings.forEach((heading, position) => {
    if (!heading.step) return;
    // The step's section runs to the next heading at its level or above.
    const next = headings.slice(position + 1).find((other) => other.level <= heading.level);
    const section = lines.slice(heading.index, next ? next.index : lines.length).join("\n");
    const shape = byLevel.get(heading.level) ?? { line: bodyStartLine + heading.index, column: 1, items: [] };
    shape.items.push({ line: bodyStartLine + heading.index, verifies: verifies(section) });
    byLevel.set(heading.level, shape);
  });
  return [...byLevel.values()].filter((shape) => shape.items.length >= 2).sort((a, b) => a.line - b.line);
}
