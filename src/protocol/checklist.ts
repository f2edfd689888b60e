/**
 * A workflow skill's compiled checklist: `dist/skills/<name>.steps.json`.
 * A public contract shared by the compiler (which writes it from the same
 * parse lint uses) and the runtime (which derives progress and audits from
 * it). Types and constants only.
 */

export interface ChecklistStep {
  /** The number the rendered Markdown shows, e.g. 7 for "7. **Validate.**". */
  number: number;
  /** The step's bold lead (or its first sentence), without Markdown and without "(optional)". */
  title: string;
  /** Marked "(optional)" in the skill: it may be skipped with a reason. */
  optional: boolean;
  /** The step verifies the result (verify, check, inspect, confirm, review, validate, ensure, test, assert). */
  verifies: boolean;
  /** 1-based line of the step's marker in SKILL.md. */
  line: number;
}

export interface SkillChecklist {
  skill: string;
  /** Root-relative path of SKILL.md. */
  source: string;
  steps: ChecklistStep[];
}

export function stepsFile(skill: string): string {
  return `skills/${skill}.steps.json`;
}

/** `deck-generation#7`: how a task names the checklist step it covers. */
export const STEP_REFERENCE = /^([a-z0-9]+(?:-[a-z0-9]+)*)#([1-9][0-9]{0,8})$/;

export function stepReference(skill: string, number: number): string {
  return `${skill}#${number}`;
}

export function parseStepReference(reference: string): { skill: string; number: number } | undefined {
  const match = STEP_REFERENCE.exec(reference);
  if (!match) return undefined;
  return { skill: match[1] as string, number: Number(match[2]) };
}
