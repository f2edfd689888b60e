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

/** Runs `work` in one transaction on a client checked out of the pool. */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    const result = await work(client);
    await client.query("commit");
    return result;
  } catch (error) {
    await client.query("rollback").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** node-postgres's code for a unique violation (two writers on one revision). */
export const UNIQUE_VIOLATION = "23505";
/** PostgreSQL's SQLSTATE for a relation that does not exist. */
export const UNDEFINED_TABLE = "42P01";

export function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string" ? (error as { code: string }).code : undefined;
}
