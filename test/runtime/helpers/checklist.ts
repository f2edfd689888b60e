/** Task lists that name the embedded default's deck-generation checklist steps (14 steps; 3 and 4 optional). */
export interface StepTask {
  id: string;
  title: string;
  status: "pending" | "in_progress" | "complete" | "blocked";
  step: string;
  note?: string;
  deviation?: boolean;
}

/** One task per step 1..count; `overrides` changes single steps. Default status: complete. */
export function deckTasks(overrides: Record<number, Partial<StepTask>> = {}, count = 14, skill = "deck-generation"): StepTask[] {
  return Array.from({ length: count }, (_, index) => {
    const number = index + 1;
    return { id: `t${number}`, title: `Step ${number}`, status: "complete" as const, step: `${skill}#${number}`, ...overrides[number] };
  });
}

/** The optional steps 3 and 4 skipped with a reason. */
export const SKIPPED_OPTIONAL: Record<number, Partial<StepTask>> = { 3: { note: "Topic-only request: nothing blocks" }, 4: { note: "No outside facts needed" } };

/** Every step done; the optional steps 3 and 4 skipped with a reason. */
export const FINISHED_DECK = deckTasks(SKIPPED_OPTIONAL);
