import { outlineBlocks } from "./block-structure.js";
import { MAX_NESTING } from "./body.js";
import { verifies, type OrderedListShape } from "./body-shape.js";

/**
 * A checklist written as numbered step headings rather than an ordered
 * list: `## Step 1: Read the brief`, `### 1. Read the brief`. Any heading
 * CommonMark sees counts: ATX (`## …`) or setext (the text underlined with
 * `===` for level 1, `---` for level 2), and its step number may be
 * emphasised (`## **Step 1:** Read the brief`, `## **Step 1: Read the brief**`).
 * Two or more such headings at one level, numbered on, make one checklist; a step
 * verifies when its heading or its section says so. Headings inside code,
 * HTML blocks or block quotes are not steps.
 */
const STEP_NUMBER = /^(\*{1,3}|_{1,3})?(?:step[ \t]+\d{1,3}(?![\d\p{L}])[ \t]*(\1)?[ \t]*[:.)—–-]?|\d{1,3}[.)])(\1)?(?:[ \t]+|$)(.*)$/iu;

/**
 * The step title a heading's text carries after its step number, with the
 * emphasis around the number (or around the whole text) taken off; undefined
 * when the heading is not a step.
 */
export function stepHeadingTitle(headingText: string): string | undefined {
  const match = STEP_NUMBER.exec(headingText);
  if (!match) return undefined;
  const emphasis = match[1];
  let title = match[4] ?? "";
  if (emphasis !== undefined && match[2] === undefined && match[3] === undefined) {
    // `**Step 1: Gather**`: the emphasis closes at the end of the heading, or the text is not emphasised at all.
    if (!title.endsWith(emphasis)) return undefined;
    title = title.slice(0, title.length - emphasis.length).trimEnd();
  }
  return title;
}

/**
 * Cheap and certain negatives, so most bodies skip the block pass: an ATX
 * step heading has `#`, spaces and a step number on its line (at any
 * container depth); a setext one needs a step number somewhere and a line
 * that can underline it.
 */
const MAY_BE_ATX_STEP = /#[ \t]+(?:\*{1,3}|_{1,3})?(?:step[ \t]+\d|\d{1,3}[.)])/iu;
const MAY_BE_STEP_TEXT = /step[ \t]+\d|\d[.)]/iu;
const MAY_UNDERLINE = /^[ \t>]*(?:=+|-+)[ \t]*\r?$/m;

function mayHoldStepHeading(body: string): boolean {
  return MAY_BE_ATX_STEP.test(body) || (MAY_BE_STEP_TEXT.test(body) && MAY_UNDERLINE.test(body));
}

/**
 * Each run of step headings at one level is one list: a run goes on while
 * the numbers written go on (`Step 3` after `Step 2`, also across the parent
 * sections of a staged procedure) and ends where they start again (a second
 * procedure, an alternative branch, `### 1. Over-Abstraction` under "Common
 * Pitfalls" after the steps), so two procedures never make one checklist of
 * both. `lines` is the body split at line feeds, when the caller has it already.
 */
export function findStepHeadings(body: string, bodyStartLine: number, lines?: readonly string[]): OrderedListShape[] {
  if (!mayHoldStepHeading(body)) return [];
  lines ??= body.split("\n");
  const headings = outlineBlocks(lines, MAX_NESTING).headings.filter((heading) => !heading.quoted);
  const runs: OrderedListShape[] = [];
  const openRun = new Map<number, { shape: OrderedListShape; number: number }>();
  headings.forEach((heading, position) => {
    const title = stepHeadingTitle(heading.text);
    if (title === undefined) return;
    // The step's section runs to the next heading at its level or above.
    const next = headings.slice(position + 1).find((other) => other.level <= heading.level);
    const section = lines.slice(heading.line, next ? next.line : lines.length).join("\n");
    const number = writtenNumber(heading.text);
    let run = openRun.get(heading.level);
    if (run === undefined || number <= run.number) {
      run = { shape: { line: bodyStartLine + heading.line, column: 1, items: [] }, number };
      runs.push(run.shape);
      openRun.set(heading.level, run);
    }
    run.number = number;
    run.shape.items.push({ line: bodyStartLine + heading.line, verifies: verifies(section), heading: title });
  });
  return runs.filter((shape) => shape.items.length >= 2).sort((a, b) => a.line - b.line);
}

/** The number a step heading writes (`Step 3`, `3.`), which STEP_NUMBER found there. */
function writtenNumber(headingText: string): number {
  return Number(/\d{1,3}/.exec(headingText)?.[0] ?? 0);
}
