/**
 * The `todo` tool's contract: the model sends the whole list each time; the
 * runtime accepts it only when it is well formed and at most one task is
 * in progress (exactly one while any task is still pending, unless a blocked
 * task says the list waits on the user).
 */
import { STEP_REFERENCE } from "../protocol/checklist.js";
import type { Task, TaskSnapshot, TaskStatus } from "./execution-state.js";

export const TASK_STATUSES: readonly TaskStatus[] = ["pending", "in_progress", "complete", "blocked"];

export class TodoToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TodoToolError";
  }
}

/**
 * Validates the tool's `tasks` argument and returns clean copies (unknown keys
 * dropped). `checkStep` judges a task's `step` reference (undefined = accepted,
 * else why not); without it any well-formed reference is accepted.
 */
export function parseTaskList(value: unknown, checkStep?: (reference: string) => string | undefined): Task[] {
  if (!Array.isArray(value)) throw new TodoToolError("Unexpected `tasks` that is not a list, expected the complete task list.");
  const ids = new Set<string>();
  const tasks = value.map((raw, index): Task => {
    const where = `tasks[${index}]`;
    if (typeof raw !== "object" || raw === null) throw new TodoToolError(`Unexpected ${where} that is not an object, expected {id, title, status}.`);
    const { id, title, status, note, step, deviation } = raw as Record<string, unknown>;
    if (typeof id !== "string" || id.trim() === "") throw new TodoToolError(`Unexpected ${where}.id, expected a non-empty string.`);
    if (ids.has(id)) throw new TodoToolError(`Unexpected duplicate task id "${id}", expected each id once.`);
    ids.add(id);
    if (typeof title !== "string" || title.trim() === "") throw new TodoToolError(`Unexpected ${where}.title, expected a non-empty string.`);
    if (typeof status !== "string" || !(TASK_STATUSES as readonly string[]).includes(status)) {
      throw new TodoToolError(`Unexpected ${where}.status ${JSON.stringify(status)}, expected one of ${TASK_STATUSES.join(", ")}.`);
    }
    if (note !== undefined && typeof note !== "string") throw new TodoToolError(`Unexpected ${where}.note, expected a string.`);
    const task: Task = note === undefined ? { id, title, status: status as TaskStatus } : { id, title, status: status as TaskStatus, note };
    if (step !== undefined) {
      if (typeof step !== "string" || !STEP_REFERENCE.test(step)) {
        throw new TodoToolError(`Unexpected ${where}.step ${JSON.stringify(step)}, expected <skill>#<step number>, e.g. "deck-generation#7".`);
      }
      const problem = checkStep?.(step);
      if (problem !== undefined) throw new TodoToolError(`Unexpected ${where}.step "${step}": ${problem}. The task list was not changed.`);
      task.step = step;
    }
    if (deviation !== undefined && deviation !== false) {
      if (deviation !== true) throw new TodoToolError(`Unexpected ${where}.deviation ${JSON.stringify(deviation)}, expected true or false.`);
      if (status !== "blocked" || typeof note !== "string" || note.trim() === "") {
        throw new TodoToolError(`Unexpected ${where} with deviation true, expected status "blocked" and a note giving the cause of the unrecoverable error.`);
      }
      task.deviation = true;
    }
    return task;
  });
  const inProgress = tasks.filter((task) => task.status === "in_progress");
  if (inProgress.length > 1) {
    throw new TodoToolError(
      `Unexpected ${inProgress.length} tasks in_progress (${inProgress.map((task) => `"${task.id}"`).join(", ")}), expected exactly one. The task list was not changed.`,
    );
  }
  const pending = tasks.filter((task) => task.status === "pending").length;
  // A list that waits (on the user, or on an error it cannot get past) has a blocked task and none in progress.
  const waiting = tasks.some((task) => task.status === "blocked");
  if (inProgress.length === 0 && pending > 0 && !waiting) {
    throw new TodoToolError(
      `Unexpected no task in_progress while ${pending} task${pending === 1 ? " is" : "s are"} pending, expected exactly one in_progress (the task you work on now), or a blocked task with a note while the list waits on the user. The task list was not changed.`,
    );
  }
  return tasks;
}

/** The list as the model reads it back (tool result and anchor). */
export function renderTaskList(snapshot: TaskSnapshot): string {
  if (snapshot.items.length === 0) return `Task list (revision ${snapshot.revision}): empty.`;
  const lines = snapshot.items.map((task) => {
    const tags = [...(task.step === undefined ? [] : [task.step]), ...(task.deviation === true ? ["deviation"] : [])];
    return `- [${task.status}] ${task.id}${tags.length === 0 ? "" : ` [${tags.join(", ")}]`}: ${task.title}${task.note === undefined ? "" : ` (${task.note})`}`;
  });
  return `Task list (revision ${snapshot.revision}):\n${lines.join("\n")}`;
}
