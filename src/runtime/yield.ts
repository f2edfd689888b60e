/**
 * `message_user` and the yield contract. `blockOnUser: true` must hand the
 * turn to the user even when the model put the call beside other tools: Pi
 * ends a run only when every result of the batch terminates, so the runtime
 * marks the whole batch and also stops the loop before another model call.
 */

import type { AuditReport } from "./audit/audit.js";
import type { ChecklistProgress, Deviation } from "./checklist/progress.js";
import type { RequiredSkillsEvent } from "./invocation/required-skills.js";
import type { NamespaceLoadSource } from "./execution-state.js";
import type { StateWriteFailedError } from "./state/errors.js";
import { messageOf } from "../protocol/error-message.js";

export interface ToolCallSummary {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type ProtocolEvent =
  | { type: "progress"; message: string; toolCallId: string }
  | {
      type: "yield";
      message: string;
      /** Optional reason the model gave (the schema may not offer one). */
      reason?: string;
      toolCallId: string;
      /** True when message_user shared its batch with other tool calls. */
      sharedBatch: boolean;
      /** The completion audit of this yield, when a workflow was active and the audit is on. */
      audit?: AuditReport;
      /** Steps that failed with an unrecoverable error, for the interface to show with the final message. */
      deviations?: Deviation[];
    }
  | { type: "skills_activated"; names: string[]; toolCallId: string }
  | { type: "tasks_updated"; revision: number; toolCallId: string }
  /** One active workflow skill's steps with their status, after the tasks or the active skills changed. */
  | ({ type: "checklist_progress"; taskRevision: number; toolCallId: string } & ChecklistProgress)
  /** A completion audit at a yield: `reported` (the yield went ahead) or `blocked` (the yield was refused). */
  | { type: "audit"; report: AuditReport; action: "reported" | "blocked"; toolCallId: string }
  /** Knowledge hints went out: with a user turn, or mid-run when skills, artifacts or notes changed. */
  | { type: "knowledge_hinted"; trigger: "turn" | "context"; notes: Array<{ id: string; status: "new" | "changed" | "removed" }> }
  /** read_workspace_rule loaded a note: its body inline, or its path for a body over the inline limit. */
  | { type: "knowledge_loaded"; id: string; revision: string; via: "inline" | "path"; toolCallId: string }
  /** Invocation enforcement: a task action refused while a required skill is missing, or let through after the bound (`violated`). */
  | RequiredSkillsEvent
  /** Tool namespaces joined the tool list: when a workflow that needs them became active, by exact name, or by the host. */
  | { type: "namespaces_loaded"; names: string[]; loadedBy: NamespaceLoadSource; toolCallId: string }
  /** A host registered a connector (src/runtime/connectors.ts); `loaded` when its tools joined the tool list at once. */
  | { type: "connector_registered"; connector: string; loaded: boolean }
  /** A connector left the session: removed by the host, or not restorable after a restart. */
  | { type: "connector_removed"; connector: string }
  /**
   * A stored session was reopened on another build (dist/) than the one that
   * last opened it: its cache key then and now, and what the new build lacks
   * that left the state (active skills dropped, among them any that conflict
   * with the variant's preloads and any active only as a requirement the
   * build no longer has; task steps cleared; the model is told through a
   * workspace_update injection), and the requirements it added.
   */
  | {
      type: "build_changed";
      previousCacheKey?: string;
      cacheKey: string;
      droppedSkills: string[];
      clearedSteps: Array<{ taskId: string; step: string }>;
      /** Active skills this build holds with another body or as another type: still active, with the build's type, the model told to follow the current text. Absent when none. */
      changedSkills?: string[];
      /** Skills active now because an active skill requires them in this build, with the skill that requires each; their bodies reach the model in a fresh anchor. Absent when none. */
      requiredNow?: Array<{ skill: string; by: string }>;
      /** Requirements this build adds that stay unmet, since the skill conflicts with an active one (which stays). Absent when none. */
      blockedRequirements?: Array<{ skill: string; by: string; conflictsWith: string }>;
      /** The variant the session ran on, which this build does not define, and the one it goes on with. */
      variant?: { from: string; to: string };
    }
  /**
   * The store refused a write and the session stopped: no model call goes out
   * after it, prompt() rejects with this error. Dispose the session and reopen
   * it from the store.
   */
  | { type: "state_write_failed"; error: StateWriteFailedError }
  /**
   * A failure no caller was waiting for: a turn an injection started on an
   * idle session (`wake`), a message handed to an AgentSession's queue
   * (`steer`, `follow_up`), the bookkeeping of what a model call carried
   * (`context`; the call still went out whole), the store's `close`, or a
   * change refused because the session was disposed (`disposed`: a run still
   * going, or a host's call, after dispose; nothing was written), or the
   * messages of an AgentSession's next prompt that could not be made
   * (`input`: the prompt was not sent, and its prompt() rejects with TurnNotSentError),
   * or the host's own `onProtocolEvent` threw on an event (`observer`: the
   * step the event reports is done and kept; the session went on), or a
   * reopened state held a current artifact the anchor cannot render
   * (`restore`: the entry left the list, the error names its field), or a
   * host executor returned a result that is not `{ content: [...] }` or threw
   * something other than an Error or a string (`executor`: an
   * ExecutorResultError naming the tool; the call failed with it as its
   * error result and the run went on), or the knowledge hints a tool batch
   * called for could not be made (`hints`: a HintsNotMadeError; the run
   * ended before its next model call, and its prompt() rejects with it).
   */
  | { type: "runtime_error"; during: RuntimeErrorPhase; error: unknown };

/** Where a `runtime_error` happened. */
export type RuntimeErrorPhase = "wake" | "steer" | "follow_up" | "context" | "close" | "disposed" | "input" | "observer" | "restore" | "executor" | "hints";

export interface YieldRecord {
  message: string;
  toolCallId: string;
  sharedBatch: boolean;
}

export const SHARED_BATCH_NOTE =
  "Note: message_user with blockOnUser: true was called together with other tools. The run was still ended so the user can reply. Call message_user alone when blockOnUser is true.";

/**
 * An AgentSession's prompt that was not sent: the messages it must carry
 * after the user's (the turn's knowledge hints, the pending next-turn events)
 * could not be made, and a prompt without them would quietly say less. No
 * model call went out and the pending events still wait; `cause` is the
 * failure (a knowledge selector's, say). Send the prompt again.
 */
export class TurnNotSentError extends Error {
  override readonly name = "TurnNotSentError";
  constructor(override readonly cause: unknown) {
    super(`Unexpected failure while making the prompt's knowledge hints and pending events (${messageOf(cause)}), expected them made: the prompt was not sent; send it again`, { cause });
  }
}

/**
 * A run the runtime ended after a tool batch, before its next model call:
 * the batch changed what the knowledge hints are chosen from (a skill became
 * active, the artifacts or a note changed), the hints could not be made, and
 * a model call without them would quietly say less. The batch's results are
 * in the transcript; `cause` is the failure (the host's knowledge selector
 * threw, say, or answered out of shape). What was to be hinted waits: the
 * next prompt's hints are chosen again. Send a prompt to go on.
 */
export class HintsNotMadeError extends Error {
  override readonly name = "HintsNotMadeError";
  constructor(override readonly cause: unknown) {
    super(`Unexpected failure while making the knowledge hints after a tool batch (${messageOf(cause)}), expected them made: the run ended before its next model call; send a prompt to go on`, { cause });
  }
}

/**
 * A turn the runtime started on an idle session for an event (a decision
 * about an active task) whose model call failed: Pi resolves such a run and
 * records the failure in its last assistant message, so without this the
 * host would read it as answered. The event did reach the conversation (it
 * is in the transcript, and the next prompt carries it to the model); what
 * did not happen is the model's answer. `RouteUpdateResult.turn` rejects with
 * it, and it is reported as a `runtime_error` during `"wake"`.
 */
export class WakeTurnFailedError extends Error {
  override readonly name = "WakeTurnFailedError";
  constructor(readonly modelError: string | undefined) {
    super(`Unexpected failure of the model call in a turn started for an event (${modelError ?? "no message"}), expected the model's answer: the event is in the conversation and reaches the model with the next prompt`);
  }
}

export class MessageUserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MessageUserError";
  }
}

export interface MessageUserParams {
  message: string;
  blockOnUser: boolean;
  reason?: string;
}

export function parseMessageUser(params: Record<string, unknown>): MessageUserParams {
  const { message, blockOnUser, reason } = params;
  if (typeof message !== "string" || message.trim() === "") {
    throw new MessageUserError("Unexpected empty `message`, expected the text to show the user.");
  }
  if (typeof blockOnUser !== "boolean") {
    throw new MessageUserError("Unexpected `blockOnUser` that is not a boolean, expected true or false.");
  }
  return typeof reason === "string" ? { message, blockOnUser, reason } : { message, blockOnUser };
}

/** Whether a batch asks to yield, judged from the raw calls before any of them runs. */
export function batchRequestsYield(calls: readonly ToolCallSummary[]): boolean {
  return calls.some(
    (call) =>
      call.name === "message_user" &&
      (call.arguments["blockOnUser"] === true || call.arguments["blockOnUser"] === "true") &&
      typeof call.arguments["message"] === "string" &&
      call.arguments["message"].trim() !== "",
  );
}

/** Tracks Pi's runs (the current tool batch, whether the model yielded) and the turn they belong to. */
export class RunTracker {
  private batch: readonly ToolCallSummary[] = [];
  private yieldRecord: YieldRecord | undefined;
  /** Yields the completion audit refused in this turn (bounded by the audit policy). */
  auditBlocks = 0;
  /** Why the runtime ended this run before its next model call, if it did: its prompt() rejects with it. */
  private stopReason: HintsNotMadeError | undefined;
  /** Whether a turn has begun and not ended: the runs of one turn (Pi's retries after a provider error) share it. */
  private turnOpen = false;

  /**
   * `onTurnBegin` and `onTurnEnd` run as each turn starts and ends (the invocation enforcement's bound and
   * per-turn scope). A turn is what the host asked for: one run on the Agent path; on a session, every run
   * until the session settles, so a retry after a provider error keeps the turn's requirements and bounds.
   */
  constructor(private readonly hooks: { onTurnBegin?: () => void; onTurnEnd?: () => void } = {}) {}

  begin(): void {
    this.batch = [];
    this.yieldRecord = undefined;
    this.stopReason = undefined;
    if (this.turnOpen) return;
    this.turnOpen = true;
    this.auditBlocks = 0;
    this.hooks.onTurnBegin?.();
  }

  /** The run ends before its next model call, for this reason. */
  stop(reason: HintsNotMadeError): void {
    this.stopReason ??= reason;
  }

  get stoppedBy(): HintsNotMadeError | undefined {
    return this.stopReason;
  }

  end(): void {
    this.batch = [];
  }

  /** The turn ends: nothing retries its runs. */
  endTurn(): void {
    if (!this.turnOpen) return;
    this.turnOpen = false;
    this.hooks.onTurnEnd?.();
  }

  noteBatch(calls: readonly ToolCallSummary[]): void {
    this.batch = calls;
  }

  get currentBatch(): readonly ToolCallSummary[] {
    return this.batch;
  }

  recordYield(record: YieldRecord): void {
    this.yieldRecord = record;
  }

  /** The yield of the current (or last) run, if the model yielded. */
  get yielded(): YieldRecord | undefined {
    return this.yieldRecord;
  }
}
