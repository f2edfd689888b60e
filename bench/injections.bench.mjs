// Routing runtime injections through the API a host calls: `controller.routeUpdate`
// on a real Pi Agent (createGammaAgent, faux model, idle), for 1,000 / 10,000 /
// 100,000 mixed events, with each state store. Every event is checked at the
// boundary, deduplicated, coalesced, rendered and made durable (one journal
// record per change). Targets: 10,000 events under 200 ms with MemoryStateStore
// and under 1 s with FileStateStore; 10k/1k growth at most 12x; memory bounded by
// the pending set plus the idempotency window (the heap after 100,000 events).
// Also: the neutraliser on hostile padding, 1 MB and 10 MB (linear: ~10x).
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { registerFauxProvider } from "@earendil-works/pi-ai/compat";
import { generateEvents } from "./helpers/injection-events.mjs";
import { createGammaAgent, FileStateStore, loadArtifacts, MemoryStateStore, neutraliseReservedTags } from "../lib/runtime/index.js";

const artifacts = loadArtifacts();
const faux = registerFauxProvider();
const HOST_TOOLS = ["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file"];
const executors = Object.fromEntries(HOST_TOOLS.map((name) => [name, async () => ({ content: [{ type: "text", text: "ok" }] })]));
const folder = mkdtempSync(join(tmpdir(), "gamma-injections-bench-"));

let runCounter = 0;
function openStore(kind) {
  if (kind === "memory") return { store: new MemoryStateStore(), path: undefined };
  const path = join(folder, `state-${runCounter++}.json`);
  return { store: new FileStateStore(path), path };
}

/** One fresh session: a Gamma agent on the chosen store, then every event through routeUpdate. */
function routeAll(kind, events) {
  const { store, path } = openStore(kind);
  const gamma = createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors, store });
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  for (const event of events) gamma.controller.routeUpdate(event);
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const pending = gamma.controller.pending.size;
  gamma.dispose();
  const bytes = path === undefined ? 0 : statSync(path).size;
  return { ms, cpuMs, pending, bytes, path };
}

function measure(kind, events, runs) {
  routeAll(kind, events.slice(0, Math.min(events.length, 2_000))); // warm the JIT
  const times = [];
  const cpuTimes = [];
  let last;
  for (let run = 0; run < runs; run++) {
    globalThis.gc?.();
    last = routeAll(kind, events);
    times.push(last.ms);
    cpuTimes.push(last.cpuMs);
    if (last.path !== undefined) rmSync(last.path, { force: true });
  }
  times.sort((a, b) => a - b);
  cpuTimes.sort((a, b) => a - b);
  const middle = Math.floor(times.length / 2);
  return { median: times[middle], best: times[0], cpu: cpuTimes[middle], pending: last.pending, bytes: last.bytes };
}

const SIZES = [1_000, 10_000, 100_000];
const RUNS = { 1_000: 15, 10_000: 7, 100_000: 3 };
const results = {};
for (const kind of ["memory", "file"]) {
  for (const size of SIZES) {
    const events = generateEvents(size);
    const result = measure(kind, events, RUNS[size]);
    results[`${kind}:${size}`] = result;
    const file = kind === "file" ? `, state file ${(result.bytes / 1024).toFixed(0)} KiB` : "";
    console.log(
      `${kind.padEnd(6)} ${String(size).padStart(7)} events  median ${result.median.toFixed(1).padStart(8)} ms  (${((result.median * 1000) / size).toFixed(2)} µs/event, best ${result.best.toFixed(1)} ms, CPU ${result.cpu.toFixed(1)} ms)  ${result.pending} pending${file}`,
    );
  }
}

// Memory: the heap a session holds after routing 10,000 and 100,000 events (after a full GC): the
// pending set and the idempotency window, not the number of events routed.
function heldAfter(count) {
  globalThis.gc?.();
  const before = process.memoryUsage().heapUsed;
  const { store } = openStore("file");
  const session = createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors, store });
  for (const event of generateEvents(count)) session.controller.routeUpdate(event);
  globalThis.gc?.();
  const held = process.memoryUsage().heapUsed - before;
  const pending = session.controller.pending.size;
  const seen = session.controller.state.injectionLog.seenIds.length;
  session.dispose();
  return { held, pending, seen };
}
for (const count of [10_000, 100_000]) {
  const { held, pending, seen } = heldAfter(count);
  console.log(`memory after ${String(count).padStart(7)} events (FileStateStore): heap +${(held / 1024 / 1024).toFixed(1)} MB for ${pending} pending and ${seen} ids in the idempotency window`);
}
console.log(`rss ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MB`);

// Wall-clock time is what a host waits; CPU time (user + system) is what routing costs when other
// processes share the cores. Both are printed with the load average, since machines are shared.
const check = (label, { median, cpu }, target) =>
  `${label}: ${median.toFixed(1)} ms wall, ${cpu.toFixed(1)} ms CPU (target < ${target} ms) ${median < target ? "ok" : cpu < target ? "ok in CPU time, over in wall time" : "MISSED"}`;
console.log(`load average ${loadavg().map((value) => value.toFixed(2)).join(" ")} on ${cpus().length} cores`);
console.log(check("10,000 events, MemoryStateStore", results["memory:10000"], 200));
console.log(check("10,000 events, FileStateStore", results["file:10000"], 1000));
for (const kind of ["memory", "file"]) {
  const ratio = (a, b, key) => results[`${kind}:${a}`][key] / results[`${kind}:${b}`][key];
  const wall = ratio(10_000, 1_000, "median");
  const cpu = ratio(10_000, 1_000, "cpu");
  console.log(
    `growth ${kind}: 10k/1k ${wall.toFixed(2)}x wall, ${cpu.toFixed(2)}x CPU (target <= 12x) ${Math.min(wall, cpu) <= 12 ? "ok" : "MISSED"}; 100k/10k ${ratio(100_000, 10_000, "median").toFixed(2)}x wall, ${ratio(100_000, 10_000, "cpu").toFixed(2)}x CPU`,
  );
}

// The neutraliser on hostile padding: linear in the input, no cap.
for (const megabytes of [1, 10]) {
  const unit = `<${" ".repeat(500)}\u200b${" ".repeat(500)}system_note>`;
  const text = unit.repeat(Math.ceil((megabytes * 1024 * 1024) / unit.length));
  const start = performance.now();
  const out = neutraliseReservedTags(text);
  const ms = performance.now() - start;
  console.log(`neutralise ${megabytes} MB of padded openers: ${ms.toFixed(1)} ms (${out.startsWith("&lt;") ? "neutralised" : "MISSED"})`);
}

faux.unregister();
rmSync(folder, { recursive: true, force: true });
