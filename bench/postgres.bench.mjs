// gamma-prompt/runtime/postgres against a local PostgreSQL server (started
// here from the registry's binaries, fsync off as on every test server), through
// the API a host calls, each beside its bare-SQL peer:
//   1. a durable change (controller.setCurrentArtifacts + flush) on a hosted
//      session, p50/p99, beside a bare INSERT of a row of the same size
//      (target: ratio <= 1.5);
//   2. 10,000 events over 100 sessions published by another process with
//      publishUpdate and routed by this host, beside the same process doing a
//      bare INSERT + NOTIFY of the same rows (target: throughput ratio <= 2;
//      p50 published -> routed <= 10 ms, by the database's clock);
//   3. resuming a session with 500 transcript entries on another server
//      (openAgent until it returns; target <= 50 ms);
//   4. takeover after the host is killed: its lease and at most a second.
//   npm run bench -- postgres
import { spawn } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { fauxAssistantMessage, registerFauxProvider } from "@earendil-works/pi-ai/compat";
import pg from "pg";
import { loadArtifacts } from "../lib/runtime/index.js";
import { migratePostgres, PostgresSessions } from "../lib/runtime-postgres/index.js";
import { startPostgres } from "../scripts/postgres-server.mjs";

const server = await startPostgres();
const connection = { host: server.host, port: server.port, user: server.user, database: server.database };
const pool = new pg.Pool({ ...connection, max: 20 });
// Idle clients the server drops as it stops at the end report here.
pool.on("error", () => {});
await migratePostgres(pool);
const artifacts = loadArtifacts();
const faux = registerFauxProvider();
faux.setResponses(Array.from({ length: 100_000 }, () => fauxAssistantMessage("ok")));
const HOST_TOOLS = ["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file"];
const executors = Object.fromEntries(HOST_TOOLS.map((name) => [name, async () => ({ content: [{ type: "text", text: "ok" }] })]));
const open = (sessions, sessionKey) => sessions.openAgent({ sessionKey, artifacts, variant: "base", model: faux.getModel(), executors, knowledge: { maxHints: 0 } });
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const verdict = (ok) => (ok ? "ok" : "MISSED");
console.log(`load average ${loadavg().map((value) => value.toFixed(2)).join(" ")} on ${cpus().length} cores; PostgreSQL on 127.0.0.1:${server.port}`);

// 1. A durable change, beside a bare INSERT of a row of the same size.
{
  const sessions = await PostgresSessions.start({ pool, hostId: "bench-writes" });
  const hosted = await open(sessions, "bench-writes");
  const change = [];
  for (let index = 0; index < 1100; index++) {
    const start = performance.now();
    hosted.controller.setCurrentArtifacts([{ ref: `gamma:file:g_1:d_${index}`, path: `decks/deck-${index}.gml`, revision: `rev_${index}` }]);
    await hosted.controller.flush();
    if (index >= 100) change.push(performance.now() - start);
  }
  const row = await pool.query("select record from gamma_state_records where session_key = 'bench-writes' order by revision desc limit 1");
  const record = JSON.stringify(row.rows[0].record);
  await pool.query("create table bench_rows (session_key text not null, revision integer not null, record jsonb not null, primary key (session_key, revision))");
  const bare = [];
  for (let index = 0; index < 1100; index++) {
    const start = performance.now();
    await pool.query("insert into bench_rows (session_key, revision, record) values ($1, $2, $3::jsonb)", ["bench-writes", index, record]);
    if (index >= 100) bare.push(performance.now() - start);
  }
  const ratio = percentile(change, 0.5) / percentile(bare, 0.5);
  console.log(`durable change: p50 ${percentile(change, 0.5).toFixed(3)} ms, p99 ${percentile(change, 0.99).toFixed(3)} ms; bare INSERT of a ${record.length}-byte row: p50 ${percentile(bare, 0.5).toFixed(3)} ms, p99 ${percentile(bare, 0.99).toFixed(3)} ms; ratio ${ratio.toFixed(2)} (target <= 1.5) ${verdict(ratio <= 1.5)}`);
  await hosted.dispose();
  await sessions.close();
}

// 2. 10,000 events over 100 sessions from another process.
{
  const sessions = await PostgresSessions.start({ pool, hostId: "bench-events" });
  const keys = Array.from({ length: 100 }, (_, index) => `bench-events-${index}`);
  const hosted = [];
  for (const key of keys) hosted.push(await open(sessions, key));
  const producer = (mode, paced = {}) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [fileURLToPath(new URL("./helpers/postgres-producer.mjs", import.meta.url))], {
        env: { ...process.env, BENCH: JSON.stringify({ connection, sessions: keys, count: 10_000, mode, ...paced }) },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`producer exited ${code}`))));
    });
  // The peer: the same rows inserted and notified, no routing.
  await pool.query("create table bench_events (session_key text not null, event_id text not null, payload jsonb not null, primary key (session_key, event_id))");
  const bare = await producer("bare");
  const published = await producer("publish");
  for (let waited = 0; ; waited += 50) {
    const left = await pool.query("select count(*)::integer as n from gamma_events where routed_at is null");
    if (left.rows[0].n === 0) break;
    if (waited > 120_000) throw new Error(`${left.rows[0].n} events not routed after 2 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const timing = await pool.query(
    "select extract(epoch from (max(routed_at) - min(published_at))) * 1000 as span, percentile_cont(0.5) within group (order by extract(epoch from (routed_at - published_at)) * 1000) as p50, percentile_cont(0.99) within group (order by extract(epoch from (routed_at - published_at)) * 1000) as p99 from gamma_events where session_key like 'bench-events-%'",
  );
  const { span, p50, p99 } = timing.rows[0];
  const routedPerSecond = 10_000 / (span / 1000);
  const barePerSecond = 10_000 / (bare.ms / 1000);
  const ratio = barePerSecond / routedPerSecond;
  console.log(
    `10,000 events over 100 sessions: published ${(10_000 / (published.ms / 1000)).toFixed(0)}/s, routed ${routedPerSecond.toFixed(0)}/s; bare INSERT + NOTIFY ${barePerSecond.toFixed(0)}/s; ratio ${ratio.toFixed(2)} (target <= 2) ${verdict(ratio <= 2)}; published -> routed p50 ${Number(p50).toFixed(1)} ms, p99 ${Number(p99).toFixed(1)} ms (a saturated machine's queue: the latency target is the paced run's, below)`,
  );
  // Latency where the host keeps up: the same sessions, 2,000 more events paced at 200 a second.
  const before = (await pool.query("select coalesce(max(seq), 0) as seq from gamma_events")).rows[0].seq;
  await producer("paced", { count: 2000, perSecond: 200 });
  for (let waited = 0; ; waited += 50) {
    const left = await pool.query("select count(*)::integer as n from gamma_events where routed_at is null");
    if (left.rows[0].n === 0) break;
    if (waited > 60_000) throw new Error(`${left.rows[0].n} paced events not routed after a minute`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const paced = (
    await pool.query(
      "select count(*)::integer as n, percentile_cont(0.5) within group (order by extract(epoch from (routed_at - published_at)) * 1000) as p50, percentile_cont(0.99) within group (order by extract(epoch from (routed_at - published_at)) * 1000) as p99 from gamma_events where seq > $1",
      [before],
    )
  ).rows[0];
  console.log(
    `${paced.n} events paced at 200/s over the same sessions (the host keeps up): published -> routed p50 ${Number(paced.p50).toFixed(1)} ms (target <= 10) ${verdict(Number(paced.p50) <= 10)}, p99 ${Number(paced.p99).toFixed(1)} ms`,
  );
  for (const session of hosted) await session.dispose();
  await sessions.close();
}

// 3. Resume a session with 500 transcript entries on another server.
{
  const first = await PostgresSessions.start({ pool, hostId: "bench-resume-a" });
  const hosted = await open(first, "bench-resume");
  while ((await pool.query("select count(*)::integer as n from gamma_transcript where session_key = 'bench-resume'")).rows[0].n < 500) {
    await hosted.agent.prompt(hosted.controller.buildTurnMessages({ text: "Another card, please." }));
  }
  await hosted.dispose();
  await first.close();
  const times = [];
  for (let round = 0; round < 21; round++) {
    const other = await PostgresSessions.start({ pool, hostId: `bench-resume-${round}` });
    const start = performance.now();
    const resumed = await open(other, "bench-resume");
    times.push(performance.now() - start);
    await resumed.dispose();
    await other.close();
  }
  const entries = (await pool.query("select count(*)::integer as n from gamma_transcript where session_key = 'bench-resume'")).rows[0].n;
  console.log(`resume with ${entries} transcript entries on another server: p50 ${percentile(times, 0.5).toFixed(1)} ms, p99 ${percentile(times, 0.99).toFixed(1)} ms (target <= 50) ${verdict(percentile(times, 0.5) <= 50)}`);
}

// 4. Takeover after the host is killed.
{
  const leaseMs = 2000;
  const child = spawn(process.execPath, [fileURLToPath(new URL("./helpers/postgres-host.mjs", import.meta.url))], { env: { ...process.env, BENCH: JSON.stringify({ connection, sessionKey: "bench-takeover", leaseMs }) }, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve) => child.stdout.on("data", (chunk) => String(chunk).includes("hosted") && resolve()));
  child.kill("SIGKILL");
  const killed = performance.now();
  const sessions = await PostgresSessions.start({ pool, hostId: "bench-takeover-b", leaseMs, waitForLeaseMs: 10_000 });
  const hosted = await open(sessions, "bench-takeover");
  const took = performance.now() - killed;
  console.log(`takeover after SIGKILL with a ${leaseMs} ms lease: ${took.toFixed(0)} ms (target <= ${leaseMs + 1000}) ${verdict(took <= leaseMs + 1000)}`);
  await hosted.dispose();
  await sessions.close();
}

console.log(`load average ${loadavg().map((value) => value.toFixed(2)).join(" ")} after`);
faux.unregister();
await pool.end();
await server.stop();
