/**
 * Where a session's execution state is kept: the contract a store implements
 * and the in-memory store. A store keeps a snapshot plus a journal of small
 * records, one per durable change (journal.ts), so the cost of a change does
 * not grow with the size of the state. The session's state owner (owner.ts)
 * is the only writer; the file store is in file-store.ts.
 */
import { expectFunction, expectInteger, expectObject } from "../../protocol/arguments.js";
import { replay, type StateRecord } from "./journal.js";
import type { ExecutionState } from "../execution-state.js";

/** A value now, or a promise of it: every method of a store may answer either way. */
export type MaybePromise<T> = T | Promise<T>;

/** Whether a store's answer is still to come (any thenable, not only a native promise). */
export function isPromiseLike<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}

/**
 * Durable home of one session's execution state. Every method may return a
 * promise (a database, a network store) or answer at once (memory, a file).
 * The session's state owner is the store's only caller for one session; it
 * never has two writes in flight, and it sends changes in revision order.
 *
 * - `load` returns what is stored (undefined for a new session). A load
 *   replays the snapshot and its records: revisions follow one another.
 * - `save` replaces what is stored with this snapshot, atomically (all of it
 *   or none of it). The owner calls it once when a session is new.
 * - `append` adds one change on top; `appendMany` adds several (in revision
 *   order) at once, atomically. The owner prefers `appendMany`: while one write
 *   is in flight, the changes made meanwhile go in the next call together, so
 *   a store that waits is not waited for once per change. `current` returns
 *   the stored state before the first record given, for a store that compacts
 *   its records into a new snapshot.
 *   A store without either gets `save` with the state after the changes.
 * - A record's `revision` is the state's revision once it applies: the stored
 *   revision plus one. A record whose revision the store already holds is a
 *   conflict (another writer, e.g. a second server on the same session): the
 *   store refuses it (StateConflictError) and stores nothing, never merges.
 * - A write that fails (throws, or rejects) must store nothing. The owner
 *   then stops the session: no later change is sent, and the host reopens
 *   the session from what the store holds.
 */
export interface StateStore {
  load(): MaybePromise<ExecutionState | undefined>;
  save(state: ExecutionState): MaybePromise<void>;
  append?(record: StateRecord, current: () => ExecutionState): MaybePromise<void>;
  appendMany?(records: readonly StateRecord[], current: () => ExecutionState): MaybePromise<void>;
  /** Releases open files or connections; the store is not used again. The owner calls it after its last write settled. */
  close?(): MaybePromise<void>;
}

/** What a store found and set aside when it read a state cut short by a crash. */
export interface StateRecovery {
  location: string;
  /** Bytes after the last complete record, ignored. */
  tornBytes: number;
  /** The revision restored: the last complete record's. */
  revision: number;
  message: string;
}

/** Refuses a store's options a plain-JavaScript host got wrong, naming the option. */
export function checkStoreOptions(options: unknown, store: string): asserts options is StateStoreOptions {
  expectObject(options, `${store} options`, "an object such as { compactAfterBytes: 1048576 }");
  const { compactAfterBytes, onRecovery } = options as StateStoreOptions;
  if (compactAfterBytes !== undefined) expectInteger(compactAfterBytes, "compactAfterBytes", 1);
  if (onRecovery !== undefined) expectFunction(onRecovery, "onRecovery", "a function that takes each recovery");
}

export interface StateStoreOptions {
  /**
   * Journal bytes kept before the next change compacts them into a new
   * snapshot; the journal also may reach twice the snapshot's size, so the
   * cost per change stays constant. Default 1 MiB.
   */
  compactAfterBytes?: number;
  /** Called when a load set aside a torn last record (also kept in `lastRecovery`). */
  onRecovery?: (recovery: StateRecovery) => void;
}

export const DEFAULT_COMPACT_AFTER_BYTES = 1024 * 1024;

/**
 * Keeps the state in memory only (tests, short-lived sessions). The snapshot
 * is kept as JSON and a load hands out fresh copies, so no live object is
 * shared; records are kept as given (the owner never changes a record after
 * it appended it).
 */
export class MemoryStateStore implements StateStore {
  private snapshot: string | undefined;
  private records: StateRecord[] = [];
  private recordCount = 0;
  private readonly compactAfterRecords: number;

  constructor(options: Pick<StateStoreOptions, "compactAfterBytes"> = {}) {
    checkStoreOptions(options, "MemoryStateStore");
    // Records average well under 1 KiB; counting them avoids serialising each one.
    this.compactAfterRecords = Math.max(1, Math.floor((options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES) / 512));
  }

  load(): ExecutionState | undefined {
    if (this.snapshot === undefined) return undefined;
    const records = JSON.parse(JSON.stringify(this.records)) as StateRecord[];
    return replay(JSON.parse(this.snapshot) as ExecutionState, records, "memory");
  }

  save(state: ExecutionState): void {
    this.snapshot = JSON.stringify(state);
    this.records = [];
    this.recordCount = 0;
  }

  append(record: StateRecord, current: () => ExecutionState): void {
    if (this.snapshot === undefined || this.recordCount >= Math.max(this.compactAfterRecords, this.snapshot.length / 256)) this.save(current());
    this.records.push(record);
    this.recordCount++;
  }
}

