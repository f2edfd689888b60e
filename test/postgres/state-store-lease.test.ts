/**
 * `PostgresStateStore` for a host that keeps leases of its own, on a real
 * PostgreSQL server: the lease read back from gamma_sessions with
 * node-postgres (which reads the bigint lease_token as its decimal digits)
 * is taken as it comes, and its writes are fenced by that token.
 */
import { describe, expect, it } from "vitest";
import { LeaseLostError, PostgresStateStore } from "../../src/runtime-postgres/index.js";
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
