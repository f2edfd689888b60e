// A database that accepts connections and never answers (a paused server, a
// partition behind a proxy), a statement whose answer never comes back in
// time, and a database that turns read-only after the server started: on a
// real PostgreSQL server, through a TCP proxy that holds every byte.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { afterEach, describe, expect, it } from "vitest";
import {
  DatabaseReadOnlyError,
  DatabaseRolledBackError,
  DatabaseTimeoutError,
  LeaseNotReleasedError,
  LeaseUnconfirmedError,
  ListenerUnansweredError,
  migratePostgres,
  PostgresSessions,
  publishUpdate,
  type HostedAgent,
  type PostgresSessionsOptions,
} from "../../src/runtime-postgres/index.js";
import { StateConflictError, StateWriteFailedError } from "../../src/runtime/state/errors.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { event } from "../injections/helpers/fixtures.js";
import { artifacts } from "../injections/helpers/gamma.js";
import { fauxAssistantMessage, recordingExecutors } from "../runtime/helpers/pi.js";
import { fauxPerTest, NO_KNOWLEDGE_HINTS } from "../runtime/helpers/session.js";
import { boundedPool, inTransaction } from "../../src/runtime-postgres/database.js";
import { databaseFailure } from "../../src/runtime-postgres/errors.js";
import { aroundQueries, holdingProxy, LISTENER_BACKENDS_WHERE, usePostgres, type HoldingProxy } from "./helpers.js";

const db = usePostgres();
const pi = fauxPerTest();
let keys = 0;
const newKey = () => `unanswered-${process.pid}-${++keys}`;

/** What each test started: the proxy is let go first, so nothing is left waiting on it. */
const proxies: HoldingProxy[] = [];
const servers: PostgresSessions[] = [];
afterEach(async () => {
  for (const proxy of proxies) proxy.pass();
  await Promise.allSettled(servers.splice(0).map((sessions) => sessions.close()));
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

/** A server whose pool reaches the database through a proxy that can hold every byte. */
async function serverBehindProxy(options: Partial<PostgresSessionsOptions> = {}) {
  const proxy = await holdingProxy({ host: db.server().host, port: db.server().port });
  proxies.push(proxy);
  const pool = db.pool({ host: "127.0.0.1", port: proxy.port });
  const reported: Array<[unknown, string]> = [];
  const sessions = await PostgresSessions.start({ pool, leaseMs: 3000, databaseTimeoutMs: 1000, onError: (error, during) => reported.push([error, during]), ...options });
  servers.push(sessions);
  return { proxy, pool, sessions, reported };
}

async function hostAgent(sessions: PostgresSessions, sessionKey: string, events: ProtocolEvent[] = []): Promise<HostedAgent> {
  return sessions.openAgent({ sessionKey, artifacts, variant: "base", model: pi.faux().getModel(), executors: recordingExecutors(), onProtocolEvent: (e) => events.push(e), ...NO_KNOWLEDGE_HINTS });
}

const prompt = (hosted: HostedAgent, text: string) => hosted.agent.prompt(hosted.controller.buildTurnMessages({ text }) as AgentMessage[]);
const settled = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ value, error: undefined as unknown }),
    (error: unknown) => ({ value: undefined, error }),
  );
const until = async (check: () => boolean | Promise<boolean>, what: string, ms = 30_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The faux model's answers, in order; `calls` counts the model calls that went out. */
function countedAnswers(...texts: string[]): { readonly calls: number } {
  const counter = { calls: 0 };
  pi.faux().setResponses(texts.map((text) => () => (counter.calls++, fauxAssistantMessage(text))));
  return counter;
}

describe("a database that accepts connections and never answers", () => {
  it("fails the run's write (the host is told once, no model call goes out), tells every failed lease renewal, and dispose() and close() settle saying the lease was not let go", async () => {
    const { proxy, sessions, reported } = await serverBehindProxy();
    const sessionKey = newKey();
    const events: ProtocolEvent[] = [];
    const hosted = await hostAgent(sessions, sessionKey, events);
    const model = countedAnswers("answered");
    proxy.hold();
    // Long enough for the pool's idle connections to be of no help: the writes need new ones, which never finish their handshake.
    await sleep(1500);
    const run = await settled(prompt(hosted, "During the hang"));
    expect(run.error).toBeInstanceOf(StateWriteFailedError);
    expect((run.error as Error).message).toMatch(/^The store (did not confirm|could not be reached for) the write of /);
    expect(events.filter((candidate) => candidate.type === "state_write_failed")).toHaveLength(1);
    expect(model.calls).toBe(0);
    // Each renewal that fails is told, not only the first.
    await until(() => reported.filter(([, during]) => during === "renew").length >= 3, "three renewals told");
    const disposed = await settled(hosted.dispose());
    expect(disposed.error).toBeInstanceOf(LeaseNotReleasedError);
    expect((disposed.error as Error).message).toContain(`lease of session ${sessionKey}`);
    // A second session, left to close(): it settles too, and says what it could not do.
    proxy.pass();
    const other = await hostAgent(sessions, newKey());
    proxy.hold();
    const closed = await settled(sessions.close());
    expect(closed.error).toBeInstanceOf(LeaseNotReleasedError);
    expect((closed.error as LeaseNotReleasedError).sessionKey).toBe(other.sessionKey);
    expect(model.calls).toBe(0);
  }, 60_000);

  it("sends no model call for a session whose lease it could not confirm for the lease's length, even once the database answers again", async () => {
    // Writes get a long time; the lease is short and its renewals fail (each gets under the time between renewals).
    const { proxy, sessions, reported } = await serverBehindProxy({ leaseMs: 600, databaseTimeoutMs: 20_000 });
    const sessionKey = newKey();
    const events: ProtocolEvent[] = [];
    const hosted = await hostAgent(sessions, sessionKey, events);
    const model = countedAnswers("answered");
    proxy.hold();
    await until(() => reported.filter(([, during]) => during === "renew").length >= 4, "renewals failing past the lease");
    const running = settled(prompt(hosted, "After the lease ran out unconfirmed"));
    // The database answers again while the run would wait for its writes: the lease it could not confirm still stops it.
    await sleep(200);
    proxy.pass();
    const run = await running;
    expect(run.error).toBeInstanceOf(StateWriteFailedError);
    const cause = (run.error as StateWriteFailedError).cause;
    expect(cause).toBeInstanceOf(LeaseUnconfirmedError);
    expect(cause).toBeInstanceOf(StateConflictError);
    expect((run.error as StateWriteFailedError).conflict).toBe(true);
    expect(model.calls).toBe(0);
    expect(events.filter((candidate) => candidate.type === "state_write_failed")).toHaveLength(1);
    await hosted.dispose();
  }, 60_000);
});

/** Runs `body` while the given session's state records wait `seconds` at the database before they are stored. */
async function withHeldRecords(sessionKey: string, seconds: number, body: (admin: ReturnType<typeof db.pool>) => Promise<void>): Promise<void> {
  const admin = db.pool();
  await admin.query(`create or replace function held_record() returns trigger language plpgsql as $$ begin if new.session_key = '${sessionKey}' then perform pg_sleep(${seconds}); end if; return new; end $$`);
  await admin.query("create trigger held_record before insert on gamma_state_records for each row execute function held_record()");
  try {
    await body(admin);
  } finally {
    await admin.query("drop trigger held_record on gamma_state_records");
  }
}

describe("a write the database does not answer in time", () => {
  it("is told as not confirmed, its outcome unknown, not as refused; the reopened session loads what was stored", async () => {
    const sessionKey = newKey();
    // The session's state records take longer than the server waits, and are stored all the same.
    await withHeldRecords(sessionKey, 1.5, async (admin) => {
      const pool = db.pool();
      const sessions = await PostgresSessions.start({ pool, leaseMs: 3000, databaseTimeoutMs: 500 });
      servers.push(sessions);
      const hosted = await hostAgent(sessions, sessionKey);
      const failure = await settled(Promise.resolve().then(() => hosted.controller.updateTasks([{ id: "t1", title: "Outline the deck", status: "in_progress" }])).then(() => hosted.controller.flush()));
      expect(failure.error).toBeInstanceOf(StateWriteFailedError);
      const message = (failure.error as Error).message;
      expect(message).toMatch(/^The store did not confirm the write of revision \d+ \(session .*: Unexpected database failure \(the database did not answer within 500 ms\), expected the write stored\): whether it was stored is unknown; the session stopped: dispose it and reopen it from the store, which loads whatever was stored$/);
      expect(message).not.toContain("refused");
      await hosted.dispose().catch(() => {});
      await until(async () => (await admin.query("select 1 from gamma_state_records where session_key = $1", [sessionKey])).rowCount === 1, "the record stored after all");
      const reopened = await hostAgent(await PostgresSessions.start({ pool: db.pool(), leaseMs: 3000 }).then((other) => (servers.push(other), other)), sessionKey);
      expect(reopened.controller.state.tasks.items.map((task) => task.id)).toEqual(["t1"]);
      await reopened.dispose();
    });
  }, 60_000);
});

describe("a connection lost under a statement the sessions sent", () => {
  it("fails the write and is told, and never ends the host's process with the client's error event", async () => {
    const sessionKey = newKey();
    // The session's state record is held at the database long enough to cut its connection under it.
    await withHeldRecords(sessionKey, 5, async (admin) => {
      const sessions = await PostgresSessions.start({ pool: db.pool(), leaseMs: 3000, databaseTimeoutMs: 20_000 });
      servers.push(sessions);
      const hosted = await hostAgent(sessions, sessionKey);
      const write = settled(Promise.resolve().then(() => hosted.controller.updateTasks([{ id: "t1", title: "Outline the deck", status: "in_progress" }])).then(() => hosted.controller.flush()));
      await until(async () => (await admin.query("select 1 from pg_stat_activity where query like '%gamma_state_records%' and wait_event = 'PgSleep'")).rowCount === 1, "the write held at the database");
      await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where query like '%gamma_state_records%' and wait_event = 'PgSleep'");
      const failure = await write;
      expect(failure.error).toBeInstanceOf(StateWriteFailedError);
      await hosted.dispose().catch(() => {});
    });
  }, 60_000);
});

describe("a listener connection that goes quiet without ending", () => {
  it("is noticed by its check, told, and replaced; the events published meanwhile reach the session", async () => {
    const { proxy, sessions, reported } = await serverBehindProxy();
    const sessionKey = newKey();
    const hosted = await hostAgent(sessions, sessionKey);
    const admin = db.pool();
    // Only the listener's connection is held: a NAT that forgot it, a partition of that one connection. Renewals and routing go on.
    const [listener] = (await admin.query(`select client_port from pg_stat_activity where ${LISTENER_BACKENDS_WHERE}`)).rows as Array<{ client_port: number }>;
    expect(listener).toBeDefined();
    proxy.holdConnection(listener!.client_port);
    const missed = event({ kind: "system_note", summary: "Published while the listener's connection was quiet." });
    await publishUpdate(admin, sessionKey, missed);
    await until(() => hosted.controller.state.pendingInjections.some((entry) => entry.id === missed.id), "the event published while the listener was quiet");
    const told = reported.filter(([, during]) => during === "listen").map(([error]) => error);
    expect(told.length).toBeGreaterThanOrEqual(1);
    expect(told[0]).toBeInstanceOf(ListenerUnansweredError);
    expect((told[0] as Error).message).toContain("expected an answer to its check within 1000 ms");
    // The new listener hears what is published next at once, through NOTIFY.
    const next = event({ kind: "system_note", summary: "Published after the listener was replaced." });
    await publishUpdate(admin, sessionKey, next);
    await until(() => hosted.controller.state.pendingInjections.some((entry) => entry.id === next.id), "the event published after the listener was replaced");
    expect(reported.filter(([, during]) => during !== "listen")).toEqual([]);
    await hosted.dispose();
  });
});

describe("a database that turns read-only after the server started", () => {
  it("refuses an open and a publish with DatabaseReadOnlyError, as start() does", async () => {
    await db.createDatabase("turns_read_only");
    const admin = db.pool({ database: "turns_read_only" });
    await migratePostgres(admin);
    const pool = db.pool({ database: "turns_read_only" });
    const sessions = await PostgresSessions.start({ pool, leaseMs: 3000 });
    servers.push(sessions);
    // A failover to a standby, as far as the sessions can tell: every new connection is read-only, the old ones are gone.
    await admin.query("alter database turns_read_only set default_transaction_read_only = on");
    await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = 'turns_read_only' and pid <> pg_backend_pid()");
    const opened = await settled(hostAgent(sessions, newKey()));
    expect(opened.error).toBeInstanceOf(DatabaseReadOnlyError);
    const producer = db.pool({ database: "turns_read_only" });
    const published = await settled(publishUpdate(producer, newKey(), event({ kind: "system_note", summary: "Published to a standby." })));
    expect(published.error).toBeInstanceOf(DatabaseReadOnlyError);
    expect((published.error as Error).message).not.toContain("SELECT");
  }, 60_000);
});

describe("a lease left unconfirmed while the database was away", () => {
  it("is confirmed before the next model call once the database is back: a session idle through an outage longer than the lease goes on", async () => {
    const { proxy, sessions } = await serverBehindProxy({ leaseMs: 3000, databaseTimeoutMs: 1000 });
    const hosted = await hostAgent(sessions, newKey());
    const model = countedAnswers("before", "after");
    await prompt(hosted, "Before the outage");
    proxy.refuse();
    await sleep(3500);
    proxy.pass();
    // Prompted before the next renewal is due: nobody took the lease, so the renewal sent first confirms it.
    const run = await settled(prompt(hosted, "After the outage"));
    expect(run.error).toBeUndefined();
    expect(model.calls).toBe(2);
    await hosted.dispose();
  }, 60_000);

  it("stops the session, nothing written, when the renewal sent to confirm it gets no connection, and says so", async () => {
    const { proxy, sessions } = await serverBehindProxy({ leaseMs: 3000, databaseTimeoutMs: 1000 });
    const hosted = await hostAgent(sessions, newKey());
    const model = countedAnswers("before");
    await prompt(hosted, "Before the outage");
    proxy.refuse();
    await sleep(3500);
    // The transcript is stored (before every model call) only once the lease is confirmed.
    const run = await settled(hosted.syncTranscript());
    expect(run.error).toBeInstanceOf(StateWriteFailedError);
    const cause = (run.error as StateWriteFailedError).cause;
    expect(cause).toBeInstanceOf(LeaseUnconfirmedError);
    expect((cause as Error).message).toContain("the renewal sent to confirm it failed (no database connection: ");
    expect((cause as Error).message).not.toContain("did not answer");
    expect((run.error as Error).message).toContain("held back, nothing sent");
    expect(model.calls).toBe(1);
    proxy.pass();
    await hosted.dispose();
  }, 60_000);
});

describe("a database that answers lease renewals slowly", () => {
  it("keeps the lease when each renewal is answered later than a third of the lease, as long as a write may take", async () => {
    const pool = db.pool();
    let slow = false;
    aroundQueries(pool, async (text, send) => {
      const result = await send();
      if (slow && /set lease_expires_at = now\(\) \+/.test(text)) await sleep(900);
      return result;
    });
    const reported: Array<[unknown, string]> = [];
    const sessions = await PostgresSessions.start({ pool, leaseMs: 3000, databaseTimeoutMs: 5000, onError: (error, during) => reported.push([error, during]) });
    servers.push(sessions);
    const hosted = await hostAgent(sessions, newKey());
    const model = countedAnswers("before", "after");
    await prompt(hosted, "Before the renewals slow down");
    slow = true;
    await sleep(4000);
    const run = await settled(prompt(hosted, "With slow renewals"));
    expect(run.error).toBeUndefined();
    expect(model.calls).toBe(2);
    expect(reported.filter(([error]) => error instanceof DatabaseTimeoutError)).toEqual([]);
    await hosted.dispose();
  }, 60_000);

  it("gives a short lease's renewals at least databaseTimeoutMs, not a fraction of the 50 ms between them", async () => {
    const pool = db.pool();
    let answered = 0;
    aroundQueries(pool, async (text, send) => {
      const result = await send();
      if (/set lease_expires_at = now\(\) \+/.test(text)) {
        await sleep(60);
        answered++;
      }
      return result;
    });
    const reported: Array<[unknown, string]> = [];
    const sessions = await PostgresSessions.start({ pool, leaseMs: 150, onError: (error, during) => reported.push([error, during]) });
    servers.push(sessions);
    const hosted = await hostAgent(sessions, newKey());
    await until(() => answered >= 5, "five renewals answered");
    expect(reported.filter(([error]) => error instanceof DatabaseTimeoutError)).toEqual([]);
    await hosted.dispose();
  }, 60_000);
});

describe("a transaction the database does not answer in time", () => {
  it("is not stored when a statement before its commit times out (outcome unsent); only a commit that times out leaves it unknown", async () => {
    const admin = db.pool();
    await admin.query("create table tx_probe (id integer)");
    await admin.query("create function slow_probe() returns trigger language plpgsql as $$ begin perform pg_sleep(1.5); return new; end $$");
    await admin.query("create constraint trigger slow_probe after insert on tx_probe deferrable initially deferred for each row when (new.id = 2) execute function slow_probe()");
    const bounded = boundedPool(db.pool(), 500);
    const beforeCommit = await settled(
      inTransaction(bounded, async (client) => {
        await client.query("insert into tx_probe values (1)");
        await client.query("select pg_sleep(1.5)");
      }),
    );
    expect(beforeCommit.error).toBeInstanceOf(DatabaseRolledBackError);
    expect(databaseFailure("k", beforeCommit.error, "the write stored").outcome).toBe("unsent");
    const onCommit = await settled(inTransaction(bounded, async (client) => void (await client.query("insert into tx_probe values (2)"))));
    expect(onCommit.error).toBeInstanceOf(DatabaseTimeoutError);
    expect(databaseFailure("k", onCommit.error, "the write stored").outcome).toBe("unknown");
    // The commit went through after all; the transaction whose statement timed out was rolled back.
    await until(async () => (await admin.query("select 1 from tx_probe where id = 2")).rowCount === 1, "the committed row");
    await until(async () => (await admin.query("select 1 from pg_stat_activity where query like '%pg_sleep(1.5)%' and pid <> pg_backend_pid() and state = 'active'")).rowCount === 0, "the rolled back statement over");
    expect((await admin.query("select id from tx_probe order by id")).rows).toEqual([{ id: 2 }]);
  }, 60_000);
});

describe("the server's bounded pools", () => {
  it("are not reachable by the host: it gives its own pool, and the server bounds what it sends", async () => {
    const sessions = await PostgresSessions.start({ pool: db.pool(), leaseMs: 3000 });
    servers.push(sessions);
    expect("db" in sessions).toBe(false);
    expect("renewDb" in sessions).toBe(false);
  });
});
