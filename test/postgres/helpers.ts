/**
 * A real PostgreSQL server for one test file (scripts/postgres-server.mjs):
 * started before the file's tests with the package's migrations applied,
 * stopped after them. When it cannot start, the file fails with the reason.
 */
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
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
  const wrap = (target: { query: (...args: unknown[]) => Promise<unknown> }): void => {
    const query = target.query.bind(target);
    target.query = (...args: unknown[]) => {
      const config = args[0] as string | { text: string; values?: unknown[] };
      const values = (typeof config === "string" ? args[1] : config.values) as unknown[] | undefined;
      return around(typeof config === "string" ? config : config.text, () => query(...args), values ?? []);
    };
  };
  wrap(pool as unknown as { query: (...args: unknown[]) => Promise<unknown> });
  // The sessions check a connection out and send their statements on it: each client the pool hands out (awaited, not pool.query's own) is wrapped once.
  const wrapped = new WeakSet<object>();
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient> | undefined;
  (pool as unknown as { connect: (...args: unknown[]) => unknown }).connect = (...args: unknown[]) => {
    if (args.length > 0) return connect(...args);
    return (connect() as Promise<pg.PoolClient>).then((client) => {
      if (!wrapped.has(client)) {
        wrapped.add(client);
        wrap(client as unknown as { query: (...args: unknown[]) => Promise<unknown> });
      }
      return client;
    });
  };
}

/**
 * A TCP proxy in front of the server that can hold every byte, both ways, on
 * the connections it carries and on the new ones it accepts: a database that
 * accepts connections and never answers (a paused server, a partition behind
 * a proxy or a load balancer). `pass()` sends what it held and carries on.
 * `refuse()` cuts the connections it carries and every new one at once (a
 * database that is down), until `pass()`.
 */
export interface HoldingProxy {
  readonly port: number;
  hold(): void;
  /** Holds every byte, both ways, of the one connection whose end at the server has this port (`pg_stat_activity.client_port`), the others untouched. */
  holdConnection(serverSidePort: number): void;
  refuse(): void;
  pass(): void;
  close(): Promise<void>;
}

export async function holdingProxy(target: { host: string; port: number }): Promise<HoldingProxy> {
  let holding = false;
  let refusing = false;
  const pipes: Array<{ flush(): void; destroy(): void; upstream: Socket; held: boolean }> = [];
  const server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    const held: Array<[Socket, Buffer]> = [];
    const forward = (to: Socket) => (chunk: Buffer) => {
      if (holding || pipe.held) held.push([to, chunk]);
      else to.write(chunk);
    };
    client.on("data", forward(upstream));
    upstream.on("data", forward(client));
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    const pipe = {
      flush: () => {
        pipe.held = false;
        for (const [to, chunk] of held.splice(0)) to.write(chunk);
      },
      destroy: end,
      upstream,
      held: false,
    };
    pipes.push(pipe);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hold: () => {
      holding = true;
    },
    holdConnection: (serverSidePort) => {
      const pipe = pipes.find((candidate) => candidate.upstream.localPort === serverSidePort);
      if (pipe === undefined) throw new Error(`no connection through the proxy reaches the server from port ${serverSidePort}`);
      pipe.held = true;
    },
    refuse: () => {
      refusing = true;
      for (const pipe of pipes.splice(0)) pipe.destroy();
    },
    pass: () => {
      refusing = false;
      holding = false;
      for (const pipe of pipes) pipe.flush();
    },
    close: async () => {
      refusing = false;
      holding = false;
      for (const pipe of pipes.splice(0)) pipe.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The server's listener connections, found by what they last ran: their LISTEN, or the listener's check since. */
export const LISTENER_BACKENDS_WHERE = "pid <> pg_backend_pid() and (query like 'listen gamma_events%' or query like '/* gamma-prompt listener check */%')";
