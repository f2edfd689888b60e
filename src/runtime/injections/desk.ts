/**
 * The controller's injection desk: routes events into the session's durable
 * state and delivers them through the Pi transport the adapter installs.
 *
 * Pending events live in the controller's `pendingInjections` (the durable
 * copy that survives compaction and restart); the desk's router holds the
 * same unsent events for coalescing and ordering and is reconciled with that
 * list before every step, because the controller's own paths (the next
 * prompt, the compaction anchor) also take from it.
 *
 * Delivery while a run is active happens at batch end (the adapter calls
 * `atBatchEnd` on Pi's turn_end, after the whole tool batch): events queued
 * during the batch can still coalesce, and an event that merely repeats a
 * result of that batch is dropped, before steering enters ahead of the next
 * model call.
 */
import type { InjectionKindArtifact } from "../../protocol/manifest.js";
import type { InjectionTransport } from "../controller.js";
import type { GammaCustomMessage } from "../messages.js";
import type { ExecutionState, JsonValue, PendingInjection } from "../state.js";
import type { DeliveryMoment, PolicyContext } from "./policy.js";
import { type Delivery, InjectionRouter, type RouteResult } from "./router.js";
import type { RuntimeInjection } from "./types.js";

/** What the desk needs from the controller (structural, so the two modules stay loosely coupled). */
export interface InjectionHost {
  readonly state: Readonly<ExecutionState>;
  readonly artifacts: { readonly injectionKinds: readonly InjectionKindArtifact[] };
  readonly transport: InjectionTransport | undefined;
  addPendingInjection(injection: PendingInjection): void;
  removePendingInjections(ids: readonly string[]): void;
  /** These injections are no longer in any Pi queue: they are unsent again. */
  releaseQueuedInjections(ids: readonly string[]): void;
  /** True once the model yielded in this run: nothing more is delivered into it. */
  shouldStopAfterTurn(): boolean;
  /** Persists the desk's processed-id log with the rest of the state. */
  saveInjectionLog(log: JsonValue): void;
}

export interface RouteUpdateResult extends Omit<RouteResult, "outcome"> {
  /** The queue's outcome, or "suppressed" when a tool result in context already reports the change. */
  outcome: RouteResult["outcome"] | "suppressed";
  /** Set when the event woke an idle session: the turn it started. */
  turn?: Promise<void>;
}

export class InjectionDesk {
  /** Tool call ids whose results are in the active context; the adapter supplies it. */
  contextProbe: () => ReadonlySet<string> = () => new Set();
  private readonly router: InjectionRouter;

  constructor(private readonly host: InjectionHost) {
    const log = host.state.injectionLog;
    const seenIds = isRecord(log) && Array.isArray(log["seenIds"]) ? log["seenIds"].filter((id): id is string => typeof id === "string") : [];
    this.router = new InjectionRouter({
      kinds: host.artifacts.injectionKinds,
      state: { pending: this.unsent().flatMap((entry) => (isEnvelope(entry.data) ? [entry.data] : [])), seenIds },
    });
  }

  /** Validates, queues and, when the policy says so, delivers one event. Throws InjectionRejectedError. */
  route(raw: unknown): RouteUpdateResult {
    this.reconcile();
    const result: RouteUpdateResult = this.router.route(raw);
    if (result.outcome === "duplicate") return result;
    if (result.outcome === "superseded") {
      this.saveLog();
      return result;
    }
    // An event that only repeats a tool result already in context is dropped on arrival too.
    const toolCallId = result.injection.origin?.toolCallId;
    if (toolCallId !== undefined && this.contextProbe().has(toolCallId)) {
      this.router.forget([result.injection.id]);
      result.outcome = "suppressed";
    }
    this.sync();
    const transport = this.host.transport;
    if (transport !== undefined && !transport.isRunning() && this.router.shouldWake(this.policyContext())) {
      result.turn = this.wake(transport);
      this.lastWake = result.turn;
    }
    return result;
  }

  /** Pi finished a tool batch (or an assistant message): hand due events to its queues. */
  atBatchEnd(): Delivery[] {
    const transport = this.host.transport;
    if (transport === undefined || this.host.shouldStopAfterTurn()) return [];
    const deliveries = this.take("batch_end");
    for (const delivery of deliveries) {
      const via = delivery.path === "follow_up" ? "follow_up" : "steer";
      this.host.addPendingInjection(toPending(delivery.injection, delivery.message, via));
      if (via === "steer") transport.steer(delivery.message);
      else transport.followUp(delivery.message);
    }
    return deliveries;
  }

  /**
   * The run is ending. An event that needs a decision may have arrived after
   * the last batch; once Pi is idle (the agent_end listeners have settled),
   * the idle rule decides whether it starts a turn.
   */
  afterRun(): void {
    this.requeueLost();
    setImmediate(() => {
      const transport = this.host.transport;
      if (transport === undefined || transport.isRunning()) return;
      this.reconcile();
      if (this.router.shouldWake(this.policyContext())) this.lastWake = this.wake(transport);
    });
  }

  /**
   * Events handed to Pi's steering or follow-up queue that are no longer there
   * at the end of the run never reached the model (the host cleared the
   * queues, e.g. AgentSession.clearQueue): they become unsent again, so the
   * next turn delivers them.
   */
  private requeueLost(): void {
    const stillQueued = this.host.transport?.queuedInjectionIds?.();
    if (stillQueued === undefined) return;
    const lost = this.host.state.pendingInjections.filter(
      (entry) => (entry.queuedAs === "steer" || entry.queuedAs === "follow_up") && !stillQueued.has(entry.id),
    );
    if (lost.length === 0) return;
    this.reconcile();
    this.host.releaseQueuedInjections(lost.map((entry) => entry.id));
    for (const entry of lost) if (isEnvelope(entry.data)) this.router.requeue(entry.data);
    this.sync();
  }

  /** The turn the most recent wake started (hosts and tests can await it). */
  lastWake: Promise<void> | undefined;

  /** Events waiting for a later moment, in delivery order. */
  pending(): RuntimeInjection[] {
    this.reconcile();
    return this.router.pending();
  }

  private wake(transport: InjectionTransport): Promise<void> {
    const messages = this.take("triggered_turn").map((delivery) => delivery.message);
    if (messages.length === 0) return Promise.resolve();
    return transport.startTurn(messages);
  }

  private take(moment: DeliveryMoment): Delivery[] {
    this.reconcile();
    const batch = this.router.take(moment, { ...this.policyContext(), toolCallIdsInContext: this.contextProbe() });
    this.sync();
    return batch.deliveries;
  }

  private policyContext(): PolicyContext {
    const state = this.host.state;
    return {
      currentArtifacts: state.currentArtifacts.map((artifact) => ({
        ref: artifact.ref,
        ...(artifact.path === undefined ? {} : { path: artifact.path }),
      })),
      hasActiveTask: state.tasks.items.some((task) => task.status === "in_progress" || task.status === "pending" || task.status === "blocked"),
    };
  }

  private unsent(): readonly PendingInjection[] {
    return this.host.state.pendingInjections.filter((entry) => entry.queuedAs === undefined);
  }

  /** The controller delivered some unsent events itself (next prompt, anchor): forget them here. */
  private reconcile(): void {
    const stored = new Set(this.unsent().map((entry) => entry.id));
    const gone = this.router.pending().filter((injection) => !stored.has(injection.id)).map((injection) => injection.id);
    if (gone.length > 0) this.router.forget(gone);
  }

  /** Writes the router's unsent events and processed ids back into the durable state. */
  private sync(): void {
    const wanted = new Map(this.router.pending().map((injection) => [injection.id, injection]));
    // Only entries the desk wrote (they carry the envelope); others belong to whoever added them.
    const stale = this.unsent().filter((entry) => isEnvelope(entry.data) && !wanted.has(entry.id)).map((entry) => entry.id);
    if (stale.length > 0) this.host.removePendingInjections(stale);
    const stored = new Set(this.host.state.pendingInjections.map((entry) => entry.id));
    for (const injection of wanted.values()) {
      if (!stored.has(injection.id)) this.host.addPendingInjection(toPending(injection, this.router.messageFor(injection)));
    }
    this.saveLog();
  }

  private saveLog(): void {
    this.host.saveInjectionLog({ seenIds: this.router.snapshot().seenIds });
  }
}

function toPending(injection: RuntimeInjection, message: GammaCustomMessage, queuedAs?: "steer" | "follow_up"): PendingInjection {
  const pending: PendingInjection = {
    id: injection.id,
    kind: injection.kind,
    occurredAt: injection.occurredAt,
    delivery: injection.delivery,
    message,
    data: injection as unknown as JsonValue,
  };
  if (queuedAs !== undefined) pending.queuedAs = queuedAs;
  return pending;
}

function isEnvelope(value: unknown): value is RuntimeInjection {
  return isRecord(value) && typeof value["id"] === "string" && typeof value["kind"] === "string" && typeof value["occurredAt"] === "string";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
