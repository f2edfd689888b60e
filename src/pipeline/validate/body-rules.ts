import type { Range } from "../../diagnostics/diagnostic.js";
import type { RuleId } from "../../diagnostics/rules/index.js";
import type { SkillType } from "../../stage-data.js";
import type { OrderedListShape } from "../parse/body-shape.js";
import type { FrontmatterSplit } from "../parse/frontmatter.js";
import type { LineIndex } from "../parse/positions.js";
import { chooseChecklist, headingBefore, OUTSIDE_HEADING, PROCEDURE_STEPS, stepCount, type ChecklistChoice } from "../parse/checklist.js";

export interface BodyProblem {
  ruleId: RuleId;
  range: Range;
  message: string;
}

/**
 * The skill-type contract on the body: a workflow carries an ordered
 * checklist with at least one verifying step; a reference does not read as
 * a checklist.
 */
export function bodyProblems(type: SkillType, lists: readonly OrderedListShape[], index: LineIndex, split: FrontmatterSplit): BodyProblem[] {
  if (type === "workflow") {
    // The list the build compiles as the checklist, and so the one the runtime enforces and audits.
    const choice = chooseChecklist(index, lists, split.bodyStartLine);
    if (!choice) {
      const range = split.body === "" ? split.closing : index.lineRange(split.bodyStartLine);
      return [{ ruleId: "skill/workflow-checklist", range, message: "Unexpected workflow body without an ordered list, expected a numbered checklist of steps (1. …, 2. …) or numbered step headings (## Step 1: …)" }];
    }
    const checklist = choice.list;
    const problems: BodyProblem[] = [];
    const guess = guessedChecklist(choice, lists, index, split.bodyStartLine);
    if (guess !== undefined) problems.push({ ruleId: "skill/workflow-checklist-guess", range: listRange(checklist, index), message: guess });
    if (!checklist.items.some((item) => item.verifies)) {
      problems.push({
        ruleId: "skill/workflow-verification",
        range: listRange(checklist, index),
        message: "Unexpected checklist without a verification step, expected a step that verifies the result (verify, check, inspect, confirm, review, validate, ensure, test, assert)",
      });
    }
    return problems;
  }
  const checklist = longChecklist(lists, index);
  if (!checklist) return [];
  return [
    {
      ruleId: "skill/reference-checklist",
      range: listRange(checklist.list, index),
      message: `Unexpected checklist of ${checklist.steps} steps in a reference skill, expected lookup material (a procedure belongs in a workflow skill)`,
    },
  ];
}

/**
 * Why the compiled checklist is a guess, when it is: the body declares no
 * procedure and holds another list that reads as one, or the only list is
 * about what comes after or outside the procedure. A declared checklist
 * (`Step N` headings, a heading that names its steps or the workflow) never is.
 */
function guessedChecklist(choice: ChecklistChoice, lists: readonly OrderedListShape[], index: LineIndex, bodyStartLine: number): string | undefined {
  const continued = continuedFrom(choice.list, lists, index);
  if (continued !== undefined) {
    return `Unexpected checklist that starts at step ${continued.start}, after a list of steps ${continued.earlierStart} to ${continued.start - 1} at line ${continued.earlierLine}: a table, a code block or a paragraph at the margin between them ends a Markdown list, so those steps are not compiled; expected the procedure as one list (indent what stands between its steps under the step before), or as Step N headings`;
  }
  if (choice.declared !== undefined) return undefined;
  const heading = choice.heading.trim();
  // Only the headings that declare whichever list they head: a workflow heading declares a list only when it is also
  // the first of three or more steps, so it cannot move the choice to a later list.
  const expected = "expected the procedure as Step N headings or under a heading that names its steps (## Steps, ## Procedure, ## Checklist)";
  if (OUTSIDE_HEADING.test(heading)) return `Unexpected checklist under "${heading}", a heading about a condition or about what comes after the procedure, compiled only because the body has no other list; ${expected}`;
  // Lists under a condition or a follow-up heading are no candidates for the procedure.
  const others = lists.filter((list) => list !== choice.list && list.items.length >= PROCEDURE_STEPS && stepCount(index, list) >= PROCEDURE_STEPS && !OUTSIDE_HEADING.test(headingBefore(index, list.line, bodyStartLine))).length;
  if (others === 0) return undefined;
  return `Unexpected checklist chosen as the first of ${others + 1} lists of ${PROCEDURE_STEPS} or more steps, none declared as the procedure; ${expected}`;
}

/**
 * When `list` starts at a number above 1 and an earlier list (of steps 1 or more) ends right before that number,
 * the two were one procedure that something at the margin split: where each starts, and the earlier one's line.
 */
function continuedFrom(list: OrderedListShape, lists: readonly OrderedListShape[], index: LineIndex): { start: number; earlierStart: number; earlierLine: number } | undefined {
  const start = firstNumber(list, index);
  if (start === undefined || start <= 1) return undefined;
  for (const earlier of lists) {
    if (earlier.line >= list.line) break;
    const earlierStart = firstNumber(earlier, index);
    if (earlierStart !== undefined && earlierStart + earlier.items.length === start) return { start, earlierStart, earlierLine: earlier.line };
  }
  return undefined;
}

/** The number of an ordered list's first marker (undefined for step headings, which carry their own). */
function firstNumber(list: OrderedListShape, index: LineIndex): number | undefined {
  if (list.items[0]?.heading !== undefined) return undefined;
  const marker = /^[\s>]*(\d{1,9})[.)]/.exec(index.lineText(list.line));
  return marker ? Number(marker[1]) : undefined;
}

/** The first list of at least {@link PROCEDURE_STEPS} steps (placeholders such as `3. ...` not counted): what reads as a procedure. */
export function longChecklist(lists: readonly OrderedListShape[], index: LineIndex): { list: OrderedListShape; steps: number } | undefined {
  for (const list of lists) {
    // Most lists are short: only a list with enough items can have enough steps.
    if (list.items.length < PROCEDURE_STEPS) continue;
    const steps = stepCount(index, list);
    if (steps >= PROCEDURE_STEPS) return { list, steps };
  }
  return undefined;
}

/** From the list's first marker to the end of that line. */
function listRange(list: OrderedListShape, index: LineIndex): Range {
  const line = index.lineRange(list.line);
  return { start: { line: list.line, column: list.column }, end: line.end };
}
