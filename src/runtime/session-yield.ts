/**
 * The yield contract of one session: `message_user` (a progress message, or
 * the turn handed to the user with the completion audit at that moment), the
 * tool batches of the current run, and Pi's `terminate` for each finished
 * call. Pi-free: the adapter asks `terminateForBatch` and `shouldStop`.
 */
import type { AuditRecorder } from "./audit/recorder.js";
import type { SessionChecklists } from "./checklist/session-checklists.js";
import type { ToolOutcome } from "./tools.js";
import { batchRequestsYield, parseMessageUser, SHARED_BATCH_NOTE, type ProtocolEvent, type RunTracker, type ToolCallSummary, type YieldRecord } from "./yield.js";

export interface YieldHost {
  readonly run: RunTracker;
  readonly recorder: AuditRecorder;
  readonly checklists: SessionChecklists;
  emit(event: ProtocolEvent): void;
}

export class SessionYield {
  /** The message_user call whose yield the invocation enforcement refused: its batch must not terminate. */
  private refusedCall: string | undefined;

  constructor(private readonly host: YieldHost) {}

  /** `message_user`: a progress message goes on; `blockOnUser: true` yields, audited while a workflow is active. */
  messageUser(params: Record<string, unknown>, toolCallId: string): ToolOutcome {
    const { run, recorder, checklists } = this.host;
    const emit = (event: ProtocolEvent): void => this.host.emit(event);
    const parsed = parseMessageUser(params);
    if (!parsed.blockOnUser) {
      emit({ type: "progress", message: parsed.message, toolCallId });
      return {
        content: [{ type: "text", text: "Progress message shown to the user. Continue with the task." }],
        details: { blockOnUser: false, message: parsed.message },
      };
    }
    const audit = checklists.auditYield(toolCallId);
    const sharedBatch = run.currentBatch.length > 1;
    const record: YieldRecord = { message: parsed.message, toolCallId, sharedBatch };
    run.recordYield(record);
    recorder.record({ type: "yield", message: parsed.message, toolCallId });
    if (audit !== undefined) {
      recorder.logAudit(audit, "reported");
      emit({ type: "audit", report: audit, action: "reported", toolCallId });
    }
    const deviations = checklists.deviations();
    emit({
      type: "yield",
      message: parsed.message,
      toolCallId,
      sharedBatch,
      ...(parsed.reason === undefined ? {} : { reason: parsed.reason }),
      ...(audit === undefined ? {} : { audit }),
      ...(deviations.length === 0 ? {} : { deviations }),
    });
    const text = "Message shown to the user. The turn now passes to the user; wait for their reply.";
    return {
      content: [{ type: "text", text: sharedBatch ? `${text}\n\n${SHARED_BATCH_NOTE}` : text }],
      details: { blockOnUser: true, message: parsed.message, sharedBatch },
      terminate: true,
    };
  }

  /** A yield the invocation enforcement refused did not happen: the run goes on so the model can load the skill. */
  refused(toolCallId: string): void {
    this.refusedCall = toolCallId;
  }

  /** Decides Pi's `terminate` for one finished call: a batch that yields terminates as a whole. */
  terminateForBatch(calls: readonly ToolCallSummary[]): boolean {
    const refused = [this.host.checklists.blockedCall, this.refusedCall];
    if (calls.some((call) => refused.includes(call.id))) return false;
    return batchRequestsYield(calls);
  }

  /** The model's tool calls of one assistant message, before they run. */
  noteToolBatch(calls: readonly ToolCallSummary[]): void {
    this.host.run.noteBatch(calls);
    for (const call of calls) this.host.recorder.record({ type: "tool_call", id: call.id, name: call.name, arguments: call.arguments });
  }

  /** Whether the loop must stop before another model call (a yield happened in this run). */
  shouldStop(): boolean {
    return this.host.run.yielded !== undefined;
  }
}
