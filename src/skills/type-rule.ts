import type { SkillType } from "../stage-data.js";
import { findOrderedLists, tooDeepLine } from "../pipeline/parse/body.js";
import { findStepHeadings } from "../pipeline/parse/step-headings.js";
import { PROCEDURE_STEPS, stepCount } from "../pipeline/parse/checklist.js";
import { LineIndex } from "../pipeline/parse/positions.js";

/**
 * The one rule that gives a skill without a `type` its type, for `lint --fix`
 * (which writes it into the frontmatter) and `init` around an existing
 * collection (which writes it into the config's `skillTypes`): a workflow
 * when the body has a checklist of at least three steps (an ordered list or
 * numbered step headings: what `skill/reference-checklist` calls a
 * procedure; placeholders such as `3. ...` are not steps), a reference
 * otherwise. So a type either of them chose is never one that lint then
 * warns about, and a workflow's compiled checklist has the steps counted here.
 */
export interface SkillTypeChoice {
  type: SkillType;
  /** Steps in the body's longest checklist (0 when it has none). */
  steps: number;
  /** Why, in words: "the body has a checklist of 9 steps". */
  reason: string;
}

/** Undefined when the body is nested too deep to be read (lint reports that on its own). */
export async function chooseSkillType(text: string, body: string, bodyStartLine: number): Promise<SkillTypeChoice | undefined> {
  if (tooDeepLine(body) !== undefined) return undefined;
  const lists = [...(await findOrderedLists(text, body, bodyStartLine)), ...findStepHeadings(body, bodyStartLine)];
  const lines = new LineIndex(text);
  const steps = Math.max(0, ...lists.map((list) => stepCount(lines, list)));
  return steps >= PROCEDURE_STEPS
    ? { type: "workflow", steps, reason: `the body has a checklist of ${steps} steps` }
    : { type: "reference", steps, reason: `the body has no checklist of ${PROCEDURE_STEPS} or more steps` };
}
