// `gamma-prompt build` on the embedded default plus 1,000 synthetic skills,
// as whole processes: a cold build (no dist/, no cache) beside Pi's skill
// loader on the same skills folder, then a build with nothing changed.
// Targets: cold <= 1.0x Pi's loader; no-change <= 0.3x cold.
//
// Each round also times what the machine takes, right then, to create as
// many files as the build writes, of the same sizes, in a fresh folder of
// the same file system (a plain loop of writeFileSync), printed beside the
// cold build's wall time: Pi's loader creates none.
//
// Nothing is deleted between the rounds: each cold build writes a new output
// folder, and every folder the rounds made is removed at the end. On ext4
// without a journal, creating a file in the minute (or, with the inode table
// not yet written back, six minutes) after many were deleted in the same
// block group makes the kernel step over each recently deleted inode, one
// buffer lookup at a time (`recently_deleted` in fs/ext4/ialloc.c): with the
// last round's 1,921 files removed before each build, the probe took 391 ms
// at the median on one such machine, against 59 ms with nothing deleted. A
// cold build where a user meets it (a fresh checkout, a new output folder)
// follows no deletion. Deletions made before the bench started still show,
// in the probe's figure (see docs/reference/benchmarks.md).
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, timeProcess } from "./helpers/process-timing.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..");
const cli = join(repo, "lib", "cli", "index.js");
const piLoader = join(here, "helpers", "pi-load-skills.mjs");
const SKILLS = 1000;
const RUNS = 7;

/** Ten skills per topic: one reference and nine workflows requiring it. */
function writeSyntheticSkills(root) {
  for (let index = 0; index < SKILLS; index++) {
    const name = `topic-${String(Math.floor(index / 10)).padStart(3, "0")}-${index % 10 === 0 ? "guide" : `flow-${index % 10}`}`;
    const reference = index % 10 === 0;
    const guide = `topic-${String(Math.floor(index / 10)).padStart(3, "0")}-guide`;
    const body = reference
      ? ["# Reference", "", "## Terms", "", ...Array.from({ length: 30 }, (_, row) => `- **Term ${row}** means card element ${row}; write it as \`gml\` block ${row}.`)]
      : [
          `# Workflow ${index}`,
          "",
          "Follow every step in order and report each deviation.",
          "",
          ...Array.from({ length: 14 }, (_, step) => `${step + 1}. Step ${step + 1}: edit card ${step + 1} with \`gml render deck.gml --cards c${step + 1}\`.`),
          "15. Verify every rendered card and repair each defect.",
          "",
          "## Notes",
          "",
          ...Array.from({ length: 16 }, (_, row) => `Keep note ${row} short and specific to topic ${index}.`),
        ];
    const frontmatter = [
      "---",
      `name: ${name}`,
      `type: ${reference ? "reference" : "workflow"}`,
      `description: ${reference ? "Use when" : "TRIGGER when"} the task concerns synthetic topic ${index} and its cards, including edits to an existing deck on it.`,
      ...(reference ? [] : ["requiresSkills:", `  - ${guide}`]),
      "---",
      "",
    ];
    mkdirSync(join(root, "skills", name), { recursive: true });
    writeFileSync(join(root, "skills", name, "SKILL.md"), `${[...frontmatter, ...body].join("\n")}\n`);
  }
}

const root = mkdtempSync(join(tmpdir(), "gamma-prompt-build-bench-"));
try {
  for (const part of ["skills", "prompts", join("schemas", "tools"), join("schemas", "namespaces")]) cpSync(join(repo, part), join(root, part), { recursive: true });
  writeSyntheticSkills(root);
  // A thousand skills need a larger catalog budget than the default's 4,000 tokens.
  writeFileSync(join(root, "gamma-prompt.config.json"), JSON.stringify({ budgets: { prefixTokens: 400000, catalogTokens: 400000 } }));
  const build = [cli, "build", "--root", root, "--format", "json"];

  // Pi's loader and the cold build take turns, so both meet the same moments of a shared machine.
  const loadBefore = loadLine();
  const pi = [];
  const cold = [];
  const creating = [];
  for (let round = 0; round < RUNS; round++) {
    pi.push(timeProcess([piLoader, root]));
    // The build cache is one file: removing it deletes three inodes, not a build's worth.
    rmSync(join(root, "node_modules"), { recursive: true, force: true });
    const out = `cold-${round}`;
    cold.push(timeProcess([cli, "build", "--root", root, "--out", out, "--format", "json"]));
    creating.push(timeFileCreation(join(root, out), join(root, `creation-probe-${round}`)));
  }
  timeProcess(build);
  const noChange = Array.from({ length: RUNS }, () => timeProcess(build));
  const last = JSON.parse(timeProcess(build).stdout);
  // Exit 1 is a finished run to the timer; a build with findings would time the wrong thing.
  if (!last.ok || last.errorCount > 0) throw new Error(`the benchmark project does not build: ${JSON.stringify(last.diagnostics).slice(0, 2000)}`);
  const summary = last.summary;
  const loadAfter = loadLine();

  const wall = (runs) => median(runs.map((run) => run.ms));
  // CPU time comes in 10 ms ticks: its mean over the runs is exact, a median would not be.
  const cpu = (runs) => (runs.some((run) => run.cpuMs === undefined) ? undefined : runs.reduce((sum, run) => sum + run.cpuMs, 0) / runs.length);
  const figures = (runs) => `${wall(runs).toFixed(0).padStart(5)} ms wall${cpu(runs) === undefined ? "" : `, ${cpu(runs).toFixed(0).padStart(5)} ms CPU (mean)`}`;
  const ratio = (a, b, of) => (of(a) !== undefined && of(b) !== undefined ? of(a) / of(b) : undefined);
  const coldToPi = ratio(cold, pi, wall);
  const coldToPiCpu = ratio(cold, pi, cpu);
  const noChangeToCold = ratio(noChange, cold, wall);
  console.log(`embedded default + ${SKILLS} synthetic skills (${SKILLS + 6} skills), median of ${RUNS} whole processes, pi and cold build interleaved`);
  console.log(`  ${loadBefore} before, ${loadAfter} after`);
  console.log(`  static prefix: ${summary.prefix.tokens} tokens; catalog: ${summary.catalog.tokens} tokens`);
  console.log(`  pi loader (loadSkillsFromDir + formatSkillsForPrompt): ${figures(pi)}`);
  console.log(`  cold build:      ${figures(cold)}  = ${coldToPi.toFixed(2)}x pi wall${coldToPiCpu === undefined ? "" : `, ${coldToPiCpu.toFixed(2)}x pi CPU`} (target <= 1.0)  ${coldToPi <= 1.0 ? "ok" : "MISSED"}`);
  console.log(`  creating the build's ${creating[0].files} files alone (same sizes, plain writeFileSync, each round after the build): median ${median(creating.map((run) => run.ms)).toFixed(0)} ms (${Math.min(...creating.map((run) => run.ms)).toFixed(0)}-${Math.max(...creating.map((run) => run.ms)).toFixed(0)})`);
  console.log(`  no-change build: ${figures(noChange)}  = ${noChangeToCold.toFixed(2)}x cold (target <= 0.3)  ${noChangeToCold <= 0.3 ? "ok" : "MISSED"}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}

/** Creates a copy of every file under `dist` in the fresh folder `copy`, timed: the file system's cost for the build's writes alone. Left for the end's removal. */
function timeFileCreation(dist, copy) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push({ relative: path.slice(dist.length + 1), bytes: readFileSync(path) });
    }
  };
  walk(dist);
  const folders = new Set(files.map((file) => dirname(join(copy, file.relative))));
  const start = performance.now();
  for (const folder of [...folders].sort()) mkdirSync(folder, { recursive: true });
  for (const file of files) writeFileSync(join(copy, file.relative), file.bytes);
  const ms = performance.now() - start;
  return { ms, files: files.length, bytes: files.reduce((sum, file) => sum + file.bytes.length, 0) };
}

function loadLine() {
  return `load average ${loadavg().map((value) => value.toFixed(2)).join(" ")} on ${cpus().length} cores`;
}
