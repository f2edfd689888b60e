// `gamma-prompt lint` against Pi's skill loader, both as whole processes on
// the same projects: the embedded default (its skills, prompts, tool schemas
// and committed dist/) plus 1,000 and plus 10,000 generated skills, run in
// alternation so a busy machine slows both alike; Pi loads the project's
// skills/ folder. Prints the median wall times and the mean CPU times (user +
// sys), the lint/Pi ratio at 1,000 (target <= 0.2), the 10k/1k growth of lint
// (target <= 12) and lint's peak RSS at 10,000 (target <= 200 MB).
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { measureAlternately } from "./helpers/process-timing.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..");
const cli = join(here, "..", "lib", "cli", "index.js");
const piLoader = join(here, "helpers", "pi-load-skills.mjs");
const RUNS = { 1000: 5, 10000: 3 };

const STEP_VERBS = ["Read", "Draft", "Write", "Run", "Render", "Compare", "Collect", "Summarise", "Update", "Record"];

/** The embedded default's sources and committed dist/, with budgets raised for a catalog of thousands of skills. */
function copyEmbeddedDefault(root) {
  for (const part of ["skills", "prompts", join("schemas", "tools"), join("schemas", "namespaces"), "dist"]) cpSync(join(repo, part), join(root, part), { recursive: true });
  writeFileSync(join(root, "gamma-prompt.config.json"), `${JSON.stringify({ budgets: { prefixTokens: 4_000_000, catalogTokens: 4_000_000 } }, null, 2)}\n`);
}

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

const cpuText = (cpuMs) => (cpuMs === undefined ? "" : `, cpu ${cpuMs.toFixed(0)} ms`);

const base = mkdtempSync(join(tmpdir(), "gamma-prompt-lint-bench-"));
try {
  const results = {};
  console.log(`load average (1 min) at the start: ${loadavg()[0].toFixed(2)}`);
  for (const count of [1000, 10000]) {
    const root = join(base, String(count));
    copyEmbeddedDefault(root);
    generate(root, count);
    const [lint, pi] = measureAlternately([[cli, "lint", "--root", root, "--format", "json"], [piLoader, root]], RUNS[count]);
    const report = JSON.parse(lint.stdout);
    results[count] = { lint, pi };
    const cpuRatio = lint.cpuMs === undefined || pi.cpuMs === undefined ? "" : `, cpu ${(lint.cpuMs / pi.cpuMs).toFixed(2)}`;
    console.log(
      `embedded default + ${String(count).padStart(5)} skills  lint ${lint.ms.toFixed(0).padStart(6)} ms (${(lint.rss / 1048576).toFixed(0)} MB, ${report.errorCount} errors, ${report.warningCount} warnings${cpuText(lint.cpuMs)})` +
        `  pi ${pi.ms.toFixed(0).padStart(6)} ms (${(pi.rss / 1048576).toFixed(0)} MB${cpuText(pi.cpuMs)})  ratio ${(lint.ms / pi.ms).toFixed(2)}${cpuRatio}`,
    );
  }
  const ratio = results[1000].lint.ms / results[1000].pi.ms;
  const growth = results[10000].lint.ms / results[1000].lint.ms;
  const peak = results[10000].lint.rss / 1048576;
  console.log(`lint/pi at 1,000: ${ratio.toFixed(2)} (target <= 0.2)  ${ratio <= 0.2 ? "ok" : "MISSED"}`);
  console.log(`lint 10k/1k:      ${growth.toFixed(2)} (target <= 12)   ${growth <= 12 ? "ok" : "MISSED"}`);
  console.log(`lint peak at 10k: ${peak.toFixed(0)} MB (target <= 200) ${peak <= 200 ? "ok" : "MISSED"}`);
  console.log(`load average (1 min) at the end: ${loadavg()[0].toFixed(2)}`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
