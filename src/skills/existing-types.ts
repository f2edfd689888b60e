import { readdirSync } from "node:fs";
import { readSourceFileSync, SKILL_FILE, SKILLS_DIR } from "../pipeline/discover/discover.js";
import { parseSkillFile } from "../pipeline/parse/parse.js";
import type { SkillType } from "../stage-data.js";
import { chooseSkillType } from "./type-rule.js";

/** The type `init` gives one skill of a collection it builds an agent around. */
export interface ChosenSkillType {
  /** The skill's folder relative to the project, e.g. `skills/brainstorming`: the key in the config's `skillTypes`. */
  folder: string;
  type: SkillType;
  /** Why, in words (the rule `lint --fix` states). */
  reason: string;
}

/**
 * For each `skills/<name>/SKILL.md` under `dir` that names no type of its own
 * (nor `type` in its `metadata`), the type {@link chooseSkillType} gives it, in
 * folder order. A skill whose file cannot be read or parsed is left out: lint
 * reports it.
 */
export async function chooseTypesOfExistingSkills(dir: string): Promise<ChosenSkillType[]> {
  let names: string[];
  try {
    names = readdirSync(`${dir}/${SKILLS_DIR}`).sort();
  } catch {
    return [];
  }
  const chosen: ChosenSkillType[] = [];
  for (const name of names) {
    const folder = `${SKILLS_DIR}/${name}`;
    const source = readSourceFileSync(dir, `${folder}/${SKILL_FILE}`);
    if (!("text" in source)) continue;
    const parsed = await parseSkillFile(source);
    if (parsed.manifest === undefined || parsed.manifest.type !== undefined) continue;
    const choice = await chooseSkillType(source.text, parsed.body, parsed.bodyStartLine);
    if (choice !== undefined) chosen.push({ folder, type: choice.type, reason: choice.reason });
  }
  return chosen;
}
