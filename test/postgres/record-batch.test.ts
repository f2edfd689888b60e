// State writes of several sessions on one server, made while another is on its
// way, go out together in one statement: each session is still fenced by its
// own lease (owner and token), and one session's lost lease or taken revision leaves the
// others' writes stored.
import { describe, expect, it } from "vitest";
import { LeaseLostError, PostgresSessions, type HostedAgent } from "../../src/runtime-postgres/index.js";
import { StateConflictError } from "../../src/runtime/state/errors.js";
import { artifacts } from "../injections/helpers/gamma.js";
import { recordingExecutors } from "../runtime/helpers/pi.js";
import { fauxPerTest, NO_KNOWLEDGE_HINTS } from "../runtime/helpers/session.js";
import { aroundQueries, closedAfterEach, usePostgres } from "./helpers.js";

const db = usePostgres();
const pi = fauxPerTest();
const servers = closedAfterEach();
let keys = 0;

/** One server hosting `count` sessions on one pool; the statements it sends are counted. */
async function hostMany(count: number) {
  const pool = db.pool();
  const statements: string[] = [];
  aroundQueries(pool, (text, send) => {
    statements.push(text);
    return send();
  });
  const sessions = await PostgresSessions.start({ pool, leaseMs: 5000 });
  servers.push(sessions);
  const hosted: HostedAgent[] = [];
  for (let index = 0; index < count; index++) {
    hosted.push(await sessions.openAgent({ sessionKey: `batch-${process.pid}-${++keys}`, artifacts, variant: "base", model: pi.faux().getModel(), executors: recordingExecutors(), ...NO_KNOWLEDGE_HINTS }));
  }
  statements.length = 0;
  return { hosted, statements };
}

/** One durable change on every session at once; each session's flush, settled. */
async function changeAll(hosted: readonly HostedAgent[]) {
  for (const [index, session] of hosted.entries()) session.controller.setCurrentArtifacts([{ ref: `gamma:file:g_1:d_${index}`, path: `decks/deck-${index}.gml`, revision: `rev_${index}` }]);
  return Promise.allSettled(hosted.map((session) => session.controller.flush()));
}

const storedRevisions = async (session: HostedAgent) =>
  (await db.pool().query<{ revision: number }>("select revision from gamma_state_records where session_key = $1 order by revision", [session.sessionKey])).rows.map((row) => row.revision);

describe("state writes of several sessions at once", () => {
  it("go out together, fewer statements than writes, and each session's records are stored", async () => {
    const { hosted, statements } = await hostMany(6);
    const before = await Promise.all(hosted.map(storedRevisions));
    const settled = await changeAll(hosted);
    expect(settled.map((result) => result.status)).toEqual(Array(6).fill("fulfilled"));
    expect(statements.filter((text) => text.includes("gamma_state_records")).length).toBeLessThan(6);
    for (const [index, session] of hosted.entries()) {
      expect(await storedRevisions(session)).toEqual([...(before[index] ?? []), session.controller.state.revision]);
    }
    await Promise.all(hosted.map((session) => session.dispose()));
  });

  it.each([
    ["by its own token: a session taken over", "lease_token = lease_token + 1"],
    ["by its owner too: a session whose lease was let go (its token kept)", "lease_owner = null, lease_expires_at = now()"],
  ])("fence each session %s stores nothing and fails, the others are stored", async (_case, lost) => {
    const { hosted } = await hostMany(6);
    const taken = hosted[5] as HostedAgent;
    await db.pool().query(`update gamma_sessions set ${lost} where session_key = $1`, [taken.sessionKey]);
    const before = await storedRevisions(taken);
    const settled = await changeAll(hosted);
    expect(settled.slice(0, 5).map((result) => result.status)).toEqual(Array(5).fill("fulfilled"));
    expect(taken.controller.failure?.cause).toBeInstanceOf(LeaseLostError);
    expect(await storedRevisions(taken)).toEqual(before);
    for (const session of hosted.slice(0, 5)) expect((await storedRevisions(session)).at(-1)).toBe(session.controller.state.revision);
    await Promise.all(hosted.map((session) => session.dispose()));
  });

  it("refused together when one revision is taken: that session gets its conflict, the others are stored alone", async () => {
    const { hosted } = await hostMany(6);
    const conflicted = hosted[5] as HostedAgent;
    const next = conflicted.controller.state.revision + 1;
    await db.pool().query("insert into gamma_state_records (session_key, revision, record) values ($1, $2, '{}'::jsonb)", [conflicted.sessionKey, next]);
    const settled = await changeAll(hosted);
    expect(settled.slice(0, 5).map((result) => result.status)).toEqual(Array(5).fill("fulfilled"));
    expect(conflicted.controller.failure?.cause).toBeInstanceOf(StateConflictError);
    for (const session of hosted.slice(0, 5)) expect((await storedRevisions(session)).at(-1)).toBe(session.controller.state.revision);
    await Promise.all(hosted.map((session) => session.dispose()));
  });
});
