// `gamma-prompt lint` against Pi's skill loader, both as whole processes on
// the same generated trees of 1,000 and 10,000 skills. Prints the medians,
// the lint/Pi ratio at 1,000 (target <= 1.0), the 10k/1k growth of lint
// (target <= 12) and lint's peak RSS at 10,000 (target <= 300 MB).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, timeProcess } from "./helpers/process-timing.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, "..", "lib", "cli", "index.js");
const piLoader = join(here, "helpers", "pi-load-skills.mjs");
const RUNS = { 1000: 5, 10000: 3 };

const STEP_VERBS = ["Read", "Draft", "Write", "Run", "Render", "Compare", "Collect", "Summarise", "Update", "Record"];

/** A realistic tree: groups of five, one reference and four workflows that require it; pairs of workflows conflict both ways. */
function generate(root, count) {
  const name = (index) => `skill-${String(index).padStart(5, "0")}`;
  for (let index = 0; index < count; index++) {
    const group = index - (index % 5);
    const reference = index % 5 === 0;
    const lines = ["---", `name: ${name(index)}`, `type: ${reference ? "reference" : "workflow"}`];
    lines.push(`description: ${reference ? "Use BEFORE" : "TRIGGER when asked to"} work on topic ${index} of the synthetic deck set, including edits to an existing deck about it.`);
    if (!reference) {
      lines.push("requiresSkills:", `  - ${name(group)}`);
      const partner = index % 5 === 1 ? index + 1 : index % 5 === 2 ? index - 1 : undefined;
      if (partner !== undefined && partner < count) lines.push("conflictsWith:", `  - ${name(partner)}`);
    }
    lines.push("---", "", `# Skill ${index}`, "");
    if (reference) {
      for (let row = 0; row < 40; row++) lines.push(row % 8 === 0 ? `\n## Section ${row / 8 + 1}\n` : `- **Term ${row}**: what the term means, with \`gml\` syntax and an example.`);
    } else {
      lines.push("Follow every step in order. Keep separate steps separate.", "", "## Checklist", "");
      for (let step = 1; step <= 12; step++) {
        lines.push(`${step}. **${STEP_VERBS[step % STEP_VERBS.length]} step ${step}.** Use \`gml render deck.gml --cards c${step}\` and note what changed.`);
        lines.push(`   Keep the output of step ${step} for the next step.`);
      }
      lines.push("13. **Verify the deck.** Inspect every card image and fix each defect.", "", "## Commands", "", "```sh", "gml validate deck.gml", "gml render deck.gml --out renders", "```", "", "Report each deviation with its cause.");
    }
    mkdirSync(join(root, "skills", name(index)), { recursive: true });
    writeFileSync(join(root, "skills", name(index), "SKILL.md"), `${lines.join("\n")}\n`);
  }
}

function measure(label, args, runs) {
  const samples = Array.from({ length: runs }, () => timeProcess(args));
  return { label, ms: median(samples.map((s) => s.ms)), rss: Math.max(...samples.map((s) => s.rss)), stdout: samples[0].stdout };
}

const base = mkdtempSync(join(tmpdir(), "gamma-prompt-lint-bench-"));
try {
  const results = {};
  for (const count of [1000, 10000]) {
    const root = join(base, String(count));
    generate(root, count);
    const lint = measure(`lint ${count}`, [cli, "lint", "--root", root, "--format", "json"], RUNS[count]);
    const pi = measure(`pi ${count}`, [piLoader, root], RUNS[count]);
    const report = JSON.parse(lint.stdout);
    results[count] = { lint, pi };
    console.log(
      `${String(count).padStart(6)} skills  lint ${lint.ms.toFixed(0).padStart(6)} ms (${(lint.rss / 1048576).toFixed(0)} MB, ${report.errorCount} errors, ${report.warningCount} warnings)` +
        `  pi ${pi.ms.toFixed(0).padStart(6)} ms (${(pi.rss / 1048576).toFixed(0)} MB)  ratio ${(lint.ms / pi.ms).toFixed(2)}`,
    );
  }
  const ratio = results[1000].lint.ms / results[1000].pi.ms;
  const growth = results[10000].lint.ms / results[1000].lint.ms;
  const peak = results[10000].lint.rss / 1048576;
  console.log(`lint/pi at 1,000: ${ratio.toFixed(2)} (target <= 1.0)  ${ratio <= 1 ? "ok" : "MISSED"}`);
  console.log(`lint 10k/1k:      ${growth.toFixed(2)} (target <= 12)   ${growth <= 12 ? "ok" : "MISSED"}`);
  console.log(`lint peak at 10k: ${peak.toFixed(0)} MB (target <= 300) ${peak <= 300 ? "ok" : "MISSED"}`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
