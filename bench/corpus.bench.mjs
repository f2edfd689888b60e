// `gamma-prompt lint` on a folder of real skill collections (default: the
// labelled corpus in corpus/, 983 skills in 21 collections), in one run, as a
// whole process, against Pi's loadSkillsFromDir + formatSkillsForPrompt on the
// same skill folders, also as one whole process. One lint run covers every
// collection through a config kept in a temporary folder (`--config`) whose
// `skills` globs are each collection's own (from its gamma-prompt.config.json,
// default `skills/*`) under the collection's folder; Pi loads each folder those
// globs name.
//
//   npm run bench -- corpus                      (the labelled corpus)
//   CORPUS=path/to/collections npm run bench -- corpus
//   node bench/corpus.bench.mjs path/to/collections
//
// Prints the medians, both peak RSS figures and the lint/Pi ratio (target <= 0.5),
// then where each side's time goes: Pi's import of its package beside its
// loading and formatting, and lint() called in one process four times: the
// first call (cold code, as in the CLI) and the later ones (code V8 has
// optimised by then), the floor the rules' own work sets.
import { existsSync, globSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { spawnSync } from "node:child_process";
import { measureAlternately } from "./helpers/process-timing.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, "..", "lib", "cli", "index.js");
const piLoader = join(here, "helpers", "pi-load-skills.mjs");
const RUNS = 7;
const TARGET = 0.5;

const corpus = resolve(process.argv[2] ?? process.env.CORPUS ?? join(here, "..", "corpus"));
if (!existsSync(corpus) || !statSync(corpus).isDirectory()) {
  console.log(`no corpus at ${corpus}: pass a folder of collections (each with skills/ or its own gamma-prompt.config.json) as an argument or in CORPUS`);
  process.exit(2);
}
/** Each collection's skill globs, from its own config, relative to the corpus. */
function globsOf(name) {
  let skills = ["skills/*"];
  try {
    skills = JSON.parse(readFileSync(join(corpus, name, "gamma-prompt.config.json"), "utf8")).skills ?? skills;
  } catch {
    // No config: the default layout.
  }
  return skills.map((glob) => `${name}/${glob}`);
}
const collections = readdirSync(corpus)
  .filter((name) => !name.startsWith(".") && statSync(join(corpus, name)).isDirectory())
  .sort();
const globs = collections.flatMap(globsOf);
const folders = globs.flatMap((glob) => globSync(glob, { cwd: corpus })).filter((folder) => existsSync(join(corpus, folder, "SKILL.md"))).sort();

const scratch = mkdtempSync(join(tmpdir(), "gamma-prompt-corpus-bench-"));
try {
  const config = join(scratch, "gamma-prompt.config.json");
  writeFileSync(config, `${JSON.stringify({ profile: "agentskills", skills: globs }, null, 2)}\n`);
  const list = join(scratch, "folders.txt");
  writeFileSync(list, `${folders.map((folder) => join(corpus, folder)).join("\n")}\n`);
  const lintArgs = [cli, "lint", "--root", corpus, "--config", config];
  const piArgs = [piLoader, "--folders", list];
  const before = loadavg()[0];
  const [lint, pi] = measureAlternately([lintArgs, piArgs], RUNS);
  const after = loadavg()[0];
  console.log(`corpus: ${corpus} (${collections.length} collections, ${folders.length} skill folders)`);
  const cpu = (run) => (run.cpuMs === undefined ? "" : `, ${run.cpuMs.toFixed(0)} ms CPU`);
  console.log(`lint  ${lint.ms.toFixed(0).padStart(6)} ms wall${cpu(lint)} (${(lint.rss / 1048576).toFixed(0)} MB; ${lint.stdout.trim().split("\n").at(-1)})`);
  console.log(`pi    ${pi.ms.toFixed(0).padStart(6)} ms wall${cpu(pi)} (${(pi.rss / 1048576).toFixed(0)} MB; ${pi.stdout.trim().split("\n").at(-1)})`);
  const ratio = lint.ms / pi.ms;
  const cpuRatio = lint.cpuMs !== undefined && pi.cpuMs ? `; CPU ${(lint.cpuMs / pi.cpuMs).toFixed(2)}` : "";
  console.log(`lint/pi on the corpus: ${ratio.toFixed(2)} wall${cpuRatio} (target <= ${TARGET})  ${ratio <= TARGET ? "ok" : "MISSED"}   (${RUNS} runs each, wall medians, CPU means; load average ${before.toFixed(1)} -> ${after.toFixed(1)})`);
  const library = join(here, "..", "lib", "index.js");
  const inProcess = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const { lint } = await import(${JSON.stringify(pathToFileURL(library).href)});
const times = [];
for (let run = 0; run < 4; run++) { const start = performance.now(); await lint({ root: ${JSON.stringify(corpus)}, config: ${JSON.stringify(config)}, checklists: false }); times.push(performance.now() - start); }
process.stdout.write(times.map((ms) => ms.toFixed(0)).join(" "));`,
    ],
    { encoding: "utf8" },
  );
  const [first, ...later] = inProcess.stdout.split(" ").map(Number);
  console.log(`lint() in one process: first call ${first} ms, later calls ${later.join(", ")} ms (the rules' work without start-up or cold code)`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
