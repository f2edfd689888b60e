// The baseline: Pi's own skill loader and catalog formatter, as a whole
// process, the way an agent start-up would run them. `ROOT` loads
// <ROOT>/skills; `--each ROOT...` loads every root's skills/; `--folders
// FILE` loads each skill folder FILE lists (one absolute path a line). Either
// way it formats one catalog of all the skills. Prints the counts and where
// the time went: importing Pi's package, and loading + formatting.
import { readFileSync } from "node:fs";

const started = performance.now();
const { formatSkillsForPrompt, loadSkillsFromDir } = await import("@earendil-works/pi-coding-agent");
const imported = performance.now();

const args = process.argv.slice(2);
const dirs =
  args[0] === "--folders"
    ? readFileSync(args[1], "utf8").split("\n").filter(Boolean)
    : (args[0] === "--each" ? args.slice(1) : [args[0]]).map((root) => `${root}/skills`);
const skills = [];
let diagnostics = 0;
for (const dir of dirs) {
  const loaded = loadSkillsFromDir({ dir, source: "project" });
  skills.push(...loaded.skills);
  diagnostics += loaded.diagnostics.length;
}
const catalog = formatSkillsForPrompt(skills);
const done = performance.now();
process.stdout.write(`${skills.length} skills, ${diagnostics} diagnostics, ${catalog.length} catalog chars; import ${(imported - started).toFixed(0)} ms, load + format ${(done - imported).toFixed(0)} ms\n`);
