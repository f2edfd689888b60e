// `gamma-prompt lint` on a folder of real skill collections (default: the
// shared corpus beside the repository), in one run, as a whole process,
// against Pi's loadSkillsFromDir + formatSkillsForPrompt on the same
// folders, also as one whole process. The corpus is read where it is, never
// copied: one lint run covers every collection through a config kept in a
// temporary folder (`--config`) whose `skills` globs name `<collection>/skills/*`.
//
//   npm run bench -- corpus                      (the shared corpus)
//   CORPUS=path/to/collections npm run bench -- corpus
//   node bench/corpus.bench.mjs path/to/collections
//
// Prints the medians, both peak RSS figures and the lint/Pi ratio (target <= 1.0).
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { measureAlternately } from "./helpers/process-timing.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, "..", "lib", "cli", "index.js");
const piLoader = join(here, "helpers", "pi-load-skills.mjs");
const RUNS = 7;

const named = process.argv[2] ?? process.env.CORPUS;
const found = named ?? ["../../shared/realworld-skills", "../../../shared/realworld-skills"].map((path) => join(here, path)).find((path) => existsSync(path));
if (found === undefined) {
  // A checkout without the shared corpus beside it (a fresh clone, CI): nothing to measure.
  console.log("skipped: no corpus beside the repository; pass a folder of collections (each with skills/) as an argument or in CORPUS");
  process.exit(0);
}
const corpus = resolve(found);
if (!existsSync(corpus) || !statSync(corpus).isDirectory()) {
  console.log(`no corpus at ${corpus}: pass a folder of collections (each with skills/) as an argument or in CORPUS`);
  process.exit(2);
}
const collections = readdirSync(corpus)
  .filter((name) => !name.startsWith(".") && existsSync(join(corpus, name, "skills")))
  .sort();

const scratch = mkdtempSync(join(tmpdir(), "gamma-prompt-corpus-bench-"));
try {
  const config = join(scratch, "gamma-prompt.config.json");
  writeFileSync(config, `${JSON.stringify({ profile: "agentskills", skills: collections.map((name) => `${name}/skills/*`) }, null, 2)}\n`);
  const lintArgs = [cli, "lint", "--root", corpus, "--config", config];
  const piArgs = [piLoader, "--each", ...collections.map((name) => join(corpus, name))];
  const before = loadavg()[0];
  const [lint, pi] = measureAlternately([lintArgs, piArgs], RUNS);
  const after = loadavg()[0];
  console.log(`corpus: ${corpus} (${collections.length} collections: ${collections.join(", ")})`);
  const cpu = (run) => (run.cpuMs === undefined ? "" : `, ${run.cpuMs.toFixed(0)} ms CPU`);
  console.log(`lint  ${lint.ms.toFixed(0).padStart(6)} ms wall${cpu(lint)} (${(lint.rss / 1048576).toFixed(0)} MB; ${lint.stdout.trim().split("\n").at(-1)})`);
  console.log(`pi    ${pi.ms.toFixed(0).padStart(6)} ms wall${cpu(pi)} (${(pi.rss / 1048576).toFixed(0)} MB; ${pi.stdout.trim().split("\n").at(-1)})`);
  const ratio = lint.ms / pi.ms;
  const cpuRatio = lint.cpuMs !== undefined && pi.cpuMs ? `; CPU ${(lint.cpuMs / pi.cpuMs).toFixed(2)}` : "";
  console.log(`lint/pi on the corpus: ${ratio.toFixed(2)} wall${cpuRatio} (target <= 1.0)  ${ratio <= 1 ? "ok" : "MISSED"}   (${RUNS} runs each, wall medians, CPU means; load average ${before.toFixed(1)} -> ${after.toFixed(1)})`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
