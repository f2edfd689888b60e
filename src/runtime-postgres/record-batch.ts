/**
 * Group commit of state records across the sessions one server hosts: while
 * a write is on its way, the writes other sessions make meanwhile wait and
 * then go out together in one statement, each session fenced by its own lease
 * token as a write of its own is. A lone write goes out at once as before, so
 * a session that writes alone waits for nothing.
 *
 * Each session is fenced as its own statement fences it (the lease, and a
 * snapshot older than its first revision). A combined statement is all or
 * nothing: when the server refuses it (a revision taken), every write in it
 * is sent again alone, so each session gets
 * exactly the answer (stored, lease lost, conflict) its own statement gives,
 * and no session's refusal touches another's write. When the connection fails
 * instead, whether it committed is unknown, so nothing is sent again: every
 * write in it fails with that error, as a write of its own would.
 */
import type { StateRecord } from "../runtime/state/journal.js";
import { errorCode, type Pool } from "./database.js";
import type { Lease } from "./lease.js";
import { storedDocument } from "./documents.js";

export interface RecordWrite {
  lease: Lease;
  records: readonly StateRecord[];
  /** The events these records route: marked routed in the same statement. */
  routed: readonly string[];
  /** The write sent alone: resolves with the number of records stored (fewer than sent when the lease is gone). */
  alone(): Promise<number>;
}

interface Queued {
  write: RecordWrite;
  resolve(inserted: number): void;
  reject(error: unknown): void;
}

/** Statements in flight at once; the writes made meanwhile wait for one to end and go out together. */
const IN_FLIGHT = 2;

/** A server's answer to a statement (a SQLSTATE), as opposed to a socket's failure (ECONNRESET and the like). */
const SQLSTATE = /^[0-9A-Z]{5}$/;

const batchers = new WeakMap<Pool, RecordBatcher>();

/** The pool's batcher: one per pool, shared by every session the server hosts on it. */
export function recordBatcher(pool: Pool): RecordBatcher {
  let batcher = batchers.get(pool);
  if (batcher === undefined) {
    batcher = new RecordBatcher(pool);
    batchers.set(pool, batcher);
  }
  return batcher;
}

export class RecordBatcher {
  private readonly queue: Queued[] = [];
  private inFlight = 0;

  constructor(private readonly pool: Pool) {}

  /** Stores the write's records (and marks its events routed); resolves with the number of records stored. */
  write(write: RecordWrite): Promise<number> {
    if (this.queue.length === 0 && this.inFlight < IN_FLIGHT) {
      // Nothing waits: the write goes out alone at once, as it would without batching.
      this.inFlight++;
      const sent = write.alone();
      const done = (): void => {
        this.inFlight--;
        this.next();
      };
      sent.then(done, done);
      return sent;
    }
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    while (this.inFlight < IN_FLIGHT && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        this.next();
      });
    }
  }

  /** The queue's writes of distinct sessions, in order; a session's later write waits for the next batch, behind its earlier one. */
  private take(): Queued[] {
    const taken: Queued[] = [];
    const sessions = new Set<string>();
    const left: Queued[] = [];
    for (const queued of this.queue) {
      const key = queued.write.lease.sessionKey;
      if (sessions.has(key)) left.push(queued);
      else {
        sessions.add(key);
        taken.push(queued);
      }
    }
    this.queue.splice(0, this.queue.length, ...left);
    return taken;
  }

  private async send(batch: Queued[]): Promise<void> {
    if (batch.length > 1) {
      let stored: Map<string, number> | undefined;
      try {
        stored = await this.insertTogether(batch.map((queued) => queued.write));
      } catch (error) {
        if (!SQLSTATE.test(errorCode(error) ?? "")) {
          for (const queued of batch) queued.reject(error);
          return;
        }
        // Refused by the server, so nothing of it was stored: sent again alone below.
      }
      if (stored !== undefined) {
        for (const queued of batch) queued.resolve(stored.get(queued.write.lease.sessionKey) ?? 0);
        return;
      }
    }
    for (const queued of batch) {
      await queued.write.alone().then(queued.resolve, queued.reject);
    }
  }

  /** One statement: each session's row locked for share while it holds the write's token, its records, its routed events. */
  private async insertTogether(writes: readonly RecordWrite[]): Promise<Map<string, number>> {
    const batch = writes.map((write) => ({
      session_key: write.lease.sessionKey,
      token: write.lease.token,
      owner: write.lease.owner,
      records: write.records.map((record) => ({ revision: record.revision, record: storedDocument(record) })),
      routed: write.routed,
      first_revision: write.records[0]?.revision ?? 0,
    }));
    const result = await this.pool.query<{ session_key: string; inserted: number }>({
      name: "gamma-prompt-append-records-together",
      text: `with batch as (
           select b.session_key, b.token, b.owner, b.records, b.routed, b.first_revision
           from jsonb_to_recordset($1::jsonb) as b(session_key text, token bigint, owner text, records jsonb, routed jsonb, first_revision integer)
         ),
         fence as (
           select s.session_key from gamma_sessions s
           join batch b on s.session_key = b.session_key and s.lease_token = b.token and s.lease_owner = b.owner and s.snapshot_revision < b.first_revision
           for share of s
         ),
         inserted as (
           insert into gamma_state_records (session_key, revision, record)
           select f.session_key, r.revision, r.record
           from fence f join batch b on b.session_key = f.session_key cross join jsonb_to_recordset(b.records) as r(revision integer, record jsonb)
           returning session_key
         ),
         routed as (
           update gamma_events e set routed_at = now()
           from fence f join batch b on b.session_key = f.session_key cross join jsonb_array_elements_text(b.routed) as id(event_id)
           where e.session_key = f.session_key and e.event_id = id.event_id and e.routed_at is null
         )
         select session_key, count(*)::integer as inserted from inserted group by session_key`,
      values: [JSON.stringify(batch)],
    });
    return new Map(result.rows.map((row) => [row.session_key, row.inserted]));
  }
}
