// The session's state owner on each kind of store, through the API a host
// calls, on a real Pi Agent (faux model):
//   1. a whole turn (`agent.prompt`): the user's message with a pending note, a
//      `todo` tool call, the answer. The runtime awaits two writes: the note's
//      delivery, confirmed before the first model call goes out, and the todo's
//      change, before its result is reported. With a store whose writes wait
//      1 ms the turn's added latency (p50/p99 against the memory store) is
//      bounded by them;
//   2. the same turn while events from other services keep arriving (one
//      `routeUpdate` per millisecond): on the store that waits, a turn still
//      waits only for the writes that hold its own changes, so its latency stays
//      near the quiet turn's;
//   3. `routeUpdate` x 10,000 mixed events, until `flush()` says every change is
//      stored: memory and file stores, and a store whose writes wait 1 ms
//      (target < 2 s: the owner batches what arrives while a write is in flight).
// GAMMA_RUNTIME=/path/to/other/lib/runtime/index.js measures another build of the
// runtime beside this one (the rows for stores that wait need this build's API).
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider } from "@earendil-works/pi-ai/compat";
import { generateEvents } from "./helpers/injection-events.mjs";

const runtimes = [{ label: "this build", url: new URL("../lib/runtime/index.js", import.meta.url).href }];
if (process.env.GAMMA_RUNTIME) runtimes.push({ label: "other build", url: pathToFileURL(process.env.GAMMA_RUNTIME).href });

const faux = registerFauxProvider();
const HOST_TOOLS = ["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file"];
const executors = Object.fromEntries(HOST_TOOLS.map((name) => [name, async () => ({ content: [{ type: "text", text: "ok" }] })]));
const folder = mkdtempSync(join(tmpdir(), "gamma-state-bench-"));
let files = 0;

/** A store whose every call waits `ms` (a database a millisecond away), batching as the contract allows. */
function waitingStore(runtime, ms) {
  const inner = new runtime.MemoryStateStore();
  const wait = () => new Promise((resolve) => setTimeout(resolve, ms));
  // How long each write took, as the session waited for it (the timer's own lateness included).
  const timed = async (write) => {
    const start = performance.now();
    await write();
    durations.push(performance.now() - start);
  };
  const durations = [];
  return {
    writes: 0,
    durations,
    async load() {
      await wait();
      return inner.load();
    },
    async save(state) {
      const copy = JSON.stringify(state);
      this.writes++;
      await timed(wait);
      inner.save(JSON.parse(copy));
    },
    async appendMany(records, current) {
      const copy = JSON.stringify(records);
      this.writes++;
      await timed(wait);
      for (const record of JSON.parse(copy)) inner.append(record, current);
    },
  };
}

function storeOf(runtime, kind) {
  if (kind === "memory") return new runtime.MemoryStateStore();
  if (kind === "file") return new runtime.FileStateStore(join(folder, `state-${files++}.json`));
  return waitingStore(runtime, 1);
}

async function open(runtime, kind) {
  const store = storeOf(runtime, kind);
  const options = { artifacts: runtime.artifacts, variant: "base", model: faux.getModel(), executors, store, knowledge: { maxHints: 0 } };
  const gamma = await (kind === "wait 1 ms" ? runtime.openGammaAgent(options) : runtime.createGammaAgent(options));
  return { ...gamma, store };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

async function turns(runtime, kind, count, streaming = false) {
  const gamma = await open(runtime, kind);
  const times = [];
  let writes = 0;
  let streamed = 0;
  const stream = streaming
    ? setInterval(() => {
        gamma.controller.routeUpdate({ id: `view-${streamed}`, kind: "client_view", occurredAt: "2026-03-01T10:00:00Z", source: "client", delivery: "next_turn", requiresDecision: false, summary: `The user opened card ${streamed++ % 40}.` });
      }, 1)
    : undefined;
  for (let index = 0; index < count + 20; index++) {
    gamma.controller.routeUpdate({ id: `note-${index}`, kind: "system_note", occurredAt: "2026-03-01T10:00:00Z", source: "server", delivery: "next_turn", requiresDecision: false, summary: `Note ${index}.` });
    faux.setResponses([fauxAssistantMessage([fauxToolCall("todo", { tasks: [{ id: "t1", title: `Step ${index}`, status: "in_progress" }] })], { stopReason: "toolUse" }), fauxAssistantMessage("ok")]);
    const writesBefore = gamma.store.writes ?? 0;
    const start = performance.now();
    await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text: `Turn ${index}` }));
    if (index >= 20) {
      times.push(performance.now() - start);
      writes += (gamma.store.writes ?? 0) - writesBefore;
    }
  }
  clearInterval(stream);
  if (gamma.controller.flush !== undefined) await gamma.controller.flush();
  gamma.dispose();
  times.sort((a, b) => a - b);
  const durations = [...(gamma.store.durations ?? [])].sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), writesPerTurn: writes / count, write: durations.length === 0 ? undefined : { p50: percentile(durations, 0.5), p99: percentile(durations, 0.99) } };
}

async function routing(runtime, kind, events, runs) {
  const times = [];
  const cpu = [];
  for (let run = 0; run < runs; run++) {
    const gamma = await open(runtime, kind);
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    for (const event of events) gamma.controller.routeUpdate(event);
    if (gamma.controller.flush !== undefined) await gamma.controller.flush();
    times.push(performance.now() - start);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
    gamma.dispose();
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { wall: times[Math.floor(times.length / 2)], cpu: cpu[Math.floor(cpu.length / 2)] };
}

const events = generateEvents(10_000);
console.log(`load average ${loadavg().map((value) => value.toFixed(2)).join(" ")} on ${cpus().length} cores`);
for (const { label, url } of runtimes) {
  const runtime = { ...(await import(url)) };
  runtime.artifacts = runtime.loadArtifacts();
  const kinds = runtime.openGammaAgent === undefined ? ["memory", "file"] : ["memory", "file", "wait 1 ms"];
  const turnResults = {};
  for (const kind of kinds) {
    const result = await turns(runtime, kind, 200);
    turnResults[kind] = result;
    console.log(`${label}: a turn (note + todo), ${kind.padEnd(9)} p50 ${result.p50.toFixed(2).padStart(6)} ms  p99 ${result.p99.toFixed(2).padStart(6)} ms`);
  }
  const waiting = turnResults["wait 1 ms"];
  if (waiting !== undefined) {
    // The turn waits for the writes it made; each may first wait for the one in flight: at most twice each.
    const { writesPerTurn, write } = waiting;
    const bound = (p) => turnResults.memory[p] + 2 * writesPerTurn * write[p];
    console.log(
      `${label}: wait 1 ms: the turn made ${writesPerTurn.toFixed(1)} writes, each ${write.p50.toFixed(2)} ms p50 / ${write.p99.toFixed(2)} ms p99; ` +
        `added over memory p50 ${(waiting.p50 - turnResults.memory.p50).toFixed(2)} ms; turn p50 ${waiting.p50.toFixed(2)} <= ${bound("p50").toFixed(2)} ${waiting.p50 <= bound("p50") ? "ok" : "OVER"}, ` +
        `p99 ${waiting.p99.toFixed(2)} <= ${bound("p99").toFixed(2)} ${waiting.p99 <= bound("p99") ? "ok" : "OVER"} (memory turn + 2 x its writes)`,
    );
    const streamed = await turns(runtime, "wait 1 ms", 200, true);
    console.log(
      `${label}: a turn while an event arrives every ms, wait 1 ms  p50 ${streamed.p50.toFixed(2).padStart(6)} ms  p99 ${streamed.p99.toFixed(2).padStart(6)} ms (${streamed.writesPerTurn.toFixed(1)} writes per turn, each ${streamed.write.p50.toFixed(2)} ms p50)`,
    );
  }
  for (const kind of kinds) {
    const { wall, cpu } = await routing(runtime, kind, events, 5);
    const target = kind === "wait 1 ms" ? 2000 : undefined;
    console.log(
      `${label}: routeUpdate x 10,000 until stored, ${kind.padEnd(9)} median ${wall.toFixed(1).padStart(7)} ms wall, ${cpu.toFixed(1).padStart(7)} ms CPU${target === undefined ? "" : `  target < ${target} ms ${wall < target ? "ok" : "MISSED"}`}`,
    );
  }
}
console.log(`load average ${loadavg().map((value) => value.toFixed(2)).join(" ")} after`);
rmSync(folder, { recursive: true, force: true });
faux.unregister();
