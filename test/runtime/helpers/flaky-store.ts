/**
 * A state store in front of a MemoryStateStore that behaves like a network
 * database: in "async" mode every call waits (a random delay from a seeded
 * generator), and the writes `refuse` picks fail the way a database that drops
 * out fails, storing nothing. It counts the writes in flight at once, so a
 * test can see that the session's state owner sends them one after another.
 */
import { MemoryStateStore, type StateStore } from "../../../src/runtime/state/store.js";
import type { StateRecord } from "../../../src/runtime/state/journal.js";
import type { ExecutionState } from "../../../src/runtime/execution-state.js";
import { seededRandom } from "../../helpers/random.js";

/** What a store's write carries: one record, or a whole snapshot (`save`). */
export type StoreWrite = { kind: "append"; record: StateRecord } | { kind: "save"; state: ExecutionState };

export class DatabaseUnavailableError extends Error {
  override readonly name = "DatabaseUnavailableError";
}

export class FlakyStore implements StateStore {
  readonly inner = new MemoryStateStore();
  /** Which writes fail; none by default. */
  refuse: (write: StoreWrite) => boolean = () => false;
  /** Writes refused so far. */
  refusals = 0;
  /** Records the store accepted, in the order it accepted them. */
  readonly accepted: StateRecord[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private readonly random: () => number;

  constructor(
    readonly mode: "sync" | "async",
    options: { seed?: number; maxDelayMs?: number } = {},
  ) {
    this.random = seededRandom(options.seed ?? 1);
    this.maxDelayMs = options.maxDelayMs ?? 3;
  }

  private readonly maxDelayMs: number;

  load(): ExecutionState | undefined | Promise<ExecutionState | undefined> {
    return this.mode === "sync" ? this.inner.load() : this.later(() => this.inner.load());
  }

  save(state: ExecutionState): void | Promise<void> {
    const write = (): void => {
      this.check({ kind: "save", state });
      this.inner.save(state);
    };
    if (this.mode === "sync") return write();
    const copy = JSON.parse(JSON.stringify(state)) as ExecutionState;
    return this.later(() => {
      this.check({ kind: "save", state: copy });
      this.inner.save(copy);
    });
  }

  append(record: StateRecord, current: () => ExecutionState): void | Promise<void> {
    const write = (): void => {
      this.check({ kind: "append", record });
      this.inner.append(record, current);
      this.accepted.push(record);
    };
    if (this.mode === "sync") return write();
    return this.later(write);
  }

  private check(write: StoreWrite): void {
    if (!this.refuse(write)) return;
    this.refusals++;
    throw new DatabaseUnavailableError(`connection to the database lost while writing ${write.kind === "append" ? `revision ${write.record.revision}` : "a snapshot"}`);
  }

  private async later<T>(work: () => T): Promise<T> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, Math.floor(this.random() * (this.maxDelayMs + 1))));
      return work();
    } finally {
      this.inFlight--;
    }
  }
}

/** Refuses the first write `match` picks, then accepts again (a database that drops out for a moment). */
export function refuseOnce(store: FlakyStore, match: (write: StoreWrite) => boolean): void {
  let done = false;
  store.refuse = (write) => {
    if (done || !match(write)) return false;
    done = true;
    return true;
  };
}
