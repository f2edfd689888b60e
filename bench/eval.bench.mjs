// `gamma-prompt eval --replay` on the embedded default's shipped cassettes
// (5 scenarios, 15 runs), through the library call a user makes
// (runEvals), one run at a time and four at a time. Beside it, the peer: the
// same recorded replies played by a bare pi-agent-core Agent on pi-ai's
// faux provider, with the variant prompt and tools that answer "ok" (no
// Gamma runtime, no fixtures, fingerprints or expectations): what replaying
// costs at the least. Medians of several rounds, interleaved.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent } from "@earendil-works/pi-agent-core";
import { fauxAssistantMessage, registerFauxProvider, streamSimple } from "@earendil-works/pi-ai/compat";
import { parse } from "yaml";
import { runEvals } from "../lib/index.js";
import { loadArtifacts } from "../lib/runtime/index.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const ROUNDS = Number(process.env.GAMMA_PROMPT_BENCH_ROUNDS ?? 5);
const artifacts = loadArtifacts({ distDir: join(root, "dist") });
const cassettes = readdirSync(join(root, "evals")).filter((name) => name.endsWith(".yaml")).sort().flatMap((file) => {
  const scenario = parse(readFileSync(join(root, "evals", file), "utf8"));
  const folder = join(root, "evals", "cassettes", scenario.name);
  return readdirSync(folder).sort().map((name) => ({ scenario, cassette: JSON.parse(readFileSync(join(folder, name), "utf8")) }));
});

async function bareAgents() {
  for (const { scenario, cassette } of cassettes) {
    const faux = registerFauxProvider({ tokenSize: { min: 1_000_000, max: 1_000_000 } });
    faux.setResponses(cassette.calls.map((call) => fauxAssistantMessage(call.reply.content, { stopReason: call.reply.stopReason })));
    const tools = artifacts.tools.map((tool) => ({ name: tool.name, label: tool.name, description: tool.description, parameters: tool.parameters, execute: async () => ({ content: [{ type: "text", text: "ok" }], details: {} }) }));
    const agent = new Agent({ initialState: { systemPrompt: artifacts.variants[scenario.variant], model: faux.getModel(), tools }, streamFn: streamSimple });
    for (const turn of scenario.turns) await agent.prompt(turn);
    faux.unregister();
  }
}

const timed = async (work) => {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e6;
};
const cases = [
  { label: "bare Pi Agent, same replies (peer)", work: bareAgents },
  { label: "runEvals replay, concurrency 1", work: () => runEvals({ root, replay: true, concurrency: 1 }) },
  { label: "runEvals replay, concurrency 4", work: () => runEvals({ root, replay: true, concurrency: 4 }) },
];
for (const entry of cases) await entry.work(); // warm-up
const times = cases.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  for (const [index, entry] of cases.entries()) times[index].push(await timed(entry.work));
}
console.log(`${cassettes.length} recorded runs, ${cassettes.reduce((sum, { cassette }) => sum + cassette.calls.length, 0)} model calls, median of ${ROUNDS} rounds`);
for (const [index, entry] of cases.entries()) {
  const sorted = times[index].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  console.log(`${entry.label.padEnd(36)} ${median.toFixed(1).padStart(8)} ms total   ${(median / cassettes.length).toFixed(2).padStart(7)} ms per run`);
}
