// What a server does with what it cannot read as its own: a session's transcript
// written by the other Pi path (openAgent's message list, openSession's entries),
// and rows or events in a form another version of the package wrote. Real Pi
// (Agent and AgentSession), the faux provider and a real PostgreSQL server.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import { PostgresSessions, publishUpdate, SessionLeasedError, SessionPathError, StoredFormatError, type HostedAgent } from "../../src/runtime-postgres/index.js";
import { StateStoreError } from "../../src/runtime/state/errors.js";
import { event } from "../injections/helpers/fixtures.js";
import { artifacts } from "../injections/helpers/gamma.js";
import { fauxAssistantMessage, recordingExecutors, seeing, textOf, type SeenContext } from "../runtime/helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "../runtime/helpers/session.js";
import { closedAfterEach, usePostgres } from "./helpers.js";

const db = usePostgres();
const pi = fauxPerTest();
const servers = closedAfterEach();
let keys = 0;
const newKey = () => `formats-${process.pid}-${++keys}`;

async function server(options: { waitForLeaseMs?: number; onEventRefused?: (refusal: { eventId: string; error: Error }) => void; onError?: (error: unknown, during: string) => void } = {}) {
  const sessions = await PostgresSessions.start({ pool: db.pool(), leaseMs: 2000, ...options });
  servers.push(sessions);
  return sessions;
}

const agentOptions = (sessionKey: string) => ({ sessionKey, artifacts, variant: "base" as const, model: pi.faux().getModel(), executors: recordingExecutors(), ...NO_KNOWLEDGE_HINTS });

async function sessionOptions(sessionKey: string) {
  const setup = await fauxSessionSetup(pi.faux());
  return { sessionKey, artifacts, variant: "base" as const, executors: recordingExecutors(), ...NO_KNOWLEDGE_HINTS, model: setup.model, modelRuntime: setup.modelRuntime, cwd: setup.cwd, agentDir: setup.agentDir };
}

const prompt = (hosted: HostedAgent, text: string) => hosted.agent.prompt(hosted.controller.buildTurnMessages({ text }) as AgentMessage[]);

/** What the database holds of a session: its transcript rows, its lease and its events, to show a refused open changed none of it. */
async function stored(sessionKey: string) {
  const pool = db.pool();
  const transcript = await pool.query("select seq, entry::text as entry from gamma_transcript where session_key = $1 order by seq", [sessionKey]);
  const lease = await pool.query("select lease_owner, lease_token from gamma_sessions where session_key = $1", [sessionKey]);
  const events = await pool.query("select event_id, routed_at is not null as routed, refused_at is not null as refused from gamma_events where session_key = $1 order by seq", [sessionKey]);
  return { transcript: transcript.rows, lease: lease.rows, events: events.rows };
}

describe("a stored session opened on the other Pi path", () => {
  it("written by openAgent, opened with openSession: refused with SessionPathError naming both paths, nothing taken; openAgent resumes the whole conversation", async () => {
    const sessionKey = newKey();
    const first = await (await server()).openAgent(agentOptions(sessionKey));
    pi.faux().setResponses([fauxAssistantMessage("I will remember PELICAN.")]);
    await prompt(first, "Remember the code word PELICAN");
    await first.dispose();
    const pending = event({ kind: "system_note", summary: "Published while nobody hosts the session." });
    await publishUpdate(db.pool(), sessionKey, pending);
    const before = await stored(sessionKey);

    const sessions = await server();
    const refused = await sessions.openSession(await sessionOptions(sessionKey)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SessionPathError);
    expect(refused).toMatchObject({ name: "SessionPathError", sessionKey, storedPath: "openAgent", openedPath: "openSession" });
    expect((refused as Error).message).toBe(
      `Unexpected openSession of session ${sessionKey}, expected openAgent: its stored transcript was written by openAgent (Pi's Agent, a message list), which openSession (Pi's AgentSession, session entries) cannot read; open it with openAgent, or give the openSession session a new key. Nothing was taken: no state read, no event routed, no lease kept`,
    );
    expect(sessions.sessionKeys).toEqual([]);
    expect(await stored(sessionKey)).toEqual(before);
    expect(before.events).toEqual([{ event_id: pending.id, routed: false, refused: false }]);

    const again = await sessions.openAgent(agentOptions(sessionKey));
    expect(again.controller.state.pendingInjections.map((entry) => entry.id)).toEqual([pending.id]);
    const seen: SeenContext[] = [];
    pi.faux().setResponses([seeing(seen, fauxAssistantMessage("PELICAN."))]);
    await prompt(again, "What was the code word?");
    expect(seen[0]?.messages.map(textOf).join("\n")).toContain("Remember the code word PELICAN");
    await again.dispose();
  });

  it("written by openSession, opened with openAgent: refused with SessionPathError before any model call; openSession resumes the conversation", async () => {
    const sessionKey = newKey();
    const options = await sessionOptions(sessionKey);
    const first = await (await server()).openSession(options);
    pi.faux().setResponses([fauxAssistantMessage("I will remember HERON.")]);
    await first.session.prompt("Remember the code word HERON");
    await first.dispose();
    const before = await stored(sessionKey);

    const sessions = await server();
    const refused = await sessions.openAgent(agentOptions(sessionKey)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SessionPathError);
    expect(refused).toMatchObject({ sessionKey, storedPath: "openSession", openedPath: "openAgent" });
    expect(await stored(sessionKey)).toEqual(before);

    const again = await sessions.openSession(options);
    const seen: SeenContext[] = [];
    pi.faux().setResponses([seeing(seen, fauxAssistantMessage("HERON."))]);
    await again.session.prompt("What was the code word?");
    expect(seen[0]?.messages.map(textOf).join("\n")).toContain("Remember the code word HERON");
    await again.dispose();
  });

  it("is refused at once while another server hosts it: no wait for that server's lease, and its host is left alone", async () => {
    const sessionKey = newKey();
    const holder = await (await server()).openAgent(agentOptions(sessionKey));
    pi.faux().setResponses([fauxAssistantMessage("Noted.")]);
    await prompt(holder, "Note this");
    const other = await server({ waitForLeaseMs: 0 });
    const refused = await other.openSession(await sessionOptions(sessionKey)).catch((error: unknown) => error);
    expect(refused).not.toBeInstanceOf(SessionLeasedError);
    expect(refused).toMatchObject({ name: "SessionPathError", storedPath: "openAgent", openedPath: "openSession" });
    const lease = await db.pool().query("select lease_owner, lease_token from gamma_sessions where session_key = $1", [sessionKey]);
    expect(lease.rows).toEqual([{ lease_owner: holder.lease.owner, lease_token: String(holder.lease.token) }]);
    await holder.dispose();
  });
});

/** A session with a few stored state records and transcript rows, let go. */
async function storedSession(): Promise<string> {
  const sessionKey = newKey();
  const hosted = await (await server()).openAgent(agentOptions(sessionKey));
  await publishUpdate(db.pool(), sessionKey, event({ kind: "system_note", summary: "A note." }));
  await hosted.catchUp();
  pi.faux().setResponses([fauxAssistantMessage("Done.")]);
  await prompt(hosted, "Do it");
  await hosted.dispose();
  return sessionKey;
}

async function openRefusal(sessionKey: string): Promise<unknown> {
  const sessions = await server();
  const error = await sessions.openAgent(agentOptions(sessionKey)).catch((thrown: unknown) => thrown);
  expect(sessions.sessionKeys).toEqual([]);
  // The lease was let go: nothing of the session stays held.
  const lease = await db.pool().query("select lease_owner from gamma_sessions where session_key = $1", [sessionKey]);
  expect(lease.rows).toEqual([{ lease_owner: null }]);
  return error;
}

describe("a row in a form another version of the package wrote", () => {
  it("a state record: StoredFormatError naming the record's revision and another version, not a missing record", async () => {
    const sessionKey = await storedSession();
    const records = await db.pool().query<{ revision: number }>("select revision from gamma_state_records where session_key = $1 order by revision", [sessionKey]);
    const revision = records.rows[0]?.revision;
    expect(revision).toBeTypeOf("number");
    // A later format: the record as a jsonb array.
    await db.pool().query(`update gamma_state_records set record = '[2, "record"]'::jsonb where session_key = $1 and revision = $2`, [sessionKey, revision]);
    const error = await openRefusal(sessionKey);
    expect(error).toBeInstanceOf(StoredFormatError);
    expect(error).toBeInstanceOf(StateStoreError);
    expect(error).toMatchObject({ name: "StoredFormatError", sessionKey, row: `state record (gamma_state_records, revision ${revision})`, form: "a jsonb array" });
    expect((error as Error).message).toBe(
      `session ${sessionKey}: Unexpected state record (gamma_state_records, revision ${revision}) stored as a jsonb array, expected a document in a form this version of gamma-prompt reads (a JSON object, or its JSON text in a jsonb string): it was written by another version of the package (or not by gamma-prompt); open the session on a server that runs the version that wrote it, and finish the upgrade (docs/guide/running-across-servers.md)`,
    );

    // JSON text of something other than an object, and an object that is not a record of this row: named the same way.
    await db.pool().query("update gamma_state_records set record = $3::jsonb where session_key = $1 and revision = $2", [sessionKey, revision, JSON.stringify(JSON.stringify([2, "record"]))]);
    expect(await openRefusal(sessionKey)).toMatchObject({ name: "StoredFormatError", form: "JSON text of an array in a jsonb string" });
    await db.pool().query("update gamma_state_records set record = $3::jsonb where session_key = $1 and revision = $2", [sessionKey, revision, JSON.stringify(JSON.stringify({ format: 2, body: "..." }))]);
    const other = await openRefusal(sessionKey);
    expect(other).toMatchObject({ name: "StoredFormatError", row: `state record (gamma_state_records, revision ${revision})` });
    expect((other as Error).message).not.toMatch(/a record is missing/);
  });

  it("a state record of an operation this version does not write, or of a known one without its fields: StoredFormatError naming the row, never skipped", async () => {
    const sessionKey = await storedSession();
    const records = await db.pool().query<{ revision: number }>("select revision from gamma_state_records where session_key = $1 order by revision", [sessionKey]);
    const revision = records.rows[0]?.revision;
    expect(revision).toBeTypeOf("number");
    const row = `state record (gamma_state_records, revision ${revision})`;
    // A later version's record kind: the session would open without that change, and this server write on top of it.
    await db.pool().query("update gamma_state_records set record = $3::jsonb where session_key = $1 and revision = $2", [sessionKey, revision, JSON.stringify({ revision, op: "later-op" })]);
    const later = await openRefusal(sessionKey);
    expect(later).toBeInstanceOf(StoredFormatError);
    expect(later).toMatchObject({ name: "StoredFormatError", sessionKey, row });
    expect((later as Error).message).toContain(`Unexpected ${row} stored as a record holding an operation this version does not write ("later-op"), expected one of`);
    // A known operation without the fields it needs: named the same way, not a TypeError.
    await db.pool().query("update gamma_state_records set record = $3::jsonb where session_key = $1 and revision = $2", [sessionKey, revision, JSON.stringify({ revision, op: "skills" })]);
    const partial = await openRefusal(sessionKey);
    expect(partial).toMatchObject({ name: "StoredFormatError", sessionKey, row });
    expect((partial as Error).message).toContain(`Unexpected ${row} stored as a record holding a "skills" record without add (an array)`);
  });

  it("a snapshot of a later state version: StoredFormatError naming the version, not a broken state", async () => {
    const sessionKey = await storedSession();
    const row = await db.pool().query<{ snapshot: string; snapshot_revision: number }>("select snapshot #>> '{}' as snapshot, snapshot_revision from gamma_sessions where session_key = $1", [sessionKey]);
    const snapshot = JSON.parse(row.rows[0]?.snapshot ?? "null") as Record<string, unknown>;
    await db.pool().query("update gamma_sessions set snapshot = $2::jsonb where session_key = $1", [sessionKey, JSON.stringify(JSON.stringify({ ...snapshot, stateVersion: 2 }))]);
    expect(await openRefusal(sessionKey)).toMatchObject({
      name: "StoredFormatError",
      row: `snapshot (gamma_sessions, revision ${row.rows[0]?.snapshot_revision})`,
      form: "an execution state of stateVersion 2 (this version reads 1)",
    });
  });

  it("a transcript row: StoredFormatError naming its position, never a TypeError at the next model call", async () => {
    const sessionKey = await storedSession();
    await db.pool().query(`update gamma_transcript set entry = '{"type": "message-v2", "parts": []}'::jsonb where session_key = $1 and seq = 1`, [sessionKey]);
    expect(await openRefusal(sessionKey)).toMatchObject({ name: "StoredFormatError", row: "transcript row 1 (gamma_transcript)" });
    await db.pool().query(`update gamma_transcript set entry = '7'::jsonb where session_key = $1 and seq = 1`, [sessionKey]);
    expect(await openRefusal(sessionKey)).toMatchObject({ name: "StoredFormatError", row: "transcript row 1 (gamma_transcript)", form: "a jsonb number" });
  });

  it("a row cut short (a jsonb string that is not JSON text) is named as such, a StateStoreError, not another version's", async () => {
    const sessionKey = await storedSession();
    await db.pool().query("update gamma_transcript set entry = $2::jsonb where session_key = $1 and seq = 1", [sessionKey, JSON.stringify('{"type": "mess')]);
    const error = await openRefusal(sessionKey);
    expect(error).toBeInstanceOf(StateStoreError);
    expect(error).not.toBeInstanceOf(StoredFormatError);
    expect((error as Error).message).toMatch(new RegExp(`^session ${sessionKey}: Unexpected transcript row 1 \\(gamma_transcript\\) that is not JSON text \\(.+\\), expected a document as gamma-prompt stores it: the row was cut short or edited by hand$`));
  });

  it("an event: left unrouted and unrefused for a server that reads it, told to the host once as StoredFormatError; the events after it are routed", async () => {
    const sessionKey = newKey();
    const producer = db.pool();
    const refusals: { eventId: string; error: Error }[] = [];
    const errors: Array<{ error: unknown; during: string }> = [];
    const sessions = await server({ onEventRefused: (refusal) => refusals.push(refusal), onError: (error, during) => errors.push({ error, during }) });
    await producer.query(`insert into gamma_events (session_key, event_id, payload) values ($1, 'later-format', '[2, {"kind": "system_note"}]'::jsonb)`, [sessionKey]);
    const after = event({ kind: "system_note", summary: "Published after the other version's event." });
    await publishUpdate(producer, sessionKey, after);
    const hosted = await sessions.openAgent(agentOptions(sessionKey));
    expect(hosted.controller.state.pendingInjections.map((entry) => entry.id)).toEqual([after.id]);
    // Another pass (a later wake-up) reads it again and tells nothing new.
    const later = event({ kind: "system_note", summary: "Later still." });
    await publishUpdate(producer, sessionKey, later);
    await hosted.catchUp();
    expect(hosted.controller.state.pendingInjections.map((entry) => entry.id)).toEqual([after.id, later.id]);
    expect(refusals).toEqual([]);
    expect(errors.map(({ error, during }) => [during, (error as Error).name, (error as StoredFormatError).row, (error as StoredFormatError).form])).toEqual([
      ["route", "StoredFormatError", 'event "later-format" (gamma_events)', "a jsonb array"],
    ]);
    expect((errors[0]?.error as Error).message).toMatch(/: it was written by another version of the package \(or not by gamma-prompt\); the event is left unrouted for a server that runs the version that wrote it, and finish the upgrade/);
    const rows = await producer.query("select event_id, routed_at is not null as routed, refused_at is not null as refused from gamma_events where session_key = $1 order by seq", [sessionKey]);
    expect(rows.rows).toEqual([
      { event_id: "later-format", routed: false, refused: false },
      { event_id: after.id, routed: true, refused: false },
      { event_id: later.id, routed: true, refused: false },
    ]);
    await hosted.dispose();
  });
});
