/**
 * A server's wall clock stepped forward (NTP correcting it, a virtual machine resumed) while a session's
 * write waits for a connection (then for the session row): the write still gets the whole `databaseTimeoutMs` it was given, measured on
 * a monotonic clock. Measured on the wall clock, the step was taken for time spent waiting, the statement got
 * 1 ms, and a healthy write stopped the session as one whose outcome was unknown.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresSessions } from "../../src/runtime-postgres/index.js";
import { artifacts } from "../injections/helpers/gamma.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, toolUse } from "../runtime/helpers/pi.js";
import { fauxPerTest, NO_KNOWLEDGE_HINTS } from "../runtime/helpers/session.js";
import { closedAfterEach, usePostgres } from "./helpers.js";

const db = usePostgres();
const pi = fauxPerTest();
const servers = closedAfterEach();
const wallClock = Date.now;
afterEach(() => {
  Date.now = wallClock;
});

describe("a wall clock stepped forward while a write waits for a connection", () => {
  it("leaves the write its time: the turn is stored", async () => {
    // Two connections: the listener keeps one, the host's own work holds the other.
    const pool = db.pool({ max: 2 });
    const sessions = await PostgresSessions.start({ pool, leaseMs: 5000, databaseTimeoutMs: 5000 });
    servers.push(sessions);
    const hosted = await sessions.openAgent({ sessionKey: "stepped-clock", artifacts, variant: "base", model: pi.faux().getModel(), executors: recordingExecutors(), ...NO_KNOWLEDGE_HINTS });
    const held = await pool.connect();
    // And the session row, as a renewal holds it for a moment: the write, once it has a connection, waits on it.
    const renewal = await db.pool().connect();
    await renewal.query("begin");
    await renewal.query("update gamma_sessions set lease_expires_at = lease_expires_at where session_key = $1", ["stepped-clock"]);
    pi.faux().setResponses([toolUse(fauxToolCall("todo", { tasks: [{ id: "t", title: "Outline", status: "in_progress" }] })), fauxAssistantMessage("Outlined.")]);
    const turn = hosted.agent.prompt(hosted.controller.buildTurnMessages({ text: "Outline the deck" }) as AgentMessage[]).then(
      () => "stored",
      (error: unknown) => String(error),
    );
    for (let tries = 0; pool.waitingCount === 0; tries++) {
      if (tries > 500) throw new Error("the session's write never waited for a connection");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The step: from now on the wall clock reads 20 s later.
    Date.now = () => wallClock() + 20_000;
    await new Promise((resolve) => setTimeout(resolve, 200));
    held.release();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await renewal.query("commit");
    renewal.release();
    expect(await turn).toBe("stored");
    expect(hosted.controller.failure).toBeUndefined();
    Date.now = wallClock;
    await hosted.dispose();
  }, 60_000);
});
