/**
 * The injection dispatcher: checks each platform event at the boundary, puts
 * it into the session's pending injections (the queue the controller owns,
 * the only copy) and hands due events to the Pi transport the adapter
 * installs. It keeps no pending state of its own.
 *
 * Delivery while a run is active happens at batch end (the adapter calls
 * `atBatchEnd` on Pi's turn_end, after the whole tool batch): events queued
 * during the batch can still coalesce, and an event that merely repeats a
 * result of that batch is dropped, before steering enters ahead of the next
 * model call.
 *
 * An event leaves the pending set only when a model call used a context that
 * carried it (`confirmModelContext`, called by the adapter on every model
 * call): handing it to Pi, rendering it into an anchor or seeing it enter
 * the transcript only marks where it waits.
 */
import type { InjectionKindArtifact } from "../../protocol/dist-manifest.js";
import { ANCHOR_CUSTOM_TYPE, isGammaCustomMessage, type GammaCustomMessage } from "../messages.js";
import type { PendingInjection, PiQueue } from "../execution-state.js";
import { acceptInjection, InjectionRejectedError } from "./envelope.js";
import { effectiveDelivery, isDueAt, shouldWake, type DeliveryMoment, type PolicyContext } from "./policy.js";
import { MAX_PENDING_BYTES, type AddOutcome, type InjectionQueue } from "./queue.js";
import type { InjectionDelivery, RuntimeInjection } from "./types.js";

/** How Pi delivers an injection right now; the adapter provides one per Agent or AgentSession. */
export interface InjectionTransport {
  isRunning(): boolean;
  /** Hands the message to Pi's steering queue; a promise that rejects means it never got there. */
  steer(message: GammaCustomMessage): void | Promise<void>;
  followUp(message: GammaCustomMessage): void | Promise<void>;
  /** Starts a turn on an idle session with these messages. */
  startTurn(messages: GammaCustomMessage[]): Promise<void>;
  /** Whether Pi's steering or follow-up queue still holds messages; undefined when unknown. */
  hasQueuedMessages?(): boolean | undefined;
  /**
   * Takes the injections `take` picks (by id) out of Pi's steering and
   * follow-up queues, leaving everything else queued as it was, and returns
   * their ids.
   */
  withdrawQueued?(take: (injectionId: string) => boolean): string[];
}

/** What the dispatcher needs from the controller (structural, so the two modules stay loosely coupled). */
export interface InjectionHost {
  /** The session's pending injections (durable; the controller owns them). */
  readonly pending: InjectionQueue;
  readonly artifacts: { readonly injectionKinds: readonly InjectionKindArtifact[] };
  readonly transport: InjectionTransport | undefined;
  /** The delivery policy's inputs: the current artifacts and whether a task is unfinished. */
  policyContext(): PolicyContext;
  /** True once the model yielded in this run: nothing more is delivered into it. */
  shouldStopAfterTurn(): boolean;
  /** A delivery failed where no caller waits for it (a woken turn, a message handed to a queue). */
  reportError(during: "wake" | "steer" | "follow_up", error: unknown): void;
}

export interface RouteUpdateResult {
  injection: RuntimeInjection;
  /** The queue's outcome, or "suppressed" when a tool result in context already reports the change. */
  outcome: AddOutcome | "suppressed";
  /** Set when the event woke an idle session: the turn it started. */
  turn?: Promise<void>;
}

export interface Delivery {
  injection: RuntimeInjection;
  /** The Pi path taken: "steer" or "follow_up" at a batch end, "next_turn" for a triggered turn. */
  path: InjectionDelivery;
  message: GammaCustomMessage;
}

export class InjectionDispatcher {
  /** Tool call ids whose results are in the active context; the adapter supplies it. */
  contextProbe: () => ReadonlySet<string> = () => new Set();
  /** The turn the most recent wake started (hosts and tests can await it). */
  lastWake: Promise<void> | undefined;

  constructor(private readonly host: InjectionHost) {}

  /** Validates, queues and, when the policy says so, delivers one event. Throws InjectionRejectedError. */
  route(raw: unknown): RouteUpdateResult {
    const injection = acceptInjection(raw, { kinds: this.host.artifacts.injectionKinds });
    const queue = this.host.pending;
    // An event that only repeats a tool result already in context is dropped on arrival.
    const toolCallId = injection.origin?.toolCallId;
    if (toolCallId !== undefined && !queue.isProcessed(injection.id) && this.contextProbe().has(toolCallId)) {
      queue.markSeen(injection.id);
      return { injection, outcome: "suppressed" };
    }
    // A session's backlog is bounded: the event is refused as the host can tell a producer, never left to break the state.
    const estimate = 2 * JSON.stringify(injection).length;
    if (!queue.isProcessed(injection.id) && queue.bytes + estimate > MAX_PENDING_BYTES) {
      throw new InjectionRejectedError(
        "",
        `Unexpected event while the session's ${queue.size} pending events hold ${queue.bytes} bytes, expected at most ${MAX_PENDING_BYTES} bytes pending: the events wait for a model call to deliver them; keep large content in the artifact and point at it (subject.ref, subject.path)`,
      );
    }
    const result: RouteUpdateResult = { injection, outcome: queue.add(injection) };
    if (result.outcome !== "queued" && result.outcome !== "coalesced") return result;
    // Only the new event can change the idle rule's answer (the run's end re-checks everything).
    const transport = this.host.transport;
    if (injection.requiresDecision && transport !== undefined && !transport.isRunning() && shouldWake([injection], this.host.policyContext())) {
      result.turn = this.wake(transport);
    }
    return result;
  }

  /** Pi finished a tool batch (or an assistant message): hand due events to its queues. */
  atBatchEnd(): Delivery[] {
    const transport = this.host.transport;
    if (transport === undefined || this.host.shouldStopAfterTurn()) return [];
    const context = this.host.policyContext();
    const deliveries = this.take("batch_end", context).map((delivery) => ({
      ...delivery,
      path: effectiveDelivery(delivery.injection, context) === "follow_up" ? ("follow_up" as const) : ("steer" as const),
    }));
    for (const delivery of deliveries) {
      const id = delivery.injection.id;
      this.host.pending.markQueued([id], delivery.path);
      const handed = delivery.path === "steer" ? transport.steer(delivery.message) : transport.followUp(delivery.message);
      if (handed instanceof Promise) {
        handed.catch((error: unknown) => {
          // It never reached Pi's queue: it waits again, and the host learns why.
          if (this.host.pending.get(id)?.queuedAs === delivery.path) this.host.pending.release([id]);
          this.host.reportError(delivery.path === "steer" ? "steer" : "follow_up", error);
        });
      }
    }
    return deliveries;
  }

  /**
   * The run is ending. Events handed to Pi's steering or follow-up queue that
   * are no longer there and never entered the context (the host cleared the
   * queues, e.g. AgentSession.clearQueue) become unsent again, and so do
   * follow-ups still in Pi's queue (the run ended before Pi took them) and,
   * with `withdrawSteering` (the run was aborted, or nothing retries it),
   * steered events still in Pi's queue. An
   * event that needs a decision may have arrived after the last batch; once
   * Pi is idle (the agent_end listeners have settled), the idle rule decides
   * whether it starts a turn.
   */
  afterRun(ended: { withdrawSteering?: boolean } = {}): void {
    // Pi polls its follow-up queue only where a run would stop: a run that ended before (an abort, a yield) leaves
    // them there, and the next prompt would reach the model without them. A run that ends its turn (aborted, or
    // failed with no retry to come) leaves its steering there too: the next prompt would carry it after the events
    // released here (out of occurredAt order) or, once the host clears Pi's queues, a turn late. (A session's
    // retry after a failed call takes it at once: only the turn's end, when the session settles, withdraws it.)
    // Taken back, they wait unsent again and go with the next user turn (or a turn the idle rule starts), once,
    // in occurredAt order.
    const withdrawn =
      this.host.transport?.withdrawQueued?.((id) => {
        const queuedAs = this.host.pending.get(id)?.queuedAs;
        return queuedAs === "follow_up" || (ended.withdrawSteering === true && queuedAs === "steer");
      }) ?? [];
    this.host.pending.release(withdrawn);
    // Pi's queues are empty at the end of a run unless a message arrived after its last poll; an event
    // still marked as waiting in a queue that Pi says is empty was cleared there.
    if (this.host.transport?.hasQueuedMessages?.() === false) {
      const lost = this.host.pending.select((entry) => entry.queuedAs === "steer" || entry.queuedAs === "follow_up");
      this.host.pending.release(lost.map((entry) => entry.id));
    }
    setImmediate(() => {
      const transport = this.host.transport;
      if (transport === undefined || transport.isRunning()) return;
      if (shouldWake(this.host.pending.pending(), this.host.policyContext())) this.wake(transport);
    });
  }

  /** Unsent events, in delivery order. */
  pending(): RuntimeInjection[] {
    return this.host.pending.pending();
  }

  /**
   * The unsent events, oldest first, marked as riding with the next user
   * prompt (AgentSession's next-turn list). They stay pending until a model
   * call uses them, so a restart before that keeps them.
   */
  queueForNextTurn(): PendingInjection[] {
    const due = this.host.pending.select((entry) => entry.queuedAs === undefined);
    this.markQueued(due.map((entry) => entry.id), "next_turn");
    return due;
  }

  /** Marks where pending events wait (a host queued them into Pi itself). */
  markQueued(ids: readonly string[], via: PiQueue): void {
    this.host.pending.markQueued(ids, via);
  }

  /** Pi put an injection's message into the agent's context; a model call has not used it yet. */
  markInContext(id: string): void {
    const entry = this.host.pending.get(id);
    if (entry !== undefined && entry.queuedAs !== "anchor") this.host.pending.markQueued([id], "context");
  }

  /**
   * A session reopened on a transcript (a restart, another server): pending
   * events whose messages it already holds are in the context, not to be sent
   * again; the next model call that carries them confirms them.
   */
  noteTranscript(messages: readonly unknown[]): void {
    for (const message of messages) {
      if (isGammaCustomMessage(message) && message.details.injectionId !== undefined) this.markInContext(message.details.injectionId);
    }
  }

  /**
   * A model call is being made on these messages (Pi's own, before
   * conversion): every injection they carry, directly or in the newest
   * anchor (the only one the model sees), leaves the pending set. Returns
   * what left it, for {@link returnUnsent} if the call is refused after all.
   */
  confirmModelContext(messages: readonly unknown[]): PendingInjection[] {
    if (this.host.pending.size === 0) return [];
    const used: string[] = [];
    let anchor: GammaCustomMessage | undefined;
    for (const message of messages) {
      if (!isGammaCustomMessage(message)) continue;
      if (message.customType === ANCHOR_CUSTOM_TYPE) anchor = message;
      else if (message.details.injectionId !== undefined) used.push(message.details.injectionId);
    }
    used.push(...(anchor?.details.injectionIds ?? []));
    const taken = used.flatMap((id) => this.host.pending.get(id) ?? []).map(({ queuedAs: _queued, ...pending }) => pending);
    this.host.pending.remove(used);
    return taken;
  }

  /** The model call that took these out of the pending set was refused before it went out: see {@link InjectionQueue.returnToContext}. */
  returnUnsent(taken: readonly PendingInjection[]): void {
    this.host.pending.returnToContext(taken);
  }

  /**
   * Starts a turn with the events due now. The returned promise (the host may
   * await it: `RouteUpdateResult.turn`, `lastWake`) rejects when the turn
   * fails; the failure is also reported, so a wake nobody awaits is never lost.
   */
  private wake(transport: InjectionTransport): Promise<void> {
    const deliveries = this.take("triggered_turn", this.host.policyContext());
    if (deliveries.length === 0) return Promise.resolve();
    const ids = deliveries.map((delivery) => delivery.injection.id);
    this.host.pending.markQueued(ids, "next_turn");
    const turn = transport.startTurn(deliveries.map((delivery) => delivery.message)).catch((error: unknown) => {
      // The turn never started: whatever did not reach the context waits again.
      this.host.pending.release(ids.filter((id) => this.host.pending.get(id)?.queuedAs === "next_turn"));
      throw error;
    });
    turn.catch((error: unknown) => this.host.reportError("wake", error));
    this.lastWake = turn;
    return turn;
  }

  private take(moment: DeliveryMoment, context: PolicyContext): Delivery[] {
    const queue = this.host.pending;
    const { deliver } = queue.take({ select: (injection) => isDueAt(moment, injection, context), toolCallIdsInContext: this.contextProbe() });
    return deliver.flatMap((injection) => {
      const entry = queue.get(injection.id);
      return entry === undefined ? [] : [{ injection, path: "next_turn" as const, message: entry.message }];
    });
  }
}
