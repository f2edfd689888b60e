import type { SkillType } from "../stage-data.js";
import { findOrderedLists, tooDeepLine } from "../pipeline/parse/body.js";
import { findStepHeadings } from "../pipeline/parse/step-headings.js";
import { chooseChecklist, CONDITION_HEADING, headingBefore, OUTSIDE_HEADING, PROCEDURE_HEADING, PROCEDURE_STEPS, stepCount } from "../pipeline/parse/checklist.js";
import { LineIndex } from "../pipeline/parse/positions.js";
import { bodyProblems, longChecklist } from "../pipeline/validate/body-rules.js";
import type { FrontmatterSplit } from "../pipeline/parse/frontmatter.js";
import type { RuleId } from "../diagnostics/rules/index.js";

/**
 * The rules that give a skill without a `type` its type. Both count the
 * steps of the list the build compiles as the checklist (and so the one the
 * runtime enforces and the audit judges), so the count they print is the
 * compiled one.
 *
 * - `lint --fix` (which writes the type into the frontmatter of a file the
 *   author edits, one fix line per skill): a workflow when the body has an
 *   ordered list of at least three steps (or numbered step headings: what
 *   `skill/reference-checklist` calls a procedure; placeholders such as
 *   `3. ...` are not steps), a reference otherwise ({@link chooseFixType}).
 *   The type it writes is never one that lint then reports a finding about:
 *   when the skill's own fields or body make that type bring one (a
 *   workflow's checklist without a verifying step, `toolNamespaces` on a
 *   reference), the other type is written if it brings none, and otherwise
 *   none is, and the finding stays for a person.
 * - `init` around an existing collection (which writes the config's
 *   `skillTypes` for every skill at once, `declared`): a workflow only where
 *   the skill declares an ordered procedure, as the build reads it
 *   ({@link chooseChecklist}): its compiled checklist has at least three
 *   steps and is written as `Step N` headings, or sits under a heading that
 *   names its steps (Steps, Step-by-step, Procedure, Checklist), or is the
 *   first list that reads as a procedure under a heading that names a
 *   process or a workflow, in English; never a list about what comes after or
 *   outside the procedure (Next steps, See also, When …). Anything else is a
 *   reference: a numbered list of principles, options or follow-ups is not a
 *   procedure, and a workflow's checklist is enforced.
 */
export interface SkillTypeChoice {
  type: SkillType;
  /** Steps in the body's compiled checklist (0 when it has none). */
  steps: number;
  /** Why, in words: "the body has a checklist of 9 steps". */
  reason: string;
}

/** The words of {@link PROCEDURE_HEADING}, as init's reasons list them. */
const PROCEDURE_WORDS = "Steps, Procedure, Process, Workflow, Checklist";

/** Undefined when the body is nested too deep to be read (lint reports that on its own). */
export async function chooseSkillType(text: string, body: string, bodyStartLine: number, options: { declared?: boolean } = {}): Promise<SkillTypeChoice | undefined> {
  if (tooDeepLine(body) !== undefined) return undefined;
  // In line order, as the parse that feeds the build finds them.
  const lists = [...(await findOrderedLists(text, body, bodyStartLine)), ...findStepHeadings(body, bodyStartLine)].sort((a, b) => a.line - b.line);
  const lines = new LineIndex(text);
  const choice = chooseChecklist(lines, lists, bodyStartLine);
  const checklist = choice?.list;
  const steps = checklist === undefined ? 0 : stepCount(lines, checklist);
  const long = longChecklist(lists, lines);
  const none = { type: "reference", steps, reason: `the body has no checklist of ${PROCEDURE_STEPS} or more steps` } as const;
  if (options.declared !== true) return long ? { type: "workflow", steps, reason: `the body has a checklist of ${steps} steps` } : none;
  if (checklist === undefined || long === undefined) return none;
  const heading = choice?.heading.trim() ?? "";
  if (steps >= PROCEDURE_STEPS && choice?.declared === "step-headings") return { type: "workflow", steps, reason: `its checklist is ${steps} "Step N" headings` };
  if (steps >= PROCEDURE_STEPS && choice?.declared === "heading") return { type: "workflow", steps, reason: `its checklist of ${steps} steps is under "${heading}"` };
  // The procedure it declares is too short to hold the agent to (a longer list elsewhere is not it).
  if (choice?.declared === "step-headings") return { type: "reference", steps, reason: `its checklist is ${steps} "Step N" headings, fewer than ${PROCEDURE_STEPS}` };
  if (choice?.declared === "heading") return { type: "reference", steps, reason: `its checklist under "${heading}" has ${steps} steps, fewer than ${PROCEDURE_STEPS}` };
  const shown = steps >= PROCEDURE_STEPS ? { list: checklist, count: steps } : { list: long.list, count: long.steps };
  const under = headingBefore(lines, shown.list.line, bodyStartLine).trim();
  // The heading words are English: a heading in another language may well name a procedure, so the reason says
  // what init did not find rather than what the heading means.
  if (under === "") return { type: "reference", steps, reason: `a list of ${shown.count} items, no heading naming steps or a procedure` };
  if (PROCEDURE_HEADING.test(under) && !OUTSIDE_HEADING.test(under)) return { type: "reference", steps, reason: `a list of ${shown.count} items under "${under}", a heading numbered as one part of several` };
  if (CONDITION_HEADING.test(under)) return { type: "reference", steps, reason: `a list of ${shown.count} items under "${under}", a heading that names a condition (one branch, not the whole procedure)` };
  if (OUTSIDE_HEADING.test(under)) return { type: "reference", steps, reason: `a list of ${shown.count} items under "${under}", a heading about what comes after or outside the procedure` };
  return { type: "reference", steps, reason: `a list of ${shown.count} items under "${under}", a heading with none of the English words ${PROCEDURE_WORDS}` };
}

/** The type `lint --fix` writes, or why it writes none (`unfit`: each type would bring a finding the skill does not have). */
export type FixTypeChoice = SkillTypeChoice | { unfit: string };

/**
 * The type `lint --fix` writes for a skill without one: {@link chooseSkillType}'s guess, unless that type would
 * bring a finding of the rules that judge a type against the skill (the body's contract for the type,
 * `toolNamespaces`, which only a workflow declares); then the other type when it brings none. Neither: `unfit`,
 * naming what each would bring. Undefined when the body is nested too deep to be read.
 */
export async function chooseFixType(text: string, split: FrontmatterSplit, declaresNamespaces: boolean): Promise<FixTypeChoice | undefined> {
  const guess = await chooseSkillType(text, split.body, split.bodyStartLine);
  if (guess === undefined) return undefined;
  const lists = [...(await findOrderedLists(text, split.body, split.bodyStartLine)), ...findStepHeadings(split.body, split.bodyStartLine)].sort((a, b) => a.line - b.line);
  const lines = new LineIndex(text);
  const brings = (type: SkillType): RuleId[] => [...new Set<RuleId>([...bodyProblems(type, lists, lines, split).map((problem) => problem.ruleId), ...(type === "reference" && declaresNamespaces ? ["skill/namespace-on-reference" as const] : [])])];
  const first = brings(guess.type);
  if (first.length === 0) return guess;
  const other: SkillType = guess.type === "workflow" ? "reference" : "workflow";
  const second = brings(other);
  if (second.length === 0) return { type: other, steps: guess.steps, reason: `as a ${guess.type} it would have ${first.join(", ")}` };
  return { unfit: `no type fits the skill as it is: as a workflow it would have ${(other === "workflow" ? second : first).join(", ")}, as a reference ${(other === "reference" ? second : first).join(", ")}` };
}
