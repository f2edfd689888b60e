/**
 * A routing write that fails and stops the session (here a deadlock between the host's own transaction and
 * the write that marks an event routed, which PostgreSQL resolves by rolling the runtime's statement back)
 * is told once, as every write that stops a session is: by `state_write_failed` and the calls it fails,
 * not a third time through `onError`.
 */
import { describe, expect, it } from "vitest";
import { PostgresSessions, publishUpdate } from "../../src/runtime-postgres/index.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { event } from "../injections/helpers/fixtures.js";
import { artifacts } from "../injections/helpers/gamma.js";
import { recordingExecutors } from "../runtime/helpers/pi.js";
import { fauxPerTest, NO_KNOWLEDGE_HINTS } from "../runtime/helpers/session.js";
import { aroundQueries, closedAfterEach, usePostgres } from "./helpers.js";

const db = usePostgres();
const pi = fauxPerTest();
const servers = closedAfterEach();

describe("a routing write stopped by a deadlock", () => {
  it("stops the session, told by state_write_failed and the catch-up it fails, and not again through onError", async () => {
    const pool = db.pool();
    // The routing write waits until the host holds the event's row, whenever the event's notice wakes the session.
    let hostHoldsTheRow = (): void => {};
    const held = new Promise<void>((resolve) => (hostHoldsTheRow = resolve));
    aroundQueries(pool, async (text, send) => {
      if (/routed_at = now\(\)/.test(text)) await held;
      return send();
    });
    const errors: string[] = [];
    const sessions = await PostgresSessions.start({ pool, leaseMs: 5000, onError: (error, during) => errors.push(`${during}: ${String(error)}`) });
    servers.push(sessions);
    const sessionKey = "deadlocked-routing";
    const events: ProtocolEvent[] = [];
    const hosted = await sessions.openAgent({ sessionKey, artifacts, variant: "base", model: pi.faux().getModel(), executors: recordingExecutors(), onProtocolEvent: (told) => events.push(told), ...NO_KNOWLEDGE_HINTS });
    const host = await db.pool().connect();
    try {
      // The host locks the event's row, the session's routing write waits for it holding the session row,
      // then the host asks for the session row: a deadlock, which PostgreSQL breaks after deadlock_timeout.
      await publishUpdate(host, sessionKey, event({ id: "evt_deadlock" }));
      await host.query("begin");
      await host.query("update gamma_events set payload = payload where session_key = $1", [sessionKey]);
      hostHoldsTheRow();
      const caughtUp = hosted.catchUp().then(
        () => "routed",
        (error: unknown) => (error as Error).name,
      );
      const waiting = async () => (await pool.query<{ n: number }>("select count(*)::integer as n from pg_stat_activity where wait_event_type = 'Lock'")).rows[0]?.n ?? 0;
      for (let tries = 0; (await waiting()) === 0; tries++) {
        if (tries > 500) throw new Error("the routing write never waited on the event's row");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const hostOutcome = await host.query("select 1 from gamma_sessions where session_key = $1 for update", [sessionKey]).then(
        () => "host got the row",
        (error: unknown) => `host failed: ${(error as { code?: string }).code}`,
      );
      await host.query(hostOutcome === "host got the row" ? "commit" : "rollback");
      const outcome = await caughtUp;
      if (hostOutcome !== "host got the row") {
        // PostgreSQL chose the host's statement this time: the session routed the event and goes on.
        expect(outcome).toBe("routed");
        expect(hosted.controller.failure).toBeUndefined();
        return;
      }
      expect(outcome).toBe("StateWriteFailedError");
      expect(hosted.controller.failure).toBeDefined();
      expect(events.filter((told) => told.type === "state_write_failed")).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(errors).toEqual([]);
    } finally {
      host.release();
      await hosted.dispose().catch(() => {});
    }
  }, 60_000);
});
