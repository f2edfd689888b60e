/**
 * `PostgresStateStore` for a host that keeps leases of its own, on a real
 * PostgreSQL server: the lease read back from gamma_sessions with
 * node-postgres (which reads the bigint lease_token as its decimal digits)
 * is taken as it comes, and its writes are fenced by that token.
 */
import { describe, expect, it } from "vitest";
import { LeaseLostError, PostgresStateStore } from "../../src/runtime-postgres/index.js";
import { StateConflictError } from "../../src/runtime/state/errors.js";
import type { ExecutionState } from "../../src/runtime/execution-state.js";
import { initialState } from "../../src/runtime/state/opening.js";
import { artifacts } from "../injections/helpers/gamma.js";
import { usePostgres } from "./helpers.js";

const db = usePostgres();

/** The session's row as the host's own lease taking wrote it (owner host-1, token 7), read back as node-postgres reads it. */
async function leasedRow(sessionKey: string): Promise<{ session_key: string; lease_owner: string; lease_token: unknown }> {
  const pool = db.pool();
  await pool.query("insert into gamma_sessions (session_key, variant, lease_owner, lease_token, lease_expires_at) values ($1, 'base', 'host-1', 7, now() + interval '1 hour')", [sessionKey]);
  const read = await pool.query<{ session_key: string; lease_owner: string; lease_token: unknown }>("select session_key, lease_owner, lease_token from gamma_sessions where session_key = $1", [sessionKey]);
  return read.rows[0] as { session_key: string; lease_owner: string; lease_token: unknown };
}

const records = async (sessionKey: string) => (await db.pool().query<{ n: number }>("select count(*)::integer as n from gamma_state_records where session_key = $1", [sessionKey])).rows[0]?.n;

describe("a PostgresStateStore given the lease as gamma_sessions holds it", () => {
  it("takes lease_token as node-postgres reads it (its decimal digits): the state is saved, a record appended and both loaded back", async () => {
    const row = await leasedRow("own-lease-1");
    expect(row.lease_token).toBe("7");
    const store = new PostgresStateStore(db.pool(), { sessionKey: row.session_key, owner: row.lease_owner, token: row.lease_token as string });
    const state = initialState(artifacts, "base");
    await store.save(state);
    await store.appendMany([{ op: "artifacts", artifacts: [{ ref: "file:brief.gml" }], revision: state.revision + 1 }], () => state);
    const loaded = await store.load();
    expect(loaded?.revision).toBe(state.revision + 1);
    expect(loaded?.currentArtifacts).toEqual([{ ref: "file:brief.gml" }]);
    expect(await records("own-lease-1")).toBe(1);
  });

  it("fences the writes by that token: digits of another token write nothing (LeaseLostError)", async () => {
    const row = await leasedRow("own-lease-2");
    const holder = new PostgresStateStore(db.pool(), { sessionKey: row.session_key, owner: row.lease_owner, token: row.lease_token as string });
    const state = initialState(artifacts, "base");
    await holder.save(state);
    const stale = new PostgresStateStore(db.pool(), { sessionKey: row.session_key, owner: row.lease_owner, token: "6" });
    await expect(stale.appendMany([{ op: "artifacts", artifacts: [{ ref: "file:late.gml" }], revision: state.revision + 1 }], () => state as ExecutionState)).rejects.toThrow(LeaseLostError);
    expect(await records("own-lease-2")).toBe(0);
  });
});

describe("two writers on one lease, once the records are folded into a snapshot", () => {
  /** A record of the task list: what a session's `todo` writes. */
  const tasks = (revision: number, id: string) => ({ op: "tasks" as const, tasks: { revision, items: [{ id, title: id, status: "in_progress" as const }] }, revision });

  it("refuses the writer that is behind (StateConflictError) and stores nothing of it: alone, folding, and sent with other sessions' writes", async () => {
    const row = await leasedRow("own-lease-3");
    const lease = { sessionKey: row.session_key, owner: row.lease_owner, token: row.lease_token as string };
    const ahead = new PostgresStateStore(db.pool(), lease, { compactAfterRecords: 2 });
    const behind = new PostgresStateStore(db.pool(), lease, { compactAfterRecords: 2 });
    const state = initialState(artifacts, "base");
    await ahead.save(state);
    expect(await behind.load()).toEqual(state);
    // Three changes: the third folds the records into a snapshot at revision 3 and deletes their rows.
    let current: ExecutionState = state;
    for (const revision of [1, 2, 3]) {
      const record = tasks(revision, `a${revision}`);
      await ahead.appendMany([record], () => current);
      current = (await ahead.load()) as ExecutionState;
    }
    expect(await records("own-lease-3")).toBe(0);

    // The writer behind still thinks revision 1 is next: alone, as a record or folding into a snapshot.
    await expect(behind.appendMany([tasks(1, "b1")], () => state)).rejects.toThrow(StateConflictError);
    const folding = new PostgresStateStore(db.pool(), lease, { compactAfterRecords: 1 });
    await expect(folding.appendMany([tasks(1, "b1"), tasks(2, "b2")], () => state)).rejects.toThrow(/Unexpected revision 1 when revision 3 is stored already, by another writer on this lease/);
    // Sent with other sessions' writes, in one statement: one server's pool, more writes at once than go out alone.
    const server = db.pool();
    const others = await Promise.all(["own-lease-4", "own-lease-5", "own-lease-6"].map(async (key) => {
      const other = await leasedRow(key);
      const store = new PostgresStateStore(server, { sessionKey: other.session_key, owner: other.lease_owner, token: other.lease_token as string });
      await store.save(state);
      return store;
    }));
    const together = new PostgresStateStore(server, lease);
    const statements: string[] = [];
    const query = server.query.bind(server);
    server.query = ((config: unknown, ...rest: unknown[]) => {
      statements.push(typeof config === "object" && config !== null && "name" in config ? String(config.name) : "");
      return (query as (...args: unknown[]) => unknown)(config, ...rest);
    }) as typeof server.query;
    const outcomes = await Promise.allSettled([...others.map((store) => store.appendMany([tasks(1, "o1")], () => state)), together.appendMany([tasks(1, "b1")], () => state)]);
    expect(statements).toContain("gamma-prompt-append-records-together");
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "rejected"]);
    expect((outcomes[3] as PromiseRejectedResult).reason).toBeInstanceOf(StateConflictError);

    const reopened = await new PostgresStateStore(db.pool(), lease).load();
    expect(reopened?.revision).toBe(3);
    expect(reopened?.tasks.items.map((task) => task.id)).toEqual(["a3"]);
  });
});
