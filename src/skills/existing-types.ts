import { readSourceFileSync, SKILL_FILE } from "../pipeline/discover/discover.js";
import { globToRegExp } from "../pipeline/discover/skill-folders.js";
import { parseSkillFile } from "../pipeline/parse/parse.js";
import type { SkillType } from "../stage-data.js";
import { chooseSkillType } from "./type-rule.js";

/** The type `init` gives one skill of a collection it builds an agent around. */
export interface ChosenSkillType {
  /** The skill's folder relative to the project, e.g. `skills/brainstorming`: the key in the config's `skillTypes`. */
  folder: string;
  type: SkillType;
  /** Why, in words. */
  reason: string;
}

/**
 * For each skill folder (root-relative) whose SKILL.md names no type of its
 * own (nor `type` in its `metadata`) and that no glob of `typed` (the
 * config's `skillTypes` already there) covers, the type {@link chooseSkillType}
 * gives it by the rule for a whole collection (a workflow only where the skill
 * declares an ordered procedure), in folder order. A skill whose file cannot
 * be read or parsed is left out: lint reports it.
 */
export async function chooseTypesOfExistingSkills(dir: string, folders: readonly string[], typed: readonly string[] = []): Promise<ChosenSkillType[]> {
  const covered = typed.map(globToRegExp);
  const chosen: ChosenSkillType[] = [];
  for (const folder of folders) {
    if (covered.some((regexp) => regexp.test(`${folder}/`))) continue;
    const source = readSourceFileSync(dir, `${folder}/${SKILL_FILE}`);
    if (!("text" in source)) continue;
    const parsed = await parseSkillFile(source);
    if (parsed.manifest === undefined || parsed.manifest.type !== undefined) continue;
    const choice = await chooseSkillType(source.text, parsed.body, parsed.bodyStartLine, { declared: true });
    if (choice !== undefined) chosen.push({ folder, type: choice.type, reason: choice.reason });
  }
  return chosen;
}
