// Routing queued runtime injections into the next turn's messages, in process.
// "route": N accepted events of mixed kinds are queued (ids deduplicated,
// snapshots coalesced), drained for a user turn with duplicate suppression
// against 500 tool results in context, and rendered into trusted Pi custom
// messages (target: 10,000 <= 20 ms). "boundary": the schema check every raw
// event passes once on arrival. "total" is both. Prints medians (and the best
// run, which shows the cost on a quiet machine) per size; the cost per event
// should stay flat (linear total cost).
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { acceptInjection, InjectionQueue, createTrustedInjectionMessage } from "../lib/runtime/injections/index.js";

// The kinds as the embedded default's static prefix defines them.
const KINDS = JSON.parse(readFileSync(new URL("../dist/injections.json", import.meta.url), "utf8"));

const SIZES = [1_000, 5_000, 10_000, 20_000];
const RUNS = 21;

/** A deterministic mix: ~5% re-sent ids, ~5% echoes of tool results in context, some decisions. */
function generate(count) {
  const events = [];
  const base = Date.UTC(2026, 2, 1, 9);
  for (let index = 0; index < count; index++) {
    const roll = (index * 7919) % 100;
    const resend = roll < 5 && index > 0;
    const id = resend ? `evt_${index - 1}` : `evt_${index}`;
    const occurredAt = new Date(base + ((index * 104_729) % (count * 10)) * 100).toISOString();
    const common = { id, occurredAt, requiresDecision: false };
    let event;
    if (roll < 30) {
      event = { ...common, kind: "client_view", source: "client", delivery: "next_turn", summary: `The user opened card ${index % 40}.`, subject: { ref: "gamma:file:g_1:d_2" } };
    } else if (roll < 55) {
      event = {
        ...common, kind: "artifact_update", source: "workspace", delivery: "steer",
        summary: `The user edited section ${index % 9} of the brief.`,
        subject: { path: `session/generations/doc-${index % 200}/brief.xml`, revision: `sha256:${index.toString(16)}` },
        origin: { actor: roll < 50 ? "user" : "agent", ...(roll >= 50 ? { toolCallId: `call_${index % 1000}` } : {}) },
        details: { change: "content_saved" },
      };
    } else if (roll < 65) {
      event = { ...common, kind: "workspace_update", source: "workspace", delivery: "steer", summary: "Workspace instructions changed.", subject: { revision: `ws_${index}` } };
    } else if (roll < 75) {
      event = { ...common, kind: "background_result", source: "background_job", delivery: "follow_up", summary: `Job ${index % 300} finished.`, details: { jobId: `job-${index % 300}` } };
    } else if (roll < 85) {
      event = { ...common, kind: "system_note", source: "server", delivery: "next_turn", summary: `Note ${index}: the workspace plan & limits <unchanged>.` };
    } else if (roll < 93) {
      event = { ...common, kind: "system_guidance", source: "server", delivery: "steer", summary: `Keep card ${index % 12} under 60 words.`, dedupeKey: `guidance-${index % 50}` };
    } else {
      event = { ...common, kind: "system_update", source: "server", delivery: "steer", requiresDecision: true, summary: `Quota event ${index}.` };
    }
    events.push(event);
  }
  return events;
}

const inContext = new Set(Array.from({ length: 500 }, (_, index) => `call_${index * 2}`));

function routeQueued(accepted) {
  const queue = new InjectionQueue();
  for (const injection of accepted) queue.add(injection);
  const drained = queue.drain({ select: () => true, toolCallIdsInContext: inContext });
  return { messages: drained.deliver.map((injection) => createTrustedInjectionMessage(injection, KINDS, { timestamp: 0 })), suppressed: drained.suppressed };
}

function acceptAll(events) {
  return events.map((event) => acceptInjection(event, { kinds: KINDS }));
}

function measure(fn) {
  for (let warm = 0; warm < 3; warm++) fn();
  const times = [];
  let result;
  for (let run = 0; run < RUNS; run++) {
    globalThis.gc?.();
    const start = performance.now();
    result = fn();
    times.push(performance.now() - start);
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], best: sorted[0], result };
}

const format = ({ median, best }, size) =>
  `${median.toFixed(2).padStart(7)} ms median (${((median * 1000) / size).toFixed(2)} µs/event), best ${best.toFixed(2)} ms`;

const results = [];
for (const size of SIZES) {
  const events = generate(size);
  const boundary = measure(() => acceptAll(events));
  const accepted = boundary.result;
  const route = measure(() => routeQueued(accepted));
  const total = measure(() => routeQueued(acceptAll(events)));
  results.push({ size, ms: route.median, total: total.median });
  const { messages, suppressed } = route.result;
  const chars = messages.reduce((sum, message) => sum + message.content.length, 0);
  console.log(`${String(size).padStart(6)} events -> ${messages.length} messages (${chars} chars), ${suppressed.length} suppressed`);
  console.log(`    route    ${format(route, size)}`);
  console.log(`    boundary ${format(boundary, size)}`);
  console.log(`    total    ${format(total, size)}`);
}
const at = (size) => results.find((result) => result.size === size)?.ms ?? Number.NaN;
const tenK = at(10_000);
const tenKTotal = results.find((result) => result.size === 10_000)?.total ?? Number.NaN;
console.log(`10,000 events routed: ${tenK.toFixed(2)} ms (target <= 20 ms) ${tenK <= 20 ? "ok" : "OVER"}; with the boundary check: ${tenKTotal.toFixed(2)} ms`);
console.log(`growth 20k/10k: ${(at(20_000) / tenK).toFixed(2)}x, 10k/1k: ${(tenK / at(1_000)).toFixed(2)}x (linear: 2x and 10x)`);
