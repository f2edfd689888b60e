// The baseline: Pi's own skill loader and catalog formatter on <root>/skills,
// as a whole process, the way an agent start-up would run them.
import { formatSkillsForPrompt, loadSkillsFromDir } from "@mariozechner/pi-coding-agent";

const root = process.argv[2];
const { skills, diagnostics } = loadSkillsFromDir({ dir: `${root}/skills`, source: "project" });
const catalog = formatSkillsForPrompt(skills);
process.stdout.write(`${skills.length} skills, ${diagnostics.length} diagnostics, ${catalog.length} catalog chars\n`);
