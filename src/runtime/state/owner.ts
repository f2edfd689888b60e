/**
 * The one owner of a session's execution state. The state in memory is the
 * authority: each change applies at once (so parallel tool calls, which Pi
 * runs concurrently, read and change one state and never lose each other's
 * updates) and goes, in revision order, to the store. The owner never has two
 * writes in flight: changes made while a write is in flight wait and go
 * together in the next one.
 *
 * Durability is awaited where Pi already awaits (`flush`): before a model call
 * goes out, before a tool result is reported, at the end of a run. A store that
 * answers at once is written before the change applies, so a write it refuses
 * changes nothing. The first refused write stops the session: every later
 * change throws the store's error, `flush` rejects with StateWriteFailedError,
 * and the host reopens the session from what the store holds.
 */
import { InjectionQueue, type InjectionQueueOptions } from "../injections/queue.js";
import type { ExecutionState } from "../execution-state.js";
import { SessionDisposedError, STATE_VERSION, StateWriteFailedError } from "./errors.js";
import { coreOf, type StateCore } from "./fields.js";
import { applyChange, replay, seenIdsOf, type StateChange, type StateRecord } from "./journal.js";
import { isPromiseLike, type MaybePromise, type StateStore } from "./store.js";

export interface StateOwnerOptions {
  /** The trusted message the pending set keeps for an accepted event. */
  render: NonNullable<InjectionQueueOptions["render"]>;
  /** Told once, when the store refuses a write and the session stops. */
  onFailure(failure: StateWriteFailedError): void;
  /** The store's `close` failed (after the session's last write). */
  onCloseFailure(error: unknown): void;
  /** A change came after `close` and was refused (a run still going, or a host's call, after dispose). */
  onChangeAfterClose(error: SessionDisposedError): void;
}

interface Waiter {
  revision: number;
  resolve(): void;
  reject(error: StateWriteFailedError): void;
}

export class SessionStateOwner {
  /** The pending injections; their changes are journaled through this owner. */
  readonly pending: InjectionQueue;
  /** The session's variant: set when it opens, and by a build change when the build no longer defines it. */
  private variantNow: string;
  private readonly core: StateCore;
  private revisionNow: number;
  /** Records applied in memory that no write has carried yet, oldest first. */
  private unsent: StateRecord[] = [];
  private writing = false;
  /** While the store is behind: what it holds (a snapshot, and the records it accepted since). */
  private stored: { base: ExecutionState; accepted: StateRecord[] } | undefined;
  private waiters: Waiter[] = [];
  private failed: StateWriteFailedError | undefined;
  private closeWhenIdle = false;
  /** Set by `close`: the session takes no change from then on; the writes made before it still land. */
  private closed = false;
  /** What the store holds, for a store that compacts (`current` in the store contract). */
  private readonly current = (): ExecutionState => this.storedState();

  /** `isNew`: nothing is stored yet, so the owner saves `initial` first. */
  constructor(
    private readonly store: StateStore,
    initial: ExecutionState,
    isNew: boolean,
    private readonly options: StateOwnerOptions,
  ) {
    this.variantNow = initial.variant;
    this.core = coreOf(initial);
    this.revisionNow = initial.revision;
    // Pi's queues and contexts do not survive a restart: restored entries are unsent again.
    this.pending = new InjectionQueue(
      { pending: initial.pendingInjections.map(({ queuedAs: _queued, ...entry }) => entry), seenIds: seenIdsOf(initial) },
      { render: options.render, journal: (record, apply) => this.commit(record, apply) },
    );
    if (isNew) this.start(() => this.store.save(this.snapshot()), [], true);
  }

  get revision(): number {
    return this.revisionNow;
  }

  get variant(): string {
    return this.variantNow;
  }

  /** The durable fields besides the pending set, as they are now. */
  get state(): Readonly<StateCore> {
    return this.core;
  }

  /** The store's failure that stopped the session, if one did. */
  get failure(): StateWriteFailedError | undefined {
    return this.failed;
  }

  /** One change to the durable fields (journal.ts); throws the store's error when the session has stopped. */
  change(change: Exclude<StateChange, { op: "pending" | "seen" | "remove" }>): void {
    this.commit(change, () => {
      applyChange(this.core, this.pending, change);
      if (change.op === "build" && change.variant !== undefined) this.variantNow = change.variant;
    });
  }

  /** The state in its durable form (what a store writes as a snapshot). Its values are never changed in place later. */
  snapshot(): ExecutionState {
    const { pending, seenIds } = this.pending.snapshot();
    return { stateVersion: STATE_VERSION, revision: this.revisionNow, variant: this.variant, ...this.core, pendingInjections: pending, injectionLog: { seenIds } };
  }

  /** Resolves once every change made so far is durable; rejects with StateWriteFailedError once the session has stopped. */
  flush(): Promise<void> {
    if (this.failed !== undefined) return Promise.reject(this.failed);
    if (!this.writing && this.unsent.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ revision: this.revisionNow, resolve, reject }));
  }

  /**
   * Another store of the session refused a write (its transcript, in a
   * database): the session stops as if the state's store had refused one,
   * and the error names that write (`failedWrite`), not the state's.
   */
  stop(cause: unknown, failedWrite: string): StateWriteFailedError {
    this.fail(cause, this.revisionNow + 1, failedWrite);
    return this.failed as StateWriteFailedError;
  }

  /** True while a write is in flight or waits to be sent: `flush` would wait. */
  get busy(): boolean {
    return this.failed === undefined && (this.writing || this.unsent.length > 0);
  }

  /** True once `close` was called: every later change is refused. */
  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Refuses every later change (SessionDisposedError, and the host is told)
   * and closes the store once its last write settled (at once when none is in
   * flight). The changes made before it are still written, and `flush` waits for them.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.closeWhenIdle = true;
    if (!this.writing) this.closeNow();
  }

  /**
   * One durable change, applied by `apply`. While the store is caught up it
   * gets the record first: a store that answers at once and refuses it
   * changes nothing (the error is thrown to the caller); a store that waits
   * is awaited by the next `flush`.
   */
  private commit(change: StateChange, apply: () => void): void {
    if (this.failed !== undefined) throw this.failed.cause;
    if (this.closed) {
      // Not a failure of the store: the writes made before the dispose still land; this one never starts.
      const refused = new SessionDisposedError(`change to the session's state (${change.op})`);
      this.options.onChangeAfterClose(refused);
      throw refused;
    }
    const record = { ...change, revision: this.revisionNow + 1 } as StateRecord;
    if (this.writing || this.unsent.length > 0 || !this.appends()) {
      apply();
      this.revisionNow = record.revision;
      this.unsent.push(record);
      if (!this.writing) this.sendUnsent(true);
      return;
    }
    // Caught up: the store holds exactly the state before this record, and gets it first.
    let answer: MaybePromise<void>;
    try {
      answer = this.store.appendMany !== undefined ? this.store.appendMany([record], this.current) : this.store.append?.(record, this.current);
    } catch (error) {
      this.fail(error, record.revision);
      throw error;
    }
    if (isPromiseLike(answer)) this.track(answer, [record], record.revision);
    apply();
    this.revisionNow = record.revision;
  }

  private appends(): boolean {
    return this.store.appendMany !== undefined || this.store.append !== undefined;
  }

  /** The next write: every unsent record for a store that takes several at once (or a snapshot), else the oldest one. */
  private sendUnsent(rethrow = false): void {
    const records = this.store.appendMany !== undefined || !this.appends() ? this.unsent.splice(0) : this.unsent.splice(0, 1);
    if (records.length === 0) return;
    this.start(() => (this.appends() ? this.append(records) : this.store.save(this.snapshot())), records, rethrow);
  }

  private append(records: readonly StateRecord[]): MaybePromise<void> {
    if (this.store.appendMany !== undefined) return this.store.appendMany(records, this.current);
    return this.store.append?.(records[0] as StateRecord, this.current);
  }

  /** Starts one write; a store that answers at once is done here, one that waits is tracked until it settles. */
  private start(write: () => MaybePromise<void>, records: readonly StateRecord[], rethrow: boolean): void {
    const revision = records[0]?.revision ?? this.revisionNow;
    // What the store holds once this write lands: its last record, or the snapshot it saves (the state now).
    const holds = records.at(-1)?.revision ?? this.revisionNow;
    let answer: MaybePromise<void>;
    try {
      answer = write();
    } catch (error) {
      this.fail(error, revision);
      if (rethrow) throw error;
      return;
    }
    if (!isPromiseLike(answer)) {
      this.written(records, holds);
      return;
    }
    this.track(answer, records, holds);
  }

  /** A write in flight: the store is behind until it settles, and then holds revision `holds`. */
  private track(answer: Promise<void>, records: readonly StateRecord[], holds: number): void {
    const revision = records[0]?.revision ?? this.revisionNow;
    // Keep what the store holds for `current`, in case it compacts later.
    if (this.appends()) this.stored ??= { base: records.length === 0 ? this.snapshot() : this.snapshotBefore(records), accepted: [] };
    this.writing = true;
    answer.then(
      () => {
        this.writing = false;
        this.written(records, holds);
      },
      (error: unknown) => {
        this.writing = false;
        this.fail(error, revision);
      },
    );
  }

  /** The state before `records`: they are the newest changes and not applied yet (a caught-up write), or the store holds it already. */
  private snapshotBefore(records: readonly StateRecord[]): ExecutionState {
    const first = records[0]?.revision ?? this.revisionNow + 1;
    return first === this.revisionNow + 1 ? this.snapshot() : this.storedState();
  }

  /** What the store holds now: the live state while it is caught up, else its base and the records it accepted since. */
  private storedState(): ExecutionState {
    if (this.stored === undefined) return this.snapshot();
    if (this.stored.accepted.length > 0) this.stored = { base: replay(this.stored.base, this.stored.accepted, "store"), accepted: [] };
    return this.stored.base;
  }

  /**
   * A write landed and the store holds revision `holds`: whoever waits for it
   * goes on at once (not after the writes queued behind it, which may keep
   * coming), and the changes made meanwhile go in the next write.
   */
  private written(records: readonly StateRecord[], holds: number): void {
    if (this.failed !== undefined) return;
    this.stored?.accepted.push(...records);
    // Waiters are in the order they came, so their revisions only grow: those now stored go first.
    while (this.waiters.length > 0 && (this.waiters[0] as Waiter).revision <= holds) this.waiters.shift()?.resolve();
    if (this.unsent.length > 0) {
      this.sendUnsent();
      if (this.writing || this.failed !== undefined) return;
    }
    this.stored = undefined;
    if (this.closeWhenIdle) this.closeNow();
  }

  private fail(error: unknown, revision: number, failedWrite?: string): void {
    if (this.failed !== undefined) return;
    this.failed = new StateWriteFailedError(error, revision, failedWrite);
    this.unsent = [];
    for (const waiter of this.waiters.splice(0)) waiter.reject(this.failed);
    this.options.onFailure(this.failed);
    if (this.closeWhenIdle) this.closeNow();
  }

  private closeNow(): void {
    this.closeWhenIdle = false;
    let closing: MaybePromise<void>;
    try {
      closing = this.store.close?.();
    } catch (error) {
      this.options.onCloseFailure(error);
      return;
    }
    if (isPromiseLike(closing)) closing.then(undefined, (error: unknown) => this.options.onCloseFailure(error));
  }
}
