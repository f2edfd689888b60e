// A producer process for the multi-process tests: another service that
// publishes runtime injections for sessions it knows only by key (no Pi, no
// session object), COUNT of them round-robin over SESSIONS, one every INTERVAL ms.
import pg from "pg";
import { publishUpdate } from "../../../lib/runtime-postgres/index.js";

const { connection, sessions, count, producer, intervalMs = 0 } = JSON.parse(process.env.PRODUCER ?? "{}");
const pool = new pg.Pool({ ...connection, max: 4 });
const kinds = [
  { kind: "system_note", delivery: "next_turn", source: "server" },
  { kind: "artifact_update", delivery: "steer", source: "workspace" },
  { kind: "background_result", delivery: "follow_up", source: "background_job" },
];
for (let index = 0; index < count; index++) {
  const { kind, delivery, source } = kinds[index % kinds.length];
  const id = `ev-${producer}-${index}`;
  const sessionKey = sessions[index % sessions.length];
  await publishUpdate(pool, sessionKey, {
    id,
    kind,
    delivery,
    source,
    occurredAt: new Date(Date.UTC(2026, 11, 5, 9) + index * 1000).toISOString(),
    requiresDecision: false,
    summary: `Event ${id} for ${sessionKey}.`,
    ...(kind === "artifact_update" ? { subject: { path: `files/${id}.xml`, revision: "r1" }, origin: { actor: "user" } } : {}),
    ...(kind === "background_result" ? { details: { jobId: id } } : {}),
  });
  if (intervalMs > 0) await new Promise((resolve) => setTimeout(resolve, intervalMs));
}
await pool.end();
process.stdout.write(`published ${count}\n`);
