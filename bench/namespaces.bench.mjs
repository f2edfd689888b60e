// Loading a tool namespace at run time, in process, on the compiled lib/: the
// embedded default's artifacts with one more namespace of 20 tools, a real
// pi-agent-core Agent, and the runtime's whole load path (the durable record
// in a file store, the protocol event, the Agent's new tool list). Pi's own
// work at the next request (declaring the added tools) is not the runtime's
// and is not counted. Target: under 1 ms per load.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getModel } from "@earendil-works/pi-ai/compat";
import { createGammaAgent, defaultDistDir, FileStateStore, loadArtifacts } from "../lib/runtime/index.js";
import { row } from "./helpers/timing.mjs";

const TOOLS = 20;
const RUNS = 400;
const embedded = loadArtifacts({ distDir: process.env.GAMMA_DIST ?? defaultDistDir() });
const tools = Array.from({ length: TOOLS }, (_, index) => ({
  name: `crm_action_${String(index).padStart(2, "0")}`,
  description: `Action ${index} of the CRM connector: reads or updates one record and returns it.`,
  parameters: { type: "object", properties: { recordId: { type: "string", minLength: 1 }, fields: { type: "array", items: { type: "string" } } }, required: ["recordId"], additionalProperties: false },
}));
const artifacts = {
  ...embedded,
  namespaces: new Map([...embedded.namespaces, ["crm", { name: "crm", description: "Use when the task reads or updates CRM records.", tools }]]),
};
const ok = async () => ({ content: [{ type: "text", text: "ok" }] });
const executors = Object.fromEntries(["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file", ...tools.map((tool) => tool.name)].map((name) => [name, ok]));
const model = getModel("anthropic", "claude-sonnet-5-5");
const folder = mkdtempSync(join(tmpdir(), "gamma-namespaces-bench-"));

const times = [];
try {
  for (let run = 0; run < RUNS + 50; run++) {
    const store = new FileStateStore(join(folder, `state-${run}.jsonl`));
    const gamma = createGammaAgent({ artifacts, variant: "base", model, executors, store, streamFn: () => { throw new Error("no model calls in this benchmark"); } });
    if (run === 50) globalThis.gc?.();
    const start = process.hrtime.bigint();
    gamma.controller.loadNamespacesForHost(["crm"]);
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (gamma.agent.state.tools.length !== embedded.tools.length + TOOLS) throw new Error("the namespace's tools did not reach the Agent");
    if (run >= 50) times.push(elapsed);
    gamma.dispose();
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
times.sort((a, b) => a - b);
row(`load a namespace of ${TOOLS} tools (durable, Agent tool list)`, { median: times[Math.floor(times.length / 2)], p95: times[Math.floor(times.length * 0.95)] }, 1, 60);
