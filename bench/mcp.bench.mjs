// gamma-prompt mcp through the real server: the SDK's client spawns
// `gamma-prompt mcp` in a copy of the embedded default and calls its tools
// over standard input and output. Warm: after a few calls, so the server's
// modules are loaded and its analyzer holds the parsed project.
import { readFile, rm } from "node:fs/promises";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { loadLine, median, percentile } from "./helpers/live-process.mjs";
import { createProject } from "./helpers/synthetic-project.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = 200;
const WARM_UP = 20;
const LINT_TARGET_MS = 50;
const TEXT_TARGET_MS = 20;

const root = await mkdtemp(join(tmpdir(), "gamma-mcp-bench-"));
try {
  await createProject(root, 0);
  const text = (await readFile(join(root, "skills", "import", "SKILL.md"), "utf8")).replace("type: workflow", "type: workflw");
  const loadBefore = loadLine();
  const started = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(repo, "lib", "cli", "index.js"), "mcp"], cwd: root, stderr: "inherit", env: { PATH: process.env.PATH ?? "" } });
  const client = new Client({ name: "gamma-prompt-bench", version: "1.0.0" });
  await client.connect(transport);
  const connectedMs = performance.now() - started;

  const time = async (name, args, check) => {
    const samples = [];
    for (let run = 0; run < WARM_UP + RUNS; run++) {
      const at = performance.now();
      const result = await client.callTool({ name, arguments: args });
      const ms = performance.now() - at;
      if (result.isError || !check(result.structuredContent)) throw new Error(`Unexpected ${name} result: ${JSON.stringify(result).slice(0, 300)}`);
      if (run >= WARM_UP) samples.push(ms);
    }
    return samples;
  };
  const lint = await time("lint", {}, (result) => result.errorCount === 0);
  const lintText = await time("lint_text", { text }, (result) => result.diagnostics.some((finding) => finding.ruleId === "skill/type-value"));
  const loadAfter = loadLine();
  await client.close();

  const row = (label, samples, target) =>
    console.log(`  ${label.padEnd(52)} p50 ${median(samples).toFixed(1).padStart(6)} ms   p90 ${percentile(samples, 0.9).toFixed(1).padStart(6)} ms   target p50 < ${target} ms: ${median(samples) < target ? "met" : "NOT met"}`);
  console.log(`\ngamma-prompt mcp on the embedded default (${RUNS} calls each after ${WARM_UP} to warm up), through the SDK's client over stdio`);
  console.log(`  spawn -> connected (initialize answered)  ${connectedMs.toFixed(0)} ms`);
  row("lint (the whole project), warm", lint, LINT_TARGET_MS);
  row("lint_text (an unsaved SKILL.md), warm", lintText, TEXT_TARGET_MS);
  console.log(`  ${loadBefore} before, ${loadAfter} after`);
} finally {
  await rm(root, { recursive: true, force: true });
}
