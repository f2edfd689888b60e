/**
 * The facts a completion audit needs, as a sequence of transcript events.
 * The live runtime records them as the session runs (and writes them to its
 * session log); the offline readers rebuild the same events from a session
 * log or a Pi session file. Positions are 1-based: the event's index in a
 * live session, the JSONL line in a file.
 */
import type { Task } from "../execution-state.js";

export type TranscriptEvent =
  /** The session's variant and the skills it preloads (a session log's first line). */
  | { type: "session"; variant: string; preloadedSkills: string[]; cacheKey?: string; /** The log did not record them: the build's variant says. */ preloadedUnrecorded?: true }
  /** Skills became active (by the `skill` tool or a requirement). */
  | { type: "skills_loaded"; names: string[] }
  /**
   * The session was reopened on another build (a redeploy, a rollback), which
   * changed its state: from here it runs on the build with `cacheKey` and on
   * `variant` (another one when the build dropped the session's), and its
   * active skills are exactly `activeSkills` (the build dropped some, preloads
   * or requires others). A changed task list follows as `tasks`.
   */
  | { type: "build_changed"; cacheKey: string; variant: string; activeSkills: string[] }
  /** A tool call the model made (every call, whatever its result). */
  | { type: "tool_call"; id: string; name: string; arguments: Record<string, unknown> }
  /** An accepted task list. */
  | { type: "tasks"; revision: number; tasks: Task[] }
  /** Knowledge hints reached the model; ids of the knowledge they point at. */
  | { type: "knowledge_hints"; ids: string[] }
  /** The model yielded (`message_user` with `blockOnUser: true`). */
  | { type: "yield"; message: string; toolCallId: string }
  /** The host required skills for this turn or the session (invocation enforcement). */
  | { type: "skills_required"; names: string[]; scope: "turn" | "session" }
  /** A task action refused because required skills were not active: it did not run. */
  | { type: "tool_refused"; id: string; name: string; missing: string[] }
  /** A task action that ran without required skills, after the refusals' bound. */
  | { type: "requirement_unmet"; id: string; name: string; missing: string[] };

export type PositionedEvent = TranscriptEvent & { position: number };

/**
 * Tools that act on the task, as opposed to looking around: the first of these
 * must come after the workflow skill is loaded. `read`, `skill` and
 * `message_user` are not task actions.
 */
export const TASK_ACTION_TOOLS: ReadonlySet<string> = new Set(["todo", "bash", "write", "edit", "subagent", "show_gamma", "show_file"]);

/**
 * Whether Pi ran (or tried to run) the tool calls of an assistant message that
 * stopped for this reason. It runs none of a message that ended in an error
 * or an abort (its retry does not see it), and fails every call of one cut at
 * the token limit (its arguments may be cut too) without running it: such
 * calls are no action of the model's, first task action included.
 */
export function toolCallsRan(stopReason: unknown): boolean {
  return stopReason !== "error" && stopReason !== "aborted" && stopReason !== "length";
}

/** Tool names that fetch knowledge a hint points at (the argument naming it is `knowledgeId` or `id`). */
export const KNOWLEDGE_TOOLS: ReadonlySet<string> = new Set(["read_workspace_rule", "knowledge", "read_knowledge"]);

/** Knowledge ids in a `<knowledge_hints>` block: `id="…"` attributes of its `<knowledge …>` entries. */
export function knowledgeHintIds(text: string): string[] | undefined {
  const block = /<knowledge_hints\b[\s\S]*?(?:<\/knowledge_hints>|$)/i.exec(text);
  if (!block) return undefined;
  // A hint marked removed points at nothing to fetch.
  const entries = [...block[0].matchAll(/<knowledge\b[^>]*>/gi)].map((match) => match[0]).filter((entry) => !/\bstatus="removed"/i.test(entry));
  return entries.map((entry) => /\bid="([^"]*)"/i.exec(entry)?.[1] ?? "").filter((id) => id !== "");
}

/** The knowledge id a knowledge tool call fetches, if any. */
export function fetchedKnowledgeId(call: { name: string; arguments: Record<string, unknown> }): string | undefined {
  if (!KNOWLEDGE_TOOLS.has(call.name)) return undefined;
  const id = call.arguments["knowledgeId"] ?? call.arguments["id"];
  return typeof id === "string" ? id : undefined;
}
