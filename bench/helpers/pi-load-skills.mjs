// The baseline: Pi's own skill loader and catalog formatter on <root>/skills,
// as a whole process, the way an agent start-up would run them. With
// `--each ROOT...` it loads every root's skills/ and formats one catalog of all.
import { formatSkillsForPrompt, loadSkillsFromDir } from "@earendil-works/pi-coding-agent";

const args = process.argv.slice(2);
const roots = args[0] === "--each" ? args.slice(1) : [args[0]];
const skills = [];
let diagnostics = 0;
for (const root of roots) {
  const loaded = loadSkillsFromDir({ dir: `${root}/skills`, source: "project" });
  skills.push(...loaded.skills);
  diagnostics += loaded.diagnostics.length;
}
const catalog = formatSkillsForPrompt(skills);
process.stdout.write(`${skills.length} skills, ${diagnostics} diagnostics, ${catalog.length} catalog chars\n`);
