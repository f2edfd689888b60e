/**
 * Checklist progress: each step of an active workflow skill with a status
 * derived from the tasks that name it (`todo` tasks with `step:
 * "deck-generation#7"`). Pure data, recomputed from the task list; the
 * interface draws it from the `checklist_progress` protocol event.
 */
import { stepReference, type ChecklistStep } from "../../protocol/checklist.js";
import type { Task } from "../execution-state.js";

/**
 * - `pending`: no task names the step yet, or its tasks are all pending;
 * - `in_progress`: a task is in progress, or some of its tasks are done;
 * - `complete`: every task is complete;
 * - `skipped`: an optional step whose tasks are complete with a note (the reason);
 * - `blocked`: a task waits for something (its note says what), e.g. the user's answer;
 * - `failed`: a task is blocked with `deviation: true`: an unrecoverable error (note = cause).
 */
export type StepStatus = "pending" | "in_progress" | "complete" | "skipped" | "blocked" | "failed";

export const STEP_STATUSES: readonly StepStatus[] = ["pending", "in_progress", "complete", "skipped", "blocked", "failed"];

export interface StepProgress {
  number: number;
  title: string;
  optional: boolean;
  verifies: boolean;
  status: StepStatus;
  /** Why a step is skipped, blocked or failed (the tasks' notes). */
  reason?: string;
  /** Ids of the tasks that name this step, in list order. */
  taskIds: string[];
}

/** An unrecoverable step error: the one representation (a blocked task with `deviation: true` and a note). */
export interface Deviation {
  skill: string;
  step: number;
  title: string;
  taskId: string;
  reason: string;
}

export interface ChecklistProgress {
  skill: string;
  steps: StepProgress[];
  counts: Record<StepStatus, number>;
  deviations: Deviation[];
}

export function checklistProgress(skill: string, steps: readonly ChecklistStep[], tasks: readonly Task[]): ChecklistProgress {
  const deviations: Deviation[] = [];
  const progress = steps.map((step): StepProgress => {
    const reference = stepReference(skill, step.number);
    const linked = tasks.filter((task) => task.step === reference);
    for (const task of linked) {
      if (task.deviation === true) deviations.push({ skill, step: step.number, title: step.title, taskId: task.id, reason: task.note ?? "" });
    }
    const { status, reason } = stepStatus(step, linked);
    return {
      number: step.number,
      title: step.title,
      optional: step.optional,
      verifies: step.verifies,
      status,
      ...(reason === undefined ? {} : { reason }),
      taskIds: linked.map((task) => task.id),
    };
  });
  const counts = Object.fromEntries(STEP_STATUSES.map((status) => [status, 0])) as Record<StepStatus, number>;
  for (const step of progress) counts[step.status] += 1;
  return { skill, steps: progress, counts, deviations };
}

function stepStatus(step: ChecklistStep, linked: readonly Task[]): { status: StepStatus; reason?: string } {
  const notes = (of: readonly Task[]): string | undefined => {
    const texts = of.map((task) => task.note?.trim() ?? "").filter((note) => note !== "");
    return texts.length === 0 ? undefined : texts.join("; ");
  };
  if (linked.length === 0) return { status: "pending" };
  const failed = linked.filter((task) => task.deviation === true);
  if (failed.length > 0) return withReason("failed", notes(failed));
  const blocked = linked.filter((task) => task.status === "blocked");
  if (blocked.length > 0) return withReason("blocked", notes(blocked));
  if (linked.every((task) => task.status === "complete")) {
    const reason = notes(linked);
    if (step.optional && reason !== undefined && linked.every((task) => (task.note?.trim() ?? "") !== "")) return { status: "skipped", reason };
    return { status: "complete" };
  }
  if (linked.some((task) => task.status === "in_progress" || task.status === "complete")) return { status: "in_progress" };
  return { status: "pending" };
}

function withReason(status: StepStatus, reason: string | undefined): { status: StepStatus; reason?: string } {
  return reason === undefined ? { status } : { status, reason };
}

/** One line per step, as a plain-text interface might draw it (the README shows it). */
export function renderProgress(progress: ChecklistProgress): string {
  const marks: Record<StepStatus, string> = { pending: "[ ]", in_progress: "[>]", complete: "[x]", skipped: "[-]", blocked: "[!]", failed: "[✗]" };
  const done = progress.counts.complete + progress.counts.skipped;
  // The counts cover every step, also when an interface passes on only some of them.
  const total = Object.values(progress.counts).reduce((sum, count) => sum + count, 0);
  const lines = progress.steps.map((step) => {
    const label = `${String(step.number).padStart(2)}. ${step.title}${step.optional ? " (optional)" : ""}`;
    const tail = step.reason === undefined ? "" : ` — ${step.status}: ${step.reason}`;
    return `${marks[step.status]} ${label}${tail}`;
  });
  return [`${progress.skill}: ${done}/${total} steps done`, ...lines].join("\n");
}
