/**
 * A real PostgreSQL server for one test file (scripts/postgres-server.mjs):
 * started before the file's tests with the package's migrations applied,
 * stopped after them. When it cannot start, the file fails with the reason.
 */
import pg from "pg";
import { afterAll, afterEach, beforeAll } from "vitest";
import { migratePostgres, type PostgresSessions } from "../../src/runtime-postgres/index.js";
import { startPostgres, type TemporaryPostgres } from "../../scripts/postgres-server.mjs";

export interface PostgresForTests {
  server(): TemporaryPostgres;
  /** A pool on the server (closed after the file's tests). */
  pool(options?: pg.PoolConfig): pg.Pool;
  /** Creates an empty database of that name on the server; pools on it come from `pool({ database: name })`. */
  createDatabase(name: string): Promise<void>;
}

export function usePostgres(options: { migrate?: boolean } = {}): PostgresForTests {
  let server: TemporaryPostgres | undefined;
  const pools: pg.Pool[] = [];
  const pool = (config: pg.PoolConfig = {}): pg.Pool => {
    if (server === undefined) throw new Error("the PostgreSQL server has not started");
    const opened = new pg.Pool({ host: server.host, port: server.port, user: server.user, database: server.database, max: 10, ...config });
    // A pool's idle client that the server drops (a restart) reports here; the tests watch the queries.
    opened.on("error", () => {});
    pools.push(opened);
    return opened;
  };
  beforeAll(async () => {
    server = await startPostgres();
    if (options.migrate !== false) {
      const migrating = pool();
      await migratePostgres(migrating);
    }
  }, 60_000);
  afterAll(async () => {
    await Promise.all(pools.splice(0).map((opened) => opened.end().catch(() => {})));
    await server?.stop();
  }, 60_000);
  return {
    server: () => {
      if (server === undefined) throw new Error("the PostgreSQL server has not started");
      return server;
    },
    pool,
    createDatabase: async (name) => {
      await pool({ database: "postgres" }).query(`create database ${name}`);
    },
  };
}

/** Every server a test starts, closed after it. */
export function closedAfterEach(): PostgresSessions[] {
  const servers: PostgresSessions[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((sessions) => sessions.close()));
  });
  return servers;
}

/** Puts `around` between the pool and each statement it sends (its text, the send itself, and its parameters). */
export function aroundQueries(pool: pg.Pool, around: (text: string, send: () => Promise<unknown>, values: readonly unknown[]) => Promise<unknown>): void {
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  (pool as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args: unknown[]) => {
    const config = args[0] as string | { text: string; values?: unknown[] };
    const values = (typeof config === "string" ? args[1] : config.values) as unknown[] | undefined;
    return around(typeof config === "string" ? config : config.text, () => query(...args), values ?? []);
  };
}
