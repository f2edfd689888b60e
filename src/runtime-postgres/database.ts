/**
 * The slice of a node-postgres (`pg`, an optional peer dependency) pool this
 * entry point uses: a pool, a client checked out of it, and a query. The
 * types are the entry point's own, so its declarations need neither `pg`'s
 * types (`pg` ships none; `@types/pg` is not required) nor `pg` itself: a
 * `pg.Pool` is a `Pool`, and a `pg.PoolClient` or `pg.Client` a `Queryable`
 * (the LISTEN connection relies on the pool's clients being node-postgres's:
 * event emitters that emit `notification`, `error` and `end`).
 * The host passes its own pool, so no database client is loaded by anything
 * but this entry point, and only when the host uses it.
 */

import { expectObject } from "../protocol/arguments.js";
import { messageOf } from "../protocol/error-message.js";

/** A row of a query's result, by column name. */
export type QueryResultRow = object;

/** A statement with its parameters, and optionally a name (a prepared statement). */
export interface QueryConfig {
  text: string;
  values?: unknown[];
  name?: string;
}

/** What a query resolves to: its rows and how many it touched. */
export interface QueryResult<R extends QueryResultRow = QueryResultRow> {
  rows: R[];
  rowCount: number | null;
}

/** A pool, a checked-out client, or a client in a transaction of the caller's. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(textOrConfig: string | QueryConfig, values?: unknown[]): Promise<QueryResult<R>>;
}

/** A client checked out of the pool: it takes queries, and goes back to the pool (or, given an error, is discarded) on release. */
export interface PoolClient extends Queryable {
  release(error?: Error | boolean): void;
}

/** A pool of connections, such as node-postgres's `pg.Pool`. */
export interface Pool extends Queryable {
  connect(): Promise<PoolClient>;
}

/** Throws a TypeError naming `name` unless `value` has a pool's methods (a connection string is not a pool). */
export function expectPool(value: unknown, name: string): asserts value is Pool {
  expectObject(value, name, "a node-postgres pool (new pg.Pool({ connectionString }))");
  if (typeof value.query !== "function" || typeof value.connect !== "function") throw new TypeError(`Unexpected ${name} without query() and connect(), expected a node-postgres pool (new pg.Pool({ connectionString }))`);
}

/** Throws a TypeError naming `name` unless `value` has a query method: a pool, or a client (one in a transaction of the caller's too). */
export function expectQueryable(value: unknown, name: string): asserts value is Queryable {
  expectObject(value, name, "a node-postgres pool or client (new pg.Pool({ connectionString }), or a client in a transaction)");
  if (typeof value.query !== "function") throw new TypeError(`Unexpected ${name} without query(), expected a node-postgres pool or client`);
}

/**
 * Runs `work` in one transaction on a client checked out of the pool. A
 * statement before `commit` that gets no answer in time (its connection is
 * discarded, so the database rolls the transaction back) fails the
 * transaction with DatabaseRolledBackError: nothing of it was stored. Only a
 * `commit` that gets no answer leaves the outcome unknown (DatabaseTimeoutError).
 */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    let result: T;
    try {
      // Read committed, whatever the database's default: a fenced write that waited on the session row while
      // its lease was renewed re-reads the row there, where repeatable read and serializable fail it (40001).
      await client.query("begin isolation level read committed");
      result = await work(client);
    } catch (error) {
      await client.query("rollback").catch(() => {});
      throw error instanceof DatabaseTimeoutError ? new DatabaseRolledBackError(error) : error;
    }
    await client.query("commit");
    return result;
  } finally {
    client.release();
  }
}

/** PostgreSQL's code for a transaction rolled back because a concurrent one changed what it read (repeatable read, serializable). */
export const SERIALIZATION_FAILURE = "40001";

/** How many times a statement alone runs when each try meets a concurrent update (each within the operation's time). */
const MAX_SERIALIZATION_RETRIES = 5;

/** node-postgres's code for a unique violation (two writers on one revision). */
export const UNIQUE_VIOLATION = "23505";
/** PostgreSQL's SQLSTATE for a relation that does not exist. */
export const UNDEFINED_TABLE = "42P01";

export function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string" ? (error as { code: string }).code : undefined;
}

/** PostgreSQL's SQLSTATE for a write in a read-only transaction (a standby, or default_transaction_read_only). */
export const READ_ONLY_SQL_TRANSACTION = "25006";

/** A server's answer to a statement (a SQLSTATE), as opposed to a socket's failure (ECONNRESET, a timeout and the like). */
const SQLSTATE = /^[0-9A-Z]{5}$/;

/** True when the database answered with an error: the statement did not commit. */
export function answeredWithError(error: unknown): boolean {
  return SQLSTATE.test(errorCode(error) ?? "");
}

/**
 * No connection could be had in time, or at all (refused, the pool's own
 * `connectionTimeoutMillis`, the session's deadline): no statement was sent,
 * so nothing of the operation was stored.
 */
export class DatabaseUnreachableError extends Error {
  override readonly name = "DatabaseUnreachableError";
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`no database connection: ${reason}; nothing was sent`, options);
  }
}

/** A statement sent that the database did not answer in time: it may have been carried out or not. */
export class DatabaseTimeoutError extends Error {
  override readonly name = "DatabaseTimeoutError";
  constructor(readonly timeoutMs: number) {
    super(`the database did not answer within ${timeoutMs} ms`);
  }
}

/**
 * A statement of a transaction that got no answer in time, before the
 * transaction's `commit`: its connection was discarded, so the database rolled
 * the transaction back and nothing of it was stored.
 */
export class DatabaseRolledBackError extends Error {
  override readonly name = "DatabaseRolledBackError";
  constructor(cause: DatabaseTimeoutError) {
    super(`${cause.message} before the transaction's commit, so it was rolled back; nothing of it was stored`, { cause });
  }
}

/**
 * `promise`'s outcome, or a rejection with `late()` once `ms` has passed
 * without one (the promise's own later rejection is then ignored).
 */
export function within<T>(promise: Promise<T>, ms: number, late: () => Error): Promise<T> {
  promise.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(late()), Math.max(0, ms));
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (cause: unknown) => {
        clearTimeout(timer);
        reject(cause);
      },
    );
  });
}

/**
 * A connection checked out of the pool within `timeoutMs`: DatabaseUnreachableError
 * when none comes in time (a database that accepts connections and never
 * answers) or the pool fails to connect. A connection that arrives after its
 * deadline is discarded, so it holds no slot of the pool.
 */
export async function connectWithin(pool: Pool, timeoutMs: number): Promise<PoolClient> {
  let late = false;
  const connecting = pool.connect();
  connecting.then(
    (client) => {
      if (late) client.release(new Error("connection arrived after its deadline"));
    },
    () => {},
  );
  try {
    return await within(connecting, timeoutMs, () => {
      late = true;
      return new DatabaseUnreachableError(`none within ${timeoutMs} ms`);
    });
  } catch (error) {
    if (error instanceof DatabaseUnreachableError) throw error;
    throw new DatabaseUnreachableError(messageOf(error), { cause: error });
  }
}

/** A checked-out client whose statements each get `timeoutMs`; one that times out is discarded on release (its connection may be stuck mid-statement). */
class BoundedClient implements PoolClient {
  private broken: Error | undefined;
  /**
   * node-postgres emits a checked-out client's lost connection as an "error" event, which without a
   * listener ends the host's process; the pool listens only while a client is idle. Held here until the
   * release, the loss fails the statement in flight (pg rejects it too) and every later one.
   */
  private readonly onError = (error: Error): void => {
    this.broken ??= error;
  };
  constructor(
    private readonly client: PoolClient,
    private readonly timeoutMs: number,
    /** The operation's whole time, as the error names it (a statement after a checkout gets what is left of it). */
    private readonly shownMs = timeoutMs,
  ) {
    (client as Partial<ErrorEvents>).on?.("error", this.onError);
  }

  async query<R extends QueryResultRow = QueryResultRow>(textOrConfig: string | QueryConfig, values?: unknown[]): Promise<QueryResult<R>> {
    if (this.broken !== undefined) throw this.broken;
    return within(this.client.query<R>(textOrConfig, values), this.timeoutMs, () => (this.broken = new DatabaseTimeoutError(this.shownMs)));
  }

  release(error?: Error | boolean): void {
    (this.client as Partial<ErrorEvents>).removeListener?.("error", this.onError);
    this.client.release(this.broken ?? error);
  }
}

/** The part of node-postgres's client events a checked-out client is listened on with. */
interface ErrorEvents {
  on(event: "error", listener: (error: Error) => void): unknown;
  removeListener(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * The pool as the sessions use it: every operation (checking out a
 * connection, then its statement; or each statement of a transaction) ends
 * within `timeoutMs`. A database that accepts connections and never answers
 * (a paused server, a partition behind a proxy) fails the operation instead
 * of holding it for ever: DatabaseUnreachableError before a statement was
 * sent, DatabaseTimeoutError once one was (its outcome unknown).
 */
export function boundedPool(pool: Pool, timeoutMs: number): Pool {
  return {
    connect: async () => new BoundedClient(await connectWithin(pool, timeoutMs), timeoutMs),
    query: async <R extends QueryResultRow = QueryResultRow>(textOrConfig: string | QueryConfig, values?: unknown[]): Promise<QueryResult<R>> => {
      // A monotonic clock: a wall clock stepped by NTP or a resumed VM would end the wait early or never.
      const started = performance.now();
      const client = new BoundedClient(await connectWithin(pool, timeoutMs), Math.max(1, timeoutMs - (performance.now() - started)), timeoutMs);
      try {
        let result: QueryResult<R>;
        for (let attempt = 1; ; attempt++) {
          try {
            result = await client.query<R>(textOrConfig, values);
            break;
          } catch (error) {
            // A statement alone is its own transaction: under a database default of repeatable read or
            // serializable, one that met a concurrent update of its row (a lease renewal) was rolled back whole,
            // and runs again on a fresh snapshot, as read committed would have re-read the row.
            if (errorCode(error) !== SERIALIZATION_FAILURE || attempt === MAX_SERIALIZATION_RETRIES) throw error;
          }
        }
        client.release();
        return result;
      } catch (error) {
        // A connection that failed without the server's answer is not given back to the pool.
        client.release(answeredWithError(error) ? undefined : error instanceof Error ? error : new Error(String(error)));
        throw error;
      }
    },
  };
}
