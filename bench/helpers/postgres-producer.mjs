// The producer of bench/postgres.bench.mjs, another process: COUNT events round-robin over SESSIONS,
// published with publishUpdate ("publish") or as a bare INSERT + NOTIFY of the same rows ("bare").
// Prints {"ms": ...}: the time to publish them all.
import { performance } from "node:perf_hooks";
import pg from "pg";
import { publishUpdate } from "../../lib/runtime-postgres/index.js";

const { connection, sessions, count, mode } = JSON.parse(process.env.BENCH);
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
