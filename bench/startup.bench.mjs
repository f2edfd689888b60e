// Start-up cost of the commands a pre-commit hook or a CI job runs on a small
// project, as whole processes on the embedded default, each against Node's
// own start-up (`node -e 0`) measured in the same rounds. The commands are
// interleaved round by round, so a busy machine slows all of them alike and
// the ratios stay meaningful. `check` runs as on a fresh clone: the
// persistent build record is removed before every run.
//
// Wall time is what the targets name; on a machine other work loads, it also
// holds time spent waiting for a core. So the CPU time (user + system) of each
// child is reported beside it, as the mean per run (see helpers/process-timing.mjs).
//
// Targets: lint <= 2.0x, check (no cache) <= 2.5x, --version <= 1.2x, --help <= 1.3x.
//
// `--installed` measures the package as a user gets it instead: `npm pack` of
// this repository (lib/ as `npm run build:ts` left it), installed with
// `npm install <tarball>` into an empty project in a temporary folder, its bin
// run from there (node_modules/.bin/gamma-prompt, as npx and a hook run it).
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { childrenCpuMs, median } from "./helpers/process-timing.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const packageRoot = join(here, "..");
const installed = process.argv.includes("--installed") ? installPacked() : undefined;
// The package's bin, as npx and a hook run it.
const cli = installed ? realpathSync(join(installed, "node_modules", ".bin", "gamma-prompt")) : join(packageRoot, JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")).bin["gamma-prompt"]);

/** The packed package installed into an empty project; returns the project. */
function installPacked() {
  const user = mkdtempSync(join(tmpdir(), "gamma-prompt-startup-installed-"));
  const pack = spawnSync("npm", ["pack", "--ignore-scripts", "--pack-destination", user, "--json"], { cwd: packageRoot, encoding: "utf8" });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const tarball = join(user, JSON.parse(pack.stdout)[0].filename);
  writeFileSync(join(user, "package.json"), `${JSON.stringify({ name: "user-project", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`);
  const install = spawnSync("npm", ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund", "--omit=peer"], { cwd: user, encoding: "utf8" });
  if (install.status !== 0) throw new Error(`npm install failed: ${install.stderr}`);
  return user;
}
const ROUNDS = Number(process.env.GAMMA_PROMPT_BENCH_ROUNDS ?? 11);

// A copy of the embedded default outside the package, so no build record in
// the package's node_modules/.cache can help `check`.
const project = mkdtempSync(join(tmpdir(), "gamma-prompt-startup-bench-"));
for (const entry of ["skills", "prompts", "schemas", "knowledge", "dist", "gamma-prompt.config.json"]) {
  if (existsSync(join(packageRoot, entry))) cpSync(join(packageRoot, entry), join(project, entry), { recursive: true });
}

// A one-skill collection, for the breakdown of where lint's start-up goes.
const collection = mkdtempSync(join(tmpdir(), "gamma-prompt-startup-collection-"));
mkdirSync(join(collection, "skills", "a"), { recursive: true });
writeFileSync(join(collection, "skills", "a", "SKILL.md"), "---\nname: a\ndescription: Use when testing start-up.\n---\n\nBody.\n");

const commands = [
  { label: "node -e 0", args: ["-e", "0"], target: undefined },
  // The breakdown (no targets): the bin and the commands' definitions, then lint's own chunk on one skill.
  { label: "lint --help", args: [cli, "lint", "--help"], target: undefined },
  { label: "lint, one skill", args: [cli, "lint", "--root", collection], target: undefined },
  { label: "lint", args: [cli, "lint", "--root", project], target: 2.0 },
  { label: "check (no cache)", args: [cli, "check", "--root", project], target: 2.5, fresh: true },
  { label: "--help", args: [cli, "--help"], target: 1.3 },
  { label: "--version", args: [cli, "--version"], target: 1.2 },
];

function run(command) {
  if (command.fresh) rmSync(join(project, "node_modules"), { recursive: true, force: true });
  const cpuBefore = childrenCpuMs();
  const start = performance.now();
  const child = spawnSync(process.execPath, command.args, { encoding: "utf8", cwd: project });
  const ms = performance.now() - start;
  const cpuAfter = childrenCpuMs();
  if (child.status !== 0) throw new Error(`${command.label} exited ${child.status}: ${child.stderr}${child.stdout}`);
  return { ms, cpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore };
}


try {
  const samples = new Map(commands.map((command) => [command.label, { wall: [], cpu: 0 }]));
  for (const command of commands) run(command); // warm the file system cache
  const loadBefore = loadavg()[0];
  for (let round = 0; round < ROUNDS; round++) {
    for (const command of commands) {
      const { ms, cpuMs } = run(command);
      const sample = samples.get(command.label);
      sample.wall.push(ms);
      sample.cpu = cpuMs === undefined || sample.cpu === undefined ? undefined : sample.cpu + cpuMs;
    }
  }
  const loadAfter = loadavg()[0];
  const node = samples.get("node -e 0");
  const nodeWall = median(node.wall);
  console.log(`embedded default, whole process, median wall time of ${ROUNDS} interleaved rounds; CPU time (user + sys) as the mean per run`);
  console.log(installed ? `the packed package installed into ${installed}, bin ${cli}` : `this repository's bin, ${cli}`);
  console.log(`load average (1 min): ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after`);
  for (const command of commands) {
    const sample = samples.get(command.label);
    const ms = median(sample.wall);
    const ratio = ms / nodeWall;
    const verdict = command.target === undefined ? "" : `  ${ratio.toFixed(2)}x node (target <= ${command.target.toFixed(1)}x) ${ratio <= command.target ? "ok" : "MISSED"}`;
    const cpu = sample.cpu === undefined || node.cpu === undefined ? "" : `  cpu ${(sample.cpu / ROUNDS).toFixed(0).padStart(4)} ms${command.target === undefined ? "" : ` ${(sample.cpu / node.cpu).toFixed(2)}x`}`;
    console.log(`${command.label.padEnd(18)} ${ms.toFixed(0).padStart(6)} ms${verdict}${cpu}`);
  }
} finally {
  rmSync(project, { recursive: true, force: true });
  rmSync(collection, { recursive: true, force: true });
  if (installed) rmSync(installed, { recursive: true, force: true });
}
