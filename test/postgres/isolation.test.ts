/**
 * A database whose default isolation is serializable or repeatable read (a common setting for an
 * application's own transactions): the sessions keep working. Their writes are fenced by the session row,
 * which each lease renewal updates; under read committed a write that waited on that update re-reads the
 * row, where the stricter levels fail it (40001) and stopped the session with no outside interference. Here
 * the update is made to wait on deterministically: another transaction updates the row as a renewal does and
 * commits while the session's write waits for it.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import { migratePostgres, PostgresSessions } from "../../src/runtime-postgres/index.js";
import { artifacts } from "../injections/helpers/gamma.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, toolUse } from "../runtime/helpers/pi.js";
import { fauxPerTest, NO_KNOWLEDGE_HINTS } from "../runtime/helpers/session.js";
import { closedAfterEach, usePostgres } from "./helpers.js";

const db = usePostgres();
const pi = fauxPerTest();
const servers = closedAfterEach();

describe.each(["serializable", "repeatable read"])("a database whose default isolation is %s", (level) => {
  it("a write that waited on an update of the session row (a lease renewal) is stored, and the turn goes on", async () => {
    const name = `isolation_${level.replace(" ", "_")}`;
    await db.createDatabase(name);
    await migratePostgres(db.pool({ database: name }));
    await db.pool({ database: "postgres" }).query(`alter database ${name} set default_transaction_isolation = '${level}'`);
    const pool = db.pool({ database: name });
    const errors: string[] = [];
    const sessions = await PostgresSessions.start({ pool, leaseMs: 5000, onError: (error, during) => errors.push(`${during}: ${String(error)}`) });
    servers.push(sessions);
    const sessionKey = `renewed-${level.replace(" ", "-")}`;
    const hosted = await sessions.openAgent({ sessionKey, artifacts, variant: "base", model: pi.faux().getModel(), executors: recordingExecutors(), ...NO_KNOWLEDGE_HINTS });

    // The row updated as a renewal updates it, and held until the session's next write waits for it.
    const renewal = await db.pool({ database: name }).connect();
    await renewal.query("begin");
    await renewal.query("update gamma_sessions set lease_expires_at = lease_expires_at where session_key = $1", [sessionKey]);
    pi.faux().setResponses([toolUse(fauxToolCall("todo", { tasks: [{ id: "t", title: "Outline", status: "in_progress" }] })), fauxAssistantMessage("Outlined.")]);
    const turn = hosted.agent.prompt(hosted.controller.buildTurnMessages({ text: "Outline the deck" }) as AgentMessage[]).then(
      () => "stored",
      (error: unknown) => String(error),
    );
    const waiting = async () => (await pool.query<{ n: number }>("select count(*)::integer as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")).rows[0]?.n ?? 0;
    for (let tries = 0; (await waiting()) === 0; tries++) {
      if (tries > 500) throw new Error("the session's write never waited on the row");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await renewal.query("commit");
    renewal.release();
    expect(await turn).toBe("stored");
    expect(hosted.controller.failure).toBeUndefined();
    expect(errors).toEqual([]);
    expect(hosted.controller.state.tasks.items).toEqual([{ id: "t", title: "Outline", status: "in_progress" }]);
    await hosted.dispose();
  }, 60_000);
});
