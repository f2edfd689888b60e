// `gamma-prompt lint` on the embedded default plus N generated reference
// skills, as whole processes: "flat" skills require nothing, "chained" ones
// each require the one before it (the first requires gml-cli), so the
// requirement graph is one chain N deep under the embedded skills, which carry
// conflictsWith. Flat and chained trees of the same size run in alternation so
// a busy machine slows both alike. Prints median wall times, mean CPU times
// (user + sys) and peak RSS, then the targets: chained <= 1.3x flat at 2,000,
// chained 4,000/1,000 growth <= 6, peak RSS at 10,000 chained <= 300 MB.
//
// `node bench/graph.bench.mjs 1000 2000` measures only the flat/chained pairs
// of those sizes (no growth or memory case).
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { measureAlternately } from "./helpers/process-timing.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..");
const cli = join(repo, "lib", "cli", "index.js");
const RUNS = 3;

const chosen = process.argv.slice(2).map(Number);
const pairs = chosen.length > 0 ? chosen : [1000, 2000];
const full = chosen.length === 0;

/** The embedded default plus `count` reference skills, chained or flat. */
function generate(root, count, chained) {
  for (const part of ["skills", "prompts", join("schemas", "tools"), join("schemas", "namespaces")]) cpSync(join(repo, part), join(root, part), { recursive: true });
  const name = (index) => `chain-${String(index).padStart(5, "0")}`;
  for (let index = 0; index < count; index++) {
    const lines = ["---", `name: ${name(index)}`, "type: reference"];
    lines.push(`description: Use when the task concerns synthetic topic ${index} and its cards, including edits to an existing deck on it.`);
    if (chained) lines.push("requiresSkills:", `  - ${index === 0 ? "gml-cli" : name(index - 1)}`);
    lines.push("---", "", `# Topic ${index}`, "", "## Terms", "");
    for (let row = 0; row < 10; row++) lines.push(`- **Term ${row}** means card element ${row}; write it as \`gml\` block ${row}.`);
    mkdirSync(join(root, "skills", name(index)), { recursive: true });
    writeFileSync(join(root, "skills", name(index), "SKILL.md"), `${lines.join("\n")}\n`);
  }
}

const lintArgs = (root) => [cli, "lint", "--root", root, "--format", "json"];
const loadLine = () => `load average ${loadavg().map((value) => value.toFixed(2)).join(" ")} on ${cpus().length} cores`;
const cpuText = (run) => (run.cpuMs === undefined ? "" : `, cpu ${run.cpuMs.toFixed(0).padStart(6)} ms`);
const line = (label, run) => {
  const report = JSON.parse(run.stdout);
  return `  ${label.padEnd(16)} ${run.ms.toFixed(0).padStart(6)} ms wall${cpuText(run)}, ${(run.rss / 1048576).toFixed(0).padStart(4)} MB peak, ${report.errorCount} errors`;
};

const base = mkdtempSync(join(tmpdir(), "gamma-prompt-graph-bench-"));
try {
  console.log(`${loadLine()} at the start; median wall of ${RUNS} whole processes, mean CPU`);
  const chainedRuns = {};
  const flatRuns = {};
  for (const count of pairs) {
    const flatRoot = join(base, `flat-${count}`);
    const chainRoot = join(base, `chain-${count}`);
    generate(flatRoot, count, false);
    generate(chainRoot, count, true);
    const [flat, chained] = measureAlternately([lintArgs(flatRoot), lintArgs(chainRoot)], RUNS);
    flatRuns[count] = flat;
    chainedRuns[count] = chained;
    console.log(line(`${count} flat`, flat));
    console.log(line(`${count} chained`, chained));
    console.log(`  chained/flat at ${count}: ${(chained.ms / flat.ms).toFixed(2)}${chained.cpuMs && flat.cpuMs ? `, cpu ${(chained.cpuMs / flat.cpuMs).toFixed(2)}` : ""}`);
  }
  if (full) {
    for (const count of [4000, 10000]) {
      const root = join(base, `chain-${count}`);
      generate(root, count, true);
      const [chained] = measureAlternately([lintArgs(root)], count === 10000 ? 1 : RUNS);
      chainedRuns[count] = chained;
      console.log(line(`${count} chained`, chained));
    }
    const ratio = chainedRuns[2000].ms / flatRuns[2000].ms;
    const growth = chainedRuns[4000].ms / chainedRuns[1000].ms;
    const peak = chainedRuns[10000].rss / 1048576;
    console.log(`chained/flat at 2,000: ${ratio.toFixed(2)} (target <= 1.3) ${ratio <= 1.3 ? "ok" : "MISSED"}`);
    console.log(`chained 4k/1k:         ${growth.toFixed(2)} (target <= 6)   ${growth <= 6 ? "ok" : "MISSED"}`);
    console.log(`peak at 10k chained:   ${peak.toFixed(0)} MB (target <= 300) ${peak <= 300 ? "ok" : "MISSED"}`);
  }
  console.log(`${loadLine()} at the end`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
