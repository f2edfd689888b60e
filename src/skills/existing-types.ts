import { readdirSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { readSourceFileSync, SKILL_FILE } from "../pipeline/discover/discover.js";
import { globToRegExp, matchSkillFolders } from "../pipeline/discover/skill-folders.js";
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
 * declares an ordered procedure), in folder order. A skill whose frontmatter
 * does not parse is typed too (lint reports the error, and the type is there
 * once it is mended), unless its text names a type; one whose file cannot be
 * read, or has no frontmatter to end, is left out: lint reports it.
 */
export async function chooseTypesOfExistingSkills(dir: string, folders: readonly string[], typed: readonly string[] = []): Promise<ChosenSkillType[]> {
  const covered = typed.map(globToRegExp);
  const chosen: ChosenSkillType[] = [];
  for (const folder of folders) {
    if (covered.some((regexp) => regexp.test(`${folder}/`))) continue;
    const source = readSourceFileSync(dir, `${folder}/${SKILL_FILE}`);
    if (!("text" in source)) continue;
    const parsed = await parseSkillFile(source);
    if (parsed.manifest === undefined) {
      // A frontmatter the YAML parser refuses (an unquoted ": " in a description) is mended by its author, and
      // the skill then needs a type as any other does: typed from its body, unless its text names one itself.
      if (parsed.split === undefined || namesAType(source.text.slice(parsed.split.yamlStart, parsed.split.yamlEnd))) continue;
    } else if (parsed.manifest.type !== undefined) continue;
    const choice = await chooseSkillType(source.text, parsed.body, parsed.bodyStartLine, { declared: true });
    if (choice !== undefined) chosen.push({ folder, type: choice.type, reason: choice.reason });
  }
  return chosen;
}

/** A `type:` or `gamma-type:` line, at the top level or under `metadata`, in frontmatter that did not parse. */
function namesAType(frontmatter: string): boolean {
  return /^[ \t]*(?:gamma-)?type[ \t]*:/m.test(frontmatter);
}

/** Folders never searched for skills: dependencies, tooling state and build output. */
const NOT_SKILL_HOMES = new Set(["node_modules", ".git", "dist"]);
const SEARCH_DEPTH = 8;

/**
 * The skill folders already in `dir`, root-relative and sorted, and the
 * config `skills` globs that find exactly them. With a config that names its
 * own `skills`, those globs decide (and no glob is proposed). Otherwise every
 * folder below the root that holds a SKILL.md is a skill (the search skips
 * node_modules, .git, dist, a build's staging folders and the config's
 * `ignore` globs, and does not descend into a skill; dot folders such as
 * .claude/skills are searched, and their globs spell the dot); the globs are undefined when the default
 * `skills/*` finds them all, else one `<parent>/*` per parent folder, or
 * one glob with `*` for the folder that varies (`plugins/*\/skills/*`) when it
 * matches no other folder, or the folder itself when its parent holds other
 * folders too.
 */
export function findExistingSkills(dir: string, config: Record<string, unknown> | undefined): { folders: string[]; globs?: string[] } {
  const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string" && item !== "") : []);
  const ignore = strings(config?.["ignore"]);
  const named = strings(config?.["skills"]);
  if (named.length > 0) return { folders: matchSkillFolders(dir, { skills: named, ignore }).filter((folder) => isFile(join(dir, folder, "SKILL.md"))) };
  const ignored = ignore.map(globToRegExp);
  const folders: string[] = [];
  const visit = (relative: string, depth: number): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(dir, relative), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => compare(a.name, b.name))) {
      // Dot folders are searched (.claude/skills, .github/skills), but for tooling state and a build's staging folders.
      if (!entry.isDirectory() || NOT_SKILL_HOMES.has(entry.name) || entry.name.startsWith(".gamma-prompt-")) continue;
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (ignored.some((regexp) => regexp.test(`${child}/`))) continue;
      if (isFile(join(dir, child, "SKILL.md"))) folders.push(child);
      else if (depth < SEARCH_DEPTH) visit(child, depth + 1);
    }
  };
  visit("", 0);
  folders.sort(compare);
  if (folders.every((folder) => /^skills\/[^/]+$/.test(folder))) return { folders };
  return { folders, globs: globsFor(dir, folders, ignore) };
}

/** Globs that match exactly `folders` (see {@link findExistingSkills}). */
function globsFor(dir: string, folders: readonly string[], ignore: readonly string[]): string[] {
  const wanted = new Set(folders);
  const exact = (glob: string, expected: readonly string[]): boolean => {
    const matched = matchSkillFolders(dir, { skills: [glob], ignore });
    return matched.length === expected.length && matched.every((folder) => expected.includes(folder) && wanted.has(folder));
  };
  const byParent = new Map<string, string[]>();
  for (const folder of folders) {
    const parent = folder.includes("/") ? folder.slice(0, folder.lastIndexOf("/")) : "";
    byParent.set(parent, [...(byParent.get(parent) ?? []), folder]);
  }
  // Parents that differ in one folder name only (plugins/a/skills, plugins/b/skills) become one glob when it matches nothing else.
  const globs: string[] = [];
  const done = new Set<string>();
  const parents = [...byParent.keys()];
  for (const parent of parents) {
    if (done.has(parent) || parent === "") continue;
    const segments = parent.split("/");
    for (let position = 0; position < segments.length; position++) {
      const pattern = segments.map((segment, index) => (index === position ? "*" : segment)).join("/");
      const regexp = new RegExp(`^${pattern.split("/").map((segment) => (segment === "*" ? "[^/.][^/]*" : segment.replace(/[\\^$.|+(){}[\]*?]/g, "\\$&"))).join("/")}$`);
      const group = parents.filter((other) => !done.has(other) && regexp.test(other));
      if (group.length < 2) continue;
      const expected = group.flatMap((other) => byParent.get(other) ?? []);
      if (!exact(`${pattern}/*`, expected)) continue;
      globs.push(`${pattern}/*`);
      for (const other of group) done.add(other);
      break;
    }
  }
  for (const parent of parents) {
    if (done.has(parent)) continue;
    const children = byParent.get(parent) ?? [];
    const glob = parent === "" ? "*" : `${parent}/*`;
    if (exact(glob, children)) globs.push(glob);
    else globs.push(...children);
  }
  return globs.sort(compare);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
