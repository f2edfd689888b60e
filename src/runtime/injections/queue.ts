/**
 * The pending injections: the one owner of the session's durable pending set
 * and its idempotency window. There is no second copy: the controller's
 * state, the anchor, the next prompt and the Pi queues all read and change
 * these entries, and every durable change goes through one journal record
 * (`QueueRecord`), applied by `apply` both live and when a store replays its
 * journal after a restart.
 *
 * - Idempotent by id: an id seen before (queued, delivered or replaced) is ignored.
 * - Coalescing of unsent snapshots: a newer event with the same coalescing key
 *   replaces the older one; an older one arriving late is dropped.
 * - Events that require a decision are never coalesced.
 * - An echo of the agent's own change (origin.toolCallId) coalesces only with
 *   other echoes, never with another actor's event.
 * - Duplicate suppression: an event whose origin tool call already has its
 *   result in the active context is dropped when it is selected.
 * - Order: occurredAt as an instant, then arrival (the order `add` saw them).
 *
 * An entry handed to Pi (a steering or follow-up queue, the next prompt, the
 * anchor, the context) stays pending with `queuedAs` set until a model call
 * used a context that carried it (`remove`). `queuedAs` is not durable: Pi's
 * queues and contexts do not survive a restart, so a restored entry is unsent.
 */
import type { GammaCustomMessage } from "../messages.js";
import type { JsonValue, PendingInjection, PiQueue } from "../execution-state.js";
import { instantOf } from "./order.js";
import { createTrustedInjectionMessage } from "./transport.js";
import { INJECTION_KINDS, type RuntimeInjection } from "./types.js";
import { checkInjection } from "./envelope.js";

export interface InjectionQueueState {
  /** Pending entries in arrival order. */
  pending: PendingInjection[];
  /** Ids already processed (most recent last), so a re-sent event stays a no-op after restart. */
  seenIds: string[];
}

export type AddOutcome =
  /** Queued as a new event. */
  | "queued"
  /** Queued and replaced an older unsent snapshot of the same thing. */
  | "coalesced"
  /** Dropped: a newer snapshot of the same thing is already pending. */
  | "superseded"
  /** Dropped: this id was processed before. */
  | "duplicate";

/** One durable change to the pending set; a state journal stores it as one small record. */
export type QueueRecord =
  /** A new pending entry (its id becomes processed); `replaces` is the unsent snapshot it coalesced. */
  | { op: "pending"; add: PendingInjection; replaces?: string }
  /** An id processed without becoming pending (superseded, or suppressed on arrival). */
  | { op: "seen"; id: string }
  /** Entries that left the pending set (a model call used them, or they were suppressed or coalesced away). */
  | { op: "remove"; ids: string[] };

/** Writes a record durably, then applies it (`apply`); throwing leaves the queue unchanged. */
export type QueueJournal = (record: QueueRecord, apply: () => void) => void;

export interface InjectionQueueOptions {
  /** How many processed ids to remember for idempotency. */
  rememberIds?: number;
  /** The trusted message for an accepted event (default: each kind's own tag). */
  render?: (injection: RuntimeInjection) => GammaCustomMessage;
  /** Where durable changes go (default: applied in memory only). */
  journal?: QueueJournal;
}

export interface DrainOptions {
  /** Which unsent events to take; the rest stay queued. */
  select: (injection: RuntimeInjection) => boolean;
  /** Tool call ids whose results are in the active context. */
  toolCallIdsInContext?: ReadonlySet<string>;
}

export interface DrainResult {
  /** In delivery order: occurredAt, then arrival. */
  deliver: RuntimeInjection[];
  /** Dropped because a tool result in context already reports the change. */
  suppressed: RuntimeInjection[];
}

interface Entry {
  pending: PendingInjection;
  injection: RuntimeInjection;
  instant: number;
  arrival: number;
  key: string | undefined;
  /** The entry's share of the state: its event and its rendered message, as JSON. */
  bytes: number;
}

export const DEFAULT_REMEMBERED_IDS = 10_000;

/**
 * How much the pending events of one session may hold, as JSON (each event and its rendered message). Far
 * past what any model's context takes in at once, and far below what a store can keep in one state: unbounded,
 * a backlog of large events grew the state past what PostgreSQL stores in one value (a string of 256 MiB),
 * and the session could be neither written nor reopened.
 */
export const MAX_PENDING_BYTES = 16 * 1024 * 1024;

/** An entry's share of the state, as the stores write it (JSON). */
export function pendingBytes(pending: PendingInjection): number {
  return JSON.stringify(pending.data ?? null).length + JSON.stringify(pending.message).length;
}

export class InjectionQueue {
  /** Every pending entry, in arrival order. */
  private readonly entries = new Map<string, Entry>();
  /** Coalescing key → id of the unsent entry holding it. */
  private readonly byKey = new Map<string, string>();
  private readonly seen: IdWindow;
  private readonly render: (injection: RuntimeInjection) => GammaCustomMessage;
  private readonly journal: QueueJournal;
  private arrivals = 0;
  private heldBytes = 0;
  /** The event `place` is committing, so applying its record need not parse it again. */
  private placing: { injection: RuntimeInjection; instant: number } | undefined;

  constructor(state?: InjectionQueueState, options: InjectionQueueOptions = {}) {
    this.seen = new IdWindow(Math.max(1, options.rememberIds ?? DEFAULT_REMEMBERED_IDS));
    this.render = options.render ?? renderWithKindTags;
    this.journal = options.journal ?? ((_record, apply) => apply());
    for (const id of state?.seenIds ?? []) this.seen.add(id);
    // Trust comes from what the runtime renders: a restored entry's message is rendered again from its envelope (the same
    // bytes for an entry this runtime stored), so text written into a store never reaches the model as trusted.
    const restore = options.render === undefined ? (pending: PendingInjection) => pending : (pending: PendingInjection) => rendered(pending, this.render);
    for (const pending of state?.pending ?? []) this.insert(restore({ ...pending }));
  }

  /** Pending entries (unsent or handed to Pi). */
  get size(): number {
    return this.entries.size;
  }

  /** What the pending entries hold, as JSON (see {@link MAX_PENDING_BYTES}). */
  get bytes(): number {
    return this.heldBytes;
  }

  /** Whether this id was processed before (pending now, or in the idempotency window). */
  isProcessed(id: string): boolean {
    return this.entries.has(id) || this.seen.has(id);
  }

  get(id: string): PendingInjection | undefined {
    return this.entries.get(id)?.pending;
  }

  add(injection: RuntimeInjection): AddOutcome {
    // A pending id counts as processed even after the window has evicted it.
    if (this.seen.has(injection.id) || this.entries.has(injection.id)) return "duplicate";
    return this.place(injection);
  }

  /**
   * For a host that runs the queue on its own (without a session): puts an
   * event back that left the queue without reaching the model. Its id is
   * already processed, so `add` would call it a duplicate; coalescing still
   * applies. An entry still pending but handed to Pi becomes unsent.
   */
  requeue(injection: RuntimeInjection): AddOutcome {
    const entry = this.entries.get(injection.id);
    if (entry === undefined) return this.place(injection);
    if (entry.pending.queuedAs === undefined) return "duplicate";
    this.release([injection.id]);
    return this.entries.has(injection.id) ? "queued" : "superseded";
  }

  /** Records an id as processed without queueing it (an echo suppressed on arrival). */
  markSeen(id: string): void {
    if (this.seen.has(id) || this.entries.has(id)) return;
    this.commit({ op: "seen", id });
  }

  /** Unsent events in delivery order, without removing them. */
  pending(): RuntimeInjection[] {
    return this.ordered((entry) => entry.pending.queuedAs === undefined).map((entry) => entry.injection);
  }

  /** Pending entries that match, in delivery order (occurredAt, then arrival). */
  select(match: (entry: PendingInjection, injection: RuntimeInjection) => boolean): PendingInjection[] {
    return this.ordered((entry) => match(entry.pending, entry.injection)).map((entry) => entry.pending);
  }

  /** Every pending entry in arrival order (what a snapshot stores). */
  all(): PendingInjection[] {
    return [...this.entries.values()].map((entry) => entry.pending);
  }

  /**
   * The unsent events `select` picks, split into those to deliver and echoes
   * already reported by a tool result in context (removed here). The
   * delivered ones stay pending until the caller hands them on.
   */
  take(options: DrainOptions): DrainResult {
    const deliver: RuntimeInjection[] = [];
    const suppressed: RuntimeInjection[] = [];
    for (const entry of this.ordered((candidate) => candidate.pending.queuedAs === undefined && options.select(candidate.injection))) {
      const toolCallId = entry.injection.origin?.toolCallId;
      if (toolCallId !== undefined && options.toolCallIdsInContext?.has(toolCallId)) suppressed.push(entry.injection);
      else deliver.push(entry.injection);
    }
    this.remove(suppressed.map((injection) => injection.id));
    return { deliver, suppressed };
  }

  /**
   * For a host that runs the queue on its own and delivers events itself:
   * `take`, then the delivered events leave the queue at once.
   */
  drain(options: DrainOptions): DrainResult {
    const result = this.take(options);
    this.remove(result.deliver.map((injection) => injection.id));
    return result;
  }

  /** Removes pending entries: a model call used them, or another path delivered them. Ids stay processed. */
  remove(ids: Iterable<string>): void {
    const present = [...ids].filter((id) => this.entries.has(id));
    if (present.length > 0) this.commit({ op: "remove", ids: present });
  }

  /**
   * Entries a model call was to carry, taken out when the call was made and put back when it was refused
   * after all (an abort): pending again, marked as in the context, where the transcript holds them, so the
   * next call that carries them, or the anchor of a compaction that drops them, delivers them. An unsent newer
   * snapshot of the same thing keeps its place.
   */
  returnToContext(entries: readonly PendingInjection[]): void {
    for (const pending of entries) {
      if (this.entries.has(pending.id)) continue;
      this.commit({ op: "pending", add: pending });
      const entry = this.entries.get(pending.id);
      if (entry === undefined) continue;
      const holder = entry.key === undefined ? undefined : this.byKey.get(entry.key);
      this.markQueued([pending.id], "context");
      if (entry.key !== undefined && holder !== undefined && holder !== pending.id) this.byKey.set(entry.key, holder);
    }
  }

  /** These entries now wait in a Pi queue, the next prompt, an anchor or the context (not durable). */
  markQueued(ids: Iterable<string>, via: PiQueue): void {
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (entry === undefined) continue;
      if (entry.key !== undefined && this.byKey.get(entry.key) === id) this.byKey.delete(entry.key);
      entry.pending.queuedAs = via;
    }
  }

  /**
   * Entries handed to Pi that never reached a context (the host cleared a
   * queue) become unsent again; an unsent newer snapshot of the same thing
   * still wins over them.
   */
  release(ids: Iterable<string>): void {
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (entry === undefined || entry.pending.queuedAs === undefined) continue;
      delete entry.pending.queuedAs;
      if (entry.key === undefined) continue;
      const rivalId = this.byKey.get(entry.key);
      const rival = rivalId === undefined ? undefined : this.entries.get(rivalId);
      if (rival !== undefined && !isNewer(entry, rival)) {
        this.commit({ op: "remove", ids: [id] });
        continue;
      }
      if (rival !== undefined) this.commit({ op: "remove", ids: [rival.pending.id] });
      this.byKey.set(entry.key, id);
    }
  }

  snapshot(): InjectionQueueState {
    return { pending: this.all().map(withoutQueue), seenIds: this.seen.ids() };
  }

  /** Applies one durable change; the live path and a journal replay both come through here. */
  apply(record: QueueRecord): void {
    switch (record.op) {
      case "pending": {
        if (record.replaces !== undefined) this.delete(record.replaces);
        this.insert(withoutQueue(record.add), this.placing);
        return;
      }
      case "seen":
        this.seen.add(record.id);
        return;
      case "remove":
        for (const id of record.ids) this.delete(id);
        return;
      default:
        // Never skipped: the queue would go on without the change.
        throw new TypeError(`Unexpected queue record ${JSON.stringify((record as { op?: unknown }).op)}, expected pending, seen or remove`);
    }
  }

  private place(injection: RuntimeInjection): AddOutcome {
    const candidate = { injection, instant: instantOf(injection), arrival: this.arrivals + 1 };
    const key = coalescingKey(injection);
    const existingId = key === undefined ? undefined : this.byKey.get(key);
    const existing = existingId === undefined ? undefined : this.entries.get(existingId);
    if (existing !== undefined && !isNewer(candidate, existing)) {
      this.commit({ op: "seen", id: injection.id });
      return "superseded";
    }
    const add: PendingInjection = {
      id: injection.id,
      kind: injection.kind,
      occurredAt: injection.occurredAt,
      delivery: injection.delivery,
      message: this.render(injection),
      data: injection as unknown as JsonValue,
    };
    // The envelope and instant just computed are reused when the record applies.
    this.placing = candidate;
    try {
      this.commit(existing === undefined ? { op: "pending", add } : { op: "pending", add, replaces: existing.pending.id });
    } finally {
      this.placing = undefined;
    }
    return existing === undefined ? "queued" : "coalesced";
  }

  private commit(record: QueueRecord): void {
    this.journal(record, () => this.apply(record));
  }

  private insert(pending: PendingInjection, known?: { injection: RuntimeInjection; instant: number }): void {
    const injection = known?.injection.id === pending.id ? known.injection : envelopeOf(pending);
    const instant = known?.injection.id === pending.id ? known.instant : instantOf(injection);
    const entry: Entry = { pending, injection, instant, arrival: ++this.arrivals, key: coalescingKey(injection), bytes: pendingBytes(pending) };
    this.entries.set(pending.id, entry);
    this.heldBytes += entry.bytes;
    this.seen.add(pending.id);
    if (entry.key !== undefined && pending.queuedAs === undefined) this.byKey.set(entry.key, pending.id);
  }

  private delete(id: string): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    this.entries.delete(id);
    this.heldBytes -= entry.bytes;
    if (entry.key !== undefined && this.byKey.get(entry.key) === id) this.byKey.delete(entry.key);
  }

  private ordered(match: (entry: Entry) => boolean): Entry[] {
    const matched: Entry[] = [];
    for (const entry of this.entries.values()) if (match(entry)) matched.push(entry);
    return matched.sort(byDelivery);
  }
}

/**
 * What makes two unsent events snapshots of the same thing, or undefined when
 * the event must be delivered on its own.
 */
export function coalescingKey(injection: RuntimeInjection): string | undefined {
  const key = subjectKey(injection);
  // The agent's own change (its tool call reported it) only replaces another
  // echo: replacing someone else's unsent edit would lose that edit once the
  // echo is suppressed because its tool result is already in context.
  return key === undefined || injection.origin?.toolCallId === undefined ? key : `${key}\u0000own`;
}

function subjectKey(injection: RuntimeInjection): string | undefined {
  if (injection.requiresDecision) return undefined;
  const subject = injection.subject?.path ?? injection.subject?.ref;
  const byDedupeKey = injection.dedupeKey === undefined ? undefined : `${injection.kind}\u0000key\u0000${injection.dedupeKey}`;
  switch (injection.kind) {
    case "client_view":
      return "client_view";
    case "artifact_update":
      return subject === undefined ? byDedupeKey : `artifact_update\u0000subject\u0000${subject}`;
    case "workspace_update":
      // Without a subject the event is about the workspace as a whole.
      return `workspace_update\u0000subject\u0000${subject ?? ""}`;
    case "background_result": {
      const jobId = injection.details?.["jobId"];
      return typeof jobId === "string" ? `background_result\u0000job\u0000${jobId}` : byDedupeKey;
    }
    default:
      return byDedupeKey;
  }
}

/** Later instant wins; at the same instant the later arrival wins. */
function isNewer(a: { instant: number; arrival: number }, b: { instant: number; arrival: number }): boolean {
  return a.instant > b.instant || (a.instant === b.instant && a.arrival > b.arrival);
}

function byDelivery(a: Entry, b: Entry): number {
  return a.instant - b.instant || a.arrival - b.arrival;
}

function withoutQueue(pending: PendingInjection): PendingInjection {
  const { queuedAs: _queued, ...rest } = pending;
  return rest;
}

/**
 * The entry with its message rendered again: from its stored envelope, or, for an entry stored without one
 * (before entries kept it), from an envelope around its stored text, which the renderer then treats as the
 * untrusted summary it would be.
 */
function rendered(pending: PendingInjection, render: (injection: RuntimeInjection) => GammaCustomMessage): PendingInjection {
  const checked = pending.data === undefined ? undefined : checkInjection(pending.data);
  // The state's check refuses an entry whose envelope is not one (state/state-shape.ts).
  const injection = checked?.ok === true && checked.injection.id === pending.id ? checked.injection : envelopeOf(pending);
  return { ...pending, message: render(injection) };
}

/** The accepted envelope kept with a pending entry (older state files may lack it). */
function envelopeOf(pending: PendingInjection): RuntimeInjection {
  const data = pending.data;
  if (typeof data === "object" && data !== null && !Array.isArray(data) && data["id"] === pending.id && typeof data["summary"] === "string") {
    return data as unknown as RuntimeInjection;
  }
  return {
    id: pending.id,
    kind: pending.kind as RuntimeInjection["kind"],
    occurredAt: pending.occurredAt,
    source: "server",
    delivery: pending.delivery,
    requiresDecision: false,
    summary: pending.message.content,
  };
}

const KIND_TAGS = INJECTION_KINDS.map((kind) => ({ kind, tag: kind, meaning: "", action: "", delivery: "next_turn" as const }));

function renderWithKindTags(injection: RuntimeInjection): GammaCustomMessage {
  return createTrustedInjectionMessage(injection, KIND_TAGS, { timestamp: instantOf(injection) });
}

/**
 * The most recent `capacity` processed ids, oldest evicted first, in
 * constant time per id (the order array is compacted as its head advances).
 */
class IdWindow {
  private readonly members = new Set<string>();
  private order: string[] = [];
  private head = 0;

  constructor(private readonly capacity: number) {}

  has(id: string): boolean {
    return this.members.has(id);
  }

  add(id: string): void {
    if (this.members.has(id)) return;
    this.members.add(id);
    this.order.push(id);
    while (this.members.size > this.capacity && this.head < this.order.length) {
      const oldest = this.order[this.head++];
      if (oldest !== undefined) this.members.delete(oldest);
    }
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }

  ids(): string[] {
    return this.order.slice(this.head);
  }
}
