/**
 * The slice of node-postgres (`pg`, an optional peer dependency) this entry
 * point uses: a pool, a client checked out of it, and a query. Only types are
 * imported from `pg`; the host passes its own pool, so no database client is
 * loaded by anything but this entry point, and only when the host uses it.
 */
import type { Pool, PoolClient, QueryResult, QueryResultRow } from "pg";

export type { Pool, PoolClient };

/** A pool, a checked-out client, or a client in a transaction of the caller's. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
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
