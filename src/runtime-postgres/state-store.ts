/**
 * The execution state in PostgreSQL: the session row's snapshot plus one row
 * per change (gamma_state_records, unique on session and revision). Every
 * write is one statement that checks the lease (its owner and fencing token)
 * first, so a server that lost the session or let it go writes nothing (LeaseLostError), and two
 * writers can never both commit revision n (StateConflictError): the unique key refuses a revision
 * stored as a record, the fence one the snapshot holds already (its records deleted). The records
 * that route a published event mark its row routed in the same statement.
 */
import type { ExecutionState } from "../runtime/execution-state.js";
import { STATE_VERSION, StateConflictError, StateStoreError } from "../runtime/state/errors.js";
import { checkState, recordProblem, replay, type StateRecord } from "../runtime/state/journal.js";
import type { StateStore } from "../runtime/state/store.js";
import { expectInteger, expectObject, expectString, shownValue } from "../protocol/arguments.js";
import { errorCode, expectPool, inTransaction, UNIQUE_VIOLATION, type Pool } from "./database.js";
import { databaseFailure, LeaseLostError, StoredFormatError } from "./errors.js";
import { fenceValues, stateFence, type Lease } from "./lease.js";
import { recordBatcher } from "./record-batch.js";
import { documentIn, documentParameter, storedDocument } from "./documents.js";

export interface PostgresStateStoreOptions {
  /** Records kept after the snapshot before the next write folds them into a new one. Default 1,000. */
  compactAfterRecords?: number;
}

/** What a lease is, for a host that passes one of its own. */
const LEASE_EXPECTED = "a lease { sessionKey, owner, token } as gamma_sessions holds it (session_key, lease_owner, lease_token); see docs/guide/running-across-servers.md";

/**
 * A lease as a host passes it: the token as a number, or as node-postgres
 * reads the bigint column lease_token (its decimal digits, or a BigInt with a
 * type parser for int8).
 */
export type GivenLease = Omit<Lease, "token"> & { token: number | string | bigint };

/** The lease's token as a number: a whole number from 0, given as one, as its decimal digits or as a BigInt. */
function leaseToken(token: unknown): number {
  if (typeof token === "number" && Number.isSafeInteger(token) && token >= 0) return token;
  const digits = typeof token === "string" && /^(?:0|[1-9][0-9]*)$/.test(token) ? token : typeof token === "bigint" && token >= 0n ? String(token) : undefined;
  if (digits === undefined || Number(digits) > Number.MAX_SAFE_INTEGER) {
    throw new RangeError(`Unexpected lease.token ${shownValue(token)}, expected an integer, 0 or more: a number, or its decimal digits as node-postgres reads lease_token ("7")`);
  }
  return Number(digits);
}

export class PostgresStateStore implements StateStore {
  private readonly lease: Lease;
  private readonly location: string;
  private readonly compactAfterRecords: number;
  /** Records stored after the snapshot (known after load or save). */
  private sinceSnapshot = 0;
  /** Set when the lease is known to be gone: no statement is sent. */
  lost = false;

  constructor(
    private readonly pool: Pool,
    lease: GivenLease,
    options: PostgresStateStoreOptions = {},
  ) {
    expectPool(pool, "PostgresStateStore pool");
    const given: unknown = lease;
    expectObject(given, "PostgresStateStore lease", LEASE_EXPECTED);
    expectString(given["sessionKey"], "lease.sessionKey", `the session's key, ${LEASE_EXPECTED}`, true);
    expectString(given["owner"], "lease.owner", `the lease's holder, ${LEASE_EXPECTED}`, true);
    const token = leaseToken(given["token"]);
    const optionsGiven: unknown = options;
    expectObject(optionsGiven, "PostgresStateStore options", "an object such as { compactAfterRecords: 1000 }");
    if (optionsGiven["compactAfterRecords"] !== undefined) expectInteger(optionsGiven["compactAfterRecords"], "compactAfterRecords", 1);
    this.lease = { sessionKey: lease.sessionKey, owner: lease.owner, token };
    this.location = `session ${lease.sessionKey}`;
    this.compactAfterRecords = options.compactAfterRecords ?? 1000;
  }

  async load(): Promise<ExecutionState | undefined> {
    const session = await this.pool.query<{ snapshot: unknown; snapshot_revision: number }>("select snapshot, snapshot_revision from gamma_sessions where session_key = $1", [this.lease.sessionKey]);
    const row = session.rows[0];
    if (row === undefined || row.snapshot === null) return undefined;
    const sessionKey = this.lease.sessionKey;
    const snapshotDocument = documentIn(row.snapshot, sessionKey, `snapshot (gamma_sessions, revision ${row.snapshot_revision})`);
    // A snapshot of a later state version is another version's, not a broken one.
    const version = snapshotDocument["stateVersion"];
    if (typeof version === "number" && version !== STATE_VERSION) {
      throw new StoredFormatError(sessionKey, `snapshot (gamma_sessions, revision ${row.snapshot_revision})`, `an execution state of stateVersion ${version} (this version reads ${STATE_VERSION})`);
    }
    const snapshot = checkState(snapshotDocument, this.location);
    const records = await this.pool.query<{ revision: number; record: unknown }>("select revision, record from gamma_state_records where session_key = $1 and revision > $2 order by revision", [
      sessionKey,
      row.snapshot_revision,
    ]);
    this.sinceSnapshot = records.rows.length;
    return replay(snapshot, records.rows.map((stored) => storedRecord(stored.record, stored.revision, sessionKey)), this.location);
  }

  async save(state: ExecutionState): Promise<void> {
    await this.writeSnapshot(state, []);
  }

  async appendMany(records: readonly StateRecord[], current: () => ExecutionState): Promise<void> {
    this.refuseWhenLost();
    const first = records[0];
    if (first === undefined) return;
    const routed = records.flatMap((record) => (record.op === "pending" ? [record.add.id] : record.op === "seen" ? [record.id] : []));
    if (this.sinceSnapshot + records.length > this.compactAfterRecords) {
      // Fold the records into a new snapshot now and then, so a load reads a bounded number of rows.
      await this.writeSnapshot(replay(current(), records, this.location), routed, records.length);
      return;
    }
    let inserted: number;
    try {
      inserted = await recordBatcher(this.pool).write({ lease: this.lease, records, routed, alone: () => this.insert(records, routed) });
    } catch (error) {
      throw this.storeError(error, first.revision);
    }
    if (inserted !== records.length) await this.refused(first.revision);
    this.sinceSnapshot += records.length;
  }

  /**
   * One statement, fenced: the session's row locked for share while it holds
   * this lease's token, then the records, then the events they route. The
   * common case, one record routing nothing, is a prepared statement of its own.
   * (Sent alone when no other session's write waits with it; see record-batch.ts.)
   */
  private async insert(records: readonly StateRecord[], routed: readonly string[]): Promise<number> {
    const [only] = records;
    if (records.length === 1 && only !== undefined && routed.length === 0) {
      const result = await this.pool.query({
        name: "gamma-prompt-append-record",
        text: "insert into gamma_state_records (session_key, revision, record) select session_key, $4, $5::jsonb from gamma_sessions where session_key = $1 and lease_token = $2 and lease_owner = $3 and snapshot_revision < $4 for share",
        values: [...fenceValues(this.lease), only.revision, documentParameter(only)],
      });
      return result.rowCount ?? 0;
    }
    const result = await this.pool.query<{ inserted: number }>({
      name: "gamma-prompt-append-records",
      text: `with ${stateFence("$6")},
         inserted as (
           insert into gamma_state_records (session_key, revision, record)
           select fence.session_key, r.revision, r.record from fence cross join jsonb_to_recordset($4::jsonb) as r(revision integer, record jsonb)
           returning 1
         ),
         routed as (
           update gamma_events set routed_at = now()
           where session_key = $1 and event_id = any($5::text[]) and routed_at is null and exists (select 1 from fence)
         )
         select count(*)::integer as inserted from inserted`,
      values: [...fenceValues(this.lease), JSON.stringify(records.map((record) => ({ revision: record.revision, record: storedDocument(record) }))), routed, records[0]?.revision ?? 0],
    });
    return result.rows[0]?.inserted ?? 0;
  }

  /**
   * The snapshot replaces the records up to its revision, in one transaction;
   * the events its records route are marked. `folded` records of it were never
   * stored: from its first on, no revision may be stored yet, by this writer
   * or another.
   */
  private async writeSnapshot(state: ExecutionState, routed: readonly string[], folded = 0): Promise<void> {
    this.refuseWhenLost();
    const snapshot = documentParameter(state);
    const first = state.revision - folded + 1;
    try {
      await inTransaction(this.pool, async (client) => {
        const saved = await client.query(
          `with ${stateFence("$6")} update gamma_sessions s set snapshot = $4::jsonb, snapshot_revision = $5 from fence
           where s.session_key = fence.session_key and not exists (select 1 from gamma_state_records r where r.session_key = $1 and r.revision >= $6)`,
          [...fenceValues(this.lease), snapshot, state.revision, first],
        );
        if (saved.rowCount !== 1) await this.refused(first, client);
        await client.query("delete from gamma_state_records where session_key = $1 and revision <= $2", [this.lease.sessionKey, state.revision]);
        if (routed.length > 0) {
          await client.query("update gamma_events set routed_at = now() where session_key = $1 and event_id = any($2::text[]) and routed_at is null", [this.lease.sessionKey, routed]);
        }
      });
    } catch (error) {
      throw this.storeError(error, state.revision);
    }
    this.sinceSnapshot = 0;
  }

  /** The store's errors as the runtime's: a lost lease and a taken revision are conflicts; anything else names the database's failure. */
  private storeError(error: unknown, revision: number): Error {
    if (error instanceof StateStoreError) return error;
    if (errorCode(error) === UNIQUE_VIOLATION) {
      return new StateConflictError(this.location, `Unexpected revision ${revision} already stored by another writer, expected it free: the write was refused`);
    }
    return databaseFailure(this.lease.sessionKey, error, "the write stored");
  }

  private refuseWhenLost(): void {
    if (this.lost) throw new LeaseLostError(this.lease.sessionKey, this.lease.token);
  }

  /**
   * Why a fenced write stored nothing: the lease is gone (LeaseLostError), or
   * it holds and another writer on it stored `first` or a later revision
   * already, records or a snapshot (StateConflictError).
   */
  private async refused(first: number, db: Pick<Pool, "query"> = this.pool): Promise<never> {
    const row = (await db.query<{ held: boolean; snapshot_revision: number; latest: number | null }>(
      `select lease_token = $2 and lease_owner = $3 as held, snapshot_revision,
         (select max(revision) from gamma_state_records r where r.session_key = $1) as latest
       from gamma_sessions where session_key = $1`,
      fenceValues(this.lease),
    )).rows[0];
    if (row?.held !== true) this.leaseLost();
    const stored = Math.max(row.snapshot_revision, row.latest ?? 0);
    throw new StateConflictError(this.location, `Unexpected revision ${first} when revision ${stored} is stored already, by another writer on this lease, expected the next revision: the write was refused`);
  }

  private leaseLost(): never {
    this.lost = true;
    throw new LeaseLostError(this.lease.sessionKey, this.lease.token);
  }
}

/**
 * A record row as the journal reads it: a document holding its own revision
 * (the row's) and an operation this version writes, with its fields.
 * Anything else is named by its revision, never taken for a record that is
 * missing, nor skipped.
 */
function storedRecord(stored: unknown, revision: number, sessionKey: string): StateRecord {
  const row = `state record (gamma_state_records, revision ${revision})`;
  const record = documentIn(stored, sessionKey, row);
  if (record["revision"] !== revision || typeof record["op"] !== "string") {
    throw new StoredFormatError(sessionKey, row, `an object without this row's revision and an operation ({"revision": ${revision}, "op": ...})`);
  }
  // A later version's operation, or a known one without its fields: named, never skipped or misread.
  const problem = recordProblem(record);
  if (problem !== undefined) throw new StoredFormatError(sessionKey, row, `a record holding ${problem}`);
  return record as unknown as StateRecord;
}
