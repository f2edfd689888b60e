// The producer of bench/postgres.bench.mjs, another process: COUNT events round-robin over SESSIONS,
// published with publishUpdate ("publish") or as a bare INSERT + NOTIFY of the same rows ("bare"), as fast as
// eight connections go, or with publishUpdate paced at perSecond events a second ("paced").
// Prints {"ms": ...}: the time to publish them all.
import { performance } from "node:perf_hooks";
import pg from "pg";
import { publishUpdate } from "../../lib/runtime-postgres/index.js";

const { connection, sessions, count, mode, perSecond } = JSON.parse(process.env.BENCH);
const pool = new pg.Pool({ ...connection, max: 8 });
const event = (index) => ({
  id: `bench-${mode}-${index}`,
  kind: "system_note",
  occurredAt: new Date(Date.UTC(2026, 11, 5, 9) + index).toISOString(),
  source: "server",
  delivery: "next_turn",
  requiresDecision: false,
  summary: `Bench event ${index}: the workspace plan changed.`,
});
const start = performance.now();
if (perSecond !== undefined) {
  // Paced: one event every 1000 / perSecond ms, each published on its own schedule (not waiting for the last).
  const writes = [];
  for (let index = 0; index < count; index++) {
    const due = start + (index * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    writes.push(publishUpdate(pool, sessions[index % sessions.length], event(index)));
  }
  await Promise.all(writes);
  await pool.end();
  process.stdout.write(JSON.stringify({ ms: performance.now() - start }));
  process.exit(0);
}
// Eight producers' worth of concurrency, as a busy file service would publish.
let next = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < count) {
      const index = next++;
      const sessionKey = sessions[index % sessions.length];
      if (mode === "publish") await publishUpdate(pool, sessionKey, event(index));
      else
        await pool.query("with stored as (insert into bench_events (session_key, event_id, payload) values ($1, $2, $3::jsonb) on conflict do nothing returning 1) select (select count(*) from stored)::integer, pg_notify('bench_events', $1)", [
          sessionKey,
          `bench-${index}`,
          JSON.stringify(event(index)),
        ]);
    }
  }),
);
const ms = performance.now() - start;
await pool.end();
process.stdout.write(JSON.stringify({ ms }));
