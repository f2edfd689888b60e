/**
 * `message_user` and the yield contract. `blockOnUser: true` must hand the
 * turn to the user even when the model put the call beside other tools: Pi
 * ends a run only when every result of the batch terminates, so the runtime
 * marks the whole batch and also stops the loop before another model call.
 */

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
    }
  | { type: "skills_activated"; names: string[]; toolCallId: string }
  | { type: "tasks_updated"; revision: number; toolCallId: string };

export interface YieldRecord {
  message: string;
  toolCallId: string;
  sharedBatch: boolean;
}

export const SHARED_BATCH_NOTE =
  "Note: message_user with blockOnUser: true was called together with other tools. The run was still ended so the user can reply. Call message_user alone when blockOnUser is true.";

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

/** Tracks one Pi run: the current tool batch and whether the model yielded. */
export class RunTracker {
  private batch: readonly ToolCallSummary[] = [];
  private yieldRecord: YieldRecord | undefined;

  begin(): void {
    this.batch = [];
    this.yieldRecord = undefined;
  }

  end(): void {
    this.batch = [];
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
