// `gamma-prompt cost` on the embedded default with the default traffic
// profile: 100,000 sessions an hour for an hour, 9 calls each, every policy
// of both priced models (10 policy runs, 9 million simulated model calls).
//   1. the whole CLI process, as a user runs it: target < 2 s;
//   2. the library call alone, in process (median of 5), wall and CPU time,
//      with the tool policies of the embedded default's namespace.
import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cost } from "../lib/cost/cost.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "lib/cli/index.js");

const wall = [];
for (let run = 0; run < 3; run++) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [cli, "cost", "--root", root, "--format", "json"], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(result.stderr);
  wall.push(Number(process.hrtime.bigint() - started) / 1e6);
}
wall.sort((a, b) => a - b);
const calls = [];
const cpu = [];
let simulated = 0;
let toolPolicyRows = 0;
for (let run = 0; run < 5; run++) {
  const started = process.hrtime.bigint();
  const cpuStarted = process.cpuUsage();
  const result = cost({ root });
  const used = process.cpuUsage(cpuStarted);
  simulated = result.simulatedCalls;
  toolPolicyRows = result.toolPolicies?.rows.length ?? 0;
  calls.push(Number(process.hrtime.bigint() - started) / 1e6);
  cpu.push((used.user + used.system) / 1000);
}
cpu.sort((a, b) => a - b);
calls.sort((a, b) => a - b);
const median = (list) => list[Math.floor(list.length / 2)];
console.log(`load average ${loadavg().map((value) => value.toFixed(2)).join(" ")} on ${cpus().length} cores`);
console.log(`cost CLI, 100,000 sessions/h for 1 h, all policies (whole process)   median ${median(wall).toFixed(0).padStart(5)} ms   target < 2000 ms ${median(wall) < 2000 ? "ok" : "MISSED"}`);
console.log(`cost() in process (${simulated.toLocaleString("en-US")} simulated calls)                      median ${median(calls).toFixed(0).padStart(5)} ms   (${((median(calls) * 1e6) / simulated).toFixed(0)} ns per call)`);
console.log(`cost() CPU time, tool policies included (${toolPolicyRows} rows)                       median ${median(cpu).toFixed(0).padStart(5)} ms   target < 2000 ms ${median(cpu) < 2000 ? "ok" : "MISSED"}`);
