// The project the 1,000-skill benchmarks run on: the embedded default's
// sources plus synthetic reference skills, with budgets raised for a catalog
// that size.
import { cp, mkdir, readdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Copies the embedded default and tops it up with synthetic skills to `skillCount` (0: none added); resolves to the skill count. */
export async function createProject(dir, skillCount) {
  for (const source of ["skills", "prompts", join("schemas", "tools"), join("schemas", "namespaces")]) {
    await cp(join(repo, source), join(dir, source), { recursive: true });
  }
  const embedded = (await readdir(join(dir, "skills"))).length;
  if (skillCount === 0) return embedded;
  // 1,000 skills make a catalog far over the default budgets; this project raises them.
  await writeFile(
    join(dir, "gamma-prompt.config.json"),
    `${JSON.stringify({ budgets: { prefixTokens: 2_000_000, catalogTokens: 2_000_000 } }, null, 2)}\n`,
  );
  for (let i = 0; i < skillCount - embedded; i++) {
    const name = `synthetic-${String(i).padStart(4, "0")}`;
    await mkdir(join(dir, "skills", name), { recursive: true });
    await writeFile(join(dir, "skills", name, "SKILL.md"), syntheticSkill(name, i));
  }
  return skillCount;
}

function syntheticSkill(name, i) {
  const topics = ["charts", "tables", "themes", "images", "speaker notes", "layouts", "citations", "exports"];
  const topic = topics[i % topics.length];
  const lines = [
    "---",
    `name: ${name}`,
    "type: reference",
    `description: Use when a card needs ${topic} guidance for case ${i}; covers limits, defaults and common mistakes.`,
    "requiresSkills: []",
    "conflictsWith: []",
    "---",
    "",
    `# ${topic} reference ${i}`,
    "",
  ];
  for (let section = 0; section < 6; section++) {
    lines.push(`## Section ${section + 1}`, "");
    for (let row = 0; row < 5; row++) lines.push(`- Rule ${section}.${row}: keep ${topic} consistent with the deck theme and the card's layout.`);
    lines.push("");
  }
  return lines.join("\n");
}
