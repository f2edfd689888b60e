/**
 * A database host name with two addresses, neither listening (as `localhost`
 * is on a dual-stack machine): Node refuses the connection with an
 * AggregateError whose own message is empty. What the host and the command
 * line are told names each refused address. No database is needed.
 */
import dns from "node:dns";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DatabaseUnreachableError, PostgresSessions } from "../../src/runtime-postgres/index.js";
import { runCliInProcess } from "../helpers/cli.js";

const HOST = "db.two-addresses.test";
const REFUSED = "connect ECONNREFUSED 127.0.0.1:1; connect ECONNREFUSED 127.0.0.2:1";

/** Resolves HOST to two loopback addresses, nothing listening on port 1 of either; every other name as before. */
function hostWithTwoAddresses(): void {
  const lookup = dns.lookup;
  vi.spyOn(dns, "lookup").mockImplementation(((hostname: string, options: unknown, callback?: unknown) => {
    const done = (typeof options === "function" ? options : callback) as (error: Error | null, address: unknown, family?: number) => void;
    const all = typeof options === "object" && options !== null && (options as { all?: boolean }).all === true;
    if (hostname !== HOST) return (lookup as (...args: unknown[]) => void)(hostname, options, callback);
    if (all) done(null, [{ address: "127.0.0.1", family: 4 }, { address: "127.0.0.2", family: 4 }]);
    else done(null, "127.0.0.1", 4);
  }) as typeof dns.lookup);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a database host whose addresses all refuse the connection", () => {
  it("PostgresSessions.start rejects with DatabaseUnreachableError naming each refused address", async () => {
    hostWithTwoAddresses();
    const pool = new pg.Pool({ host: HOST, port: 1, user: "nobody", database: "none" });
    pool.on("error", () => {});
    try {
      const refused = await PostgresSessions.start({ pool, databaseTimeoutMs: 10_000 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(DatabaseUnreachableError);
      expect((refused as Error).message).toBe(`no database connection: ${REFUSED}; nothing was sent`);
      expect(((refused as Error).cause as Error).constructor.name).toBe("AggregateError");
    } finally {
      await pool.end().catch(() => {});
    }
  });

  it("postgres migrate says each refused address in its one line, and exits 1", async () => {
    hostWithTwoAddresses();
    const refused = await runCliInProcess("postgres", "migrate", "--url", `postgres://nobody@${HOST}:1/none`);
    expect(refused).toEqual({ code: 1, stdout: "", stderr: `gamma-prompt postgres migrate: ${REFUSED}\n` });
  });
});
