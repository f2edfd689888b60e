/**
 * The pending-injection queue: pure data in, pure data out, so the controller
 * can persist it with the rest of the session state and restore it after a
 * compaction or a restart.
 *
 * - Idempotent by id: an id seen before (queued, delivered or replaced) is ignored.
 * - Coalescing of unsent snapshots: a newer event with the same coalescing key
 *   replaces the older one; an older one arriving late is dropped.
 * - Events that require a decision are never coalesced.
 * - An echo of the agent's own change (origin.toolCallId) coalesces only with
 *   other echoes, never with another actor's event.
 * - Duplicate suppression: an event whose origin tool call already has its
 *   result in the active context is dropped when the queue is drained.
 */
import { instantOf } from "./order.js";
import type { RuntimeInjection } from "./types.js";

export interface InjectionQueueState {
  /** Unsent events, in delivery order. */
  pending: RuntimeInjection[];
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

export interface InjectionQueueOptions {
  /** How many processed ids to remember for idempotency. */
  rememberIds?: number;
}

export interface DrainOptions {
  /** Which pending events to take; the rest stay queued. */
  select: (injection: RuntimeInjection) => boolean;
  /** Tool call ids whose results are in the active context. */
  toolCallIdsInContext?: ReadonlySet<string>;
}

export interface DrainResult {
  /** In delivery order: occurredAt, then id. */
  deliver: RuntimeInjection[];
  /** Dropped because a tool result in context already reports the change. */
  suppressed: RuntimeInjection[];
}

interface Entry {
  injection: RuntimeInjection;
  instant: number;
  key: string | undefined;
}

const DEFAULT_REMEMBERED_IDS = 10_000;

export class InjectionQueue {
  private readonly entries = new Map<string, Entry>();
  private readonly byKey = new Map<string, string>();
  private readonly seen = new Set<string>();
  /** `seen` in insertion order from `seenHead` on: eviction without iterating a Set full of deleted slots. */
  private readonly seenOrder: string[] = [];
  private seenHead = 0;
  private readonly rememberIds: number;

  constructor(state?: InjectionQueueState, options: InjectionQueueOptions = {}) {
    this.rememberIds = Math.max(1, options.rememberIds ?? DEFAULT_REMEMBERED_IDS);
    for (const id of state?.seenIds ?? []) this.remember(id);
    for (const injection of state?.pending ?? []) {
      this.insert({ injection, instant: instantOf(injection), key: coalescingKey(injection) });
    }
  }

  get size(): number {
    return this.entries.size;
  }

  add(injection: RuntimeInjection): AddOutcome {
    // A pending id counts as processed even after `seen` has evicted it.
    if (this.seen.has(injection.id) || this.entries.has(injection.id)) return "duplicate";
    return this.place(injection);
  }

  /**
   * Puts back an event that left the queue but never reached the model (the
   * host cleared Pi's queue it was waiting in). Its id is already processed,
   * so `add` would call it a duplicate; coalescing still applies.
   */
  requeue(injection: RuntimeInjection): AddOutcome {
    if (this.entries.has(injection.id)) return "duplicate";
    return this.place(injection);
  }

  private place(injection: RuntimeInjection): AddOutcome {
    const entry: Entry = { injection, instant: instantOf(injection), key: coalescingKey(injection) };
    const existingId = entry.key === undefined ? undefined : this.byKey.get(entry.key);
    const existing = existingId === undefined ? undefined : this.entries.get(existingId);
    if (existing) {
      const newer = entry.instant > existing.instant || (entry.instant === existing.instant && injection.id > existing.injection.id);
      if (!newer) {
        this.remember(injection.id);
        return "superseded";
      }
      this.entries.delete(existing.injection.id);
      this.insert(entry);
      return "coalesced";
    }
    this.insert(entry);
    return "queued";
  }

  /** Unsent events in delivery order, without removing them. */
  pending(): RuntimeInjection[] {
    return sortEntries([...this.entries.values()]).map((entry) => entry.injection);
  }

  drain(options: DrainOptions): DrainResult {
    const taken: Entry[] = [];
    const suppressed: RuntimeInjection[] = [];
    for (const entry of this.entries.values()) {
      if (!options.select(entry.injection)) continue;
      taken.push(entry);
    }
    for (const entry of taken) this.remove(entry);
    const deliver: RuntimeInjection[] = [];
    for (const entry of sortEntries(taken)) {
      const toolCallId = entry.injection.origin?.toolCallId;
      if (toolCallId !== undefined && options.toolCallIdsInContext?.has(toolCallId)) suppressed.push(entry.injection);
      else deliver.push(entry.injection);
    }
    return { deliver, suppressed };
  }

  /** Removes pending events delivered by another path (e.g. the controller's anchor); their ids stay processed. */
  forget(ids: Iterable<string>): void {
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (entry) this.remove(entry);
    }
  }

  snapshot(): InjectionQueueState {
    return { pending: this.pending(), seenIds: [...this.seen] };
  }

  private insert(entry: Entry): void {
    const id = entry.injection.id;
    this.entries.set(id, entry);
    this.remember(id);
    if (entry.key !== undefined) this.byKey.set(entry.key, id);
  }

  private remove(entry: Entry): void {
    this.entries.delete(entry.injection.id);
    if (entry.key !== undefined && this.byKey.get(entry.key) === entry.injection.id) this.byKey.delete(entry.key);
  }

  private remember(id: string): void {
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.seenOrder.push(id);
    // Eviction drops the id seen first; pending ids stay recognised through `entries`.
    while (this.seen.size > this.rememberIds && this.seenHead < this.seenOrder.length) {
      const oldest = this.seenOrder[this.seenHead++];
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    if (this.seenHead > 1024 && this.seenHead * 2 > this.seenOrder.length) {
      this.seenOrder.splice(0, this.seenHead);
      this.seenHead = 0;
    }
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

function sortEntries(entries: Entry[]): Entry[] {
  return entries.sort((a, b) => a.instant - b.instant || (a.injection.id < b.injection.id ? -1 : a.injection.id > b.injection.id ? 1 : 0));
}
