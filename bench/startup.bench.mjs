// Start-up cost of the commands a pre-commit hook or a CI job runs on a small
// project, as whole processes on the embedded default, each against Node's
// own start-up (`node -e 0`) measured in the same rounds. The commands are
// interleaved round by round, so a busy machine slows all of them alike and
// the ratios stay meaningful. `check` runs as on a fresh clone: the
// persistent build record is removed before every run.
//
// Targets: lint <= 2.0x, check (no cache) <= 3.0x, --help and --version <= 1.3x.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const packageRoot = join(here, "..");
const cli = join(packageRoot, "lib", "cli", "index.js");
const ROUNDS = Number(process.env.GAMMA_PROMPT_BENCH_ROUNDS ?? 11);

// A copy of the embedded default outside the package, so no build record in
// the package's node_modules/.cache can help `check`.
const project = mkdtempSync(join(tmpdir(), "gamma-prompt-startup-bench-"));
for (const entry of ["skills", "prompts", "schemas", "knowledge", "dist", "gamma-prompt.config.json"]) {
  if (existsSync(join(packageRoot, entry))) cpSync(join(packageRoot, entry), join(project, entry), { recursive: true });
}

const commands = [
  { label: "node -e 0", args: ["-e", "0"], target: undefined },
  { label: "lint", args: [cli, "lint", "--root", project], target: 2.0 },
  { label: "check (no cache)", args: [cli, "check", "--root", project], target: 3.0, fresh: true },
  { label: "--help", args: [cli, "--help"], target: 1.3 },
  { label: "--version", args: [cli, "--version"], target: 1.3 },
];

function run(command) {
  if (command.fresh) rmSync(join(project, "node_modules"), { recursive: true, force: true });
  const start = performance.now();
  const child = spawnSync(process.execPath, command.args, { encoding: "utf8", cwd: project });
  const ms = performance.now() - start;
  if (child.status !== 0) throw new Error(`${command.label} exited ${child.status}: ${child.stderr}${child.stdout}`);
  return ms;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

try {
  const samples = new Map(commands.map((command) => [command.label, []]));
  for (const command of commands) run(command); // warm the file system cache
  for (let round = 0; round < ROUNDS; round++) {
    for (const command of commands) samples.get(command.label).push(run(command));
  }
  const node = median(samples.get("node -e 0"));
  console.log(`embedded default, whole process, median of ${ROUNDS} interleaved rounds`);
  for (const command of commands) {
    const ms = median(samples.get(command.label));
    const ratio = ms / node;
    const verdict = command.target === undefined ? "" : `  ${ratio.toFixed(2)}x node (target <= ${command.target.toFixed(1)}x) ${ratio <= command.target ? "ok" : "MISSED"}`;
    console.log(`${command.label.padEnd(18)} ${ms.toFixed(0).padStart(6)} ms${verdict}`);
  }
} finally {
  rmSync(project, { recursive: true, force: true });
}
