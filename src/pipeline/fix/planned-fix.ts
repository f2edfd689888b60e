import type { RuleId } from "../../diagnostics/rules/index.js";

/** A fix as planned: text edits on a SKILL.md's normalised text, and the frontmatter they promise. */

/** Replace `text[start, end)` with `insert`; offsets into the normalised text. */
export interface TextEdit {
  start: number;
  end: number;
  insert: string;
}

export interface PlannedFix {
  ruleId: RuleId;
  /** Where the fixed finding was reported. */
  line: number;
  column: number;
  /** What the fix changes, for the user. */
  message: string;
  /** One change, or a few that belong together (moving keys: each removed where it was, written where it goes); they never overlap. */
  edits: TextEdit[];
  /** The file's byte order mark goes too (it lies before the normalised text the edits address). */
  dropsByteOrderMark?: true;
  /** The frontmatter value after this fix: a fix is kept only when the file reads back as exactly this. */
  expect(frontmatter: Record<string, unknown>): void;
}

/** Where the finding a fix answers was reported. */
export type FixSite = Pick<PlannedFix, "ruleId" | "line" | "column">;

/**
 * A finding a fix exists for that the planner leaves for a person, and why: `lint --fix` says so in a
 * `not fixed` line rather than leave the user to wonder why the fix its message offers did not happen.
 */
export interface DeclinedFix extends FixSite {
  reason: string;
}

/** True when two of the edits touch the same text. */
export function overlapping(edits: readonly TextEdit[]): boolean {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  return sorted.some((edit, position) => position > 0 && edit.start < (sorted[position - 1]?.end ?? 0));
}
