import { readdirSync, type Dirent } from "node:fs";
import { statIfPossible } from "../../protocol/regular-file.js";
import { DEFAULT_OUT_DIR, DEFAULT_SKILL_PATTERNS, excludedFolder, globToRegExp, isIgnored, layoutNamesFolder, NEVER_SEARCHED, normalisePattern, segmentToRegExp, type SkillLayout } from "../../protocol/skill-layout.js";
import { join } from "node:path";
import { errorCode, type UnreadableFolder } from "./sources.js";

export type { UnreadableFolder } from "./sources.js";
export { DEFAULT_LAYOUT, DEFAULT_SKILL_PATTERNS, globToRegExp, layoutNamesFolder, normalisePattern, readSkillLayout, type SkillLayout } from "../../protocol/skill-layout.js";

const SKILL_FILE = "SKILL.md";




export function isDefaultLayout(layout: SkillLayout): boolean {
  return layout.skills.length === 1 && layout.skills[0] === DEFAULT_SKILL_PATTERNS[0] && layout.ignore.length === 0;
}

interface FolderSearch {
  root: string;
  excluded: (folder: string) => boolean;
  unreadable: UnreadableFolder[];
}

/**
 * Root-relative POSIX paths of the skill folders the layout names, sorted by
 * code unit. A pattern without `**` names skill folders outright (one
 * without SKILL.md is reported); a pattern with `**` matches only folders
 * that hold SKILL.md, and does not descend into a skill. Folders that cannot
 * be listed are added to `unreadable` (each once).
 */
export function matchSkillFolders(root: string, layout: SkillLayout, unreadable: UnreadableFolder[] = []): string[] {
  const ignored = layout.ignore.map(globToRegExp);
  const excluded = excludedFolder(layout.outDir ?? DEFAULT_OUT_DIR);
  const found = new Set<string>();
  const search: FolderSearch = { root, excluded, unreadable };
  for (const pattern of layout.skills) {
    // Reported by the config's check (config/invalid); never followed out of the project.
    if (patternLeavesRoot(pattern)) continue;
    const segments = normalisePattern(pattern).split("/").filter((segment) => segment !== "" && segment !== ".");
    const deep = segments.includes("**");
    for (const folder of expand(search, "", segments)) {
      if (folder === "" || ignored.some((regexp) => isIgnored(regexp, folder))) continue;
      if (deep && !isFile(join(root, folder, SKILL_FILE))) continue;
      found.add(folder);
    }
  }
  return [...found].sort(compareCodeUnits);
}


/** Whether the config's `ignore` globs leave out `folder` (root-relative), whatever its `skills` globs say. */
export function ignoredFolder(layout: SkillLayout, folder: string): boolean {
  return layout.ignore.map(globToRegExp).some((regexp) => isIgnored(regexp, folder));
}

/** The config's `ignore` entry that leaves out `folder`, a folder its `skills` globs name; undefined when none does. */
export function ignoringEntry(layout: SkillLayout, folder: string): string | undefined {
  if (folder === "" || !layout.skills.some((pattern) => new RegExp(`${globToRegExp(pattern).source}$`).test(`${folder}/`))) return undefined;
  return layout.ignore.find((pattern) => isIgnored(globToRegExp(pattern), folder));
}

/**
 * Whether lint and build see a SKILL.md in the root-relative `folder`: a
 * folder the layout finds on disk, or, for text not on disk yet (`unsaved`),
 * one the layout names, as discovery takes an unsaved SKILL.md.
 */
export function layoutTakesSkillFolder(root: string, layout: SkillLayout, folder: string, options: { unsaved: boolean }): boolean {
  if (folder === "" || folder === ".") return false;
  if (options.unsaved && layoutNamesFolder(layout, folder)) return true;
  return matchSkillFolders(root, layout).includes(folder);
}

/**
 * Where the layout puts a new skill named `name`: `skills/<name>` for the
 * default, `<folder>/<name>` for the one pattern `<folder>/*` (or `/**`);
 * none when several patterns or a wildcard before the last segment leave the
 * choice open.
 */
export function newSkillFolder(layout: SkillLayout, name: string): string | undefined {
  if (layout.skills.length !== 1) return undefined;
  const segments = normalisePattern(layout.skills[0] ?? "").split("/").filter((segment) => segment !== "" && segment !== ".");
  const last = segments.pop();
  if ((last !== "*" && last !== "**") || segments.some((segment) => /[*?[]/.test(segment))) return undefined;
  const folder = [...segments, name].join("/");
  return layoutNamesFolder(layout, folder) ? folder : undefined;
}

/**
 * `skills/.curated/*`-style globs that would find SKILL.md files the layout
 * missed (for the hints of an empty project and of a root without skills/):
 * one `<parent>/*` per folder that holds skills, and one glob with `*` for
 * the folder that varies where parents differ in one name only
 * (`skills/*\/*`, `packages/*\/.apm/skills/*`). Globs outside dot folders
 * come first: `.github/skills/*` and `.agent/skills/*` are most often
 * copies of the skills kept for one host. The search looks five folders
 * deep and lists at most {@link HINT_FOLDER_BUDGET} folders, so a wrong
 * root (a home folder) stays cheap.
 */
export function suggestSkillPatterns(root: string): string[] {
  const parents = new Set<string>();
  let budget = HINT_FOLDER_BUDGET;
  const visit = (relative: string, depth: number): void => {
    if (budget-- <= 0) return;
    const listed = listDirectories(join(root, relative));
    // A hint only: a folder that cannot be listed suggests nothing.
    for (const entry of Array.isArray(listed) ? [...listed].sort(compareCodeUnits) : []) {
      if (NEVER_SEARCHED.has(entry) || (relative === "" && entry === DEFAULT_OUT_DIR)) continue;
      const child = relative === "" ? entry : `${relative}/${entry}`;
      if (isFile(join(root, child, SKILL_FILE))) {
        parents.add(relative);
        continue;
      }
      if (depth < HINT_DEPTH) visit(child, depth + 1);
    }
  };
  visit("", 0);
  const globs = collapseParents([...parents].sort(compareCodeUnits)).map((parent) => (parent === "" ? "*" : `${parent}/*`));
  const inDotFolder = (glob: string): boolean => glob.split("/").some((segment) => segment.startsWith("."));
  return [...globs.filter((glob) => !inDotFolder(glob)).sort(compareCodeUnits), ...globs.filter(inDotFolder).sort(compareCodeUnits)];
}

/** Folders listed at most by {@link suggestSkillPatterns}. */
const HINT_FOLDER_BUDGET = 2000;
/** How deep below the root {@link suggestSkillPatterns} lists folders: deep enough for `packages/*\/.apm/skills/*`. */
const HINT_DEPTH = 4;

/** Parents that differ in one folder name only (`skills/android`, `skills/ios`) as one pattern with `*` there (`skills/*`); a dot folder is never folded in, as `*` does not match one. */
function collapseParents(parents: readonly string[]): string[] {
  const done = new Set<string>();
  const result: string[] = [];
  for (const parent of parents) {
    if (done.has(parent)) continue;
    const segments = parent === "" ? [] : parent.split("/");
    let folded = false;
    for (let position = 0; position < segments.length && !folded; position++) {
      if (segments[position]?.startsWith(".")) continue;
      const group = parents.filter((other) => {
        if (done.has(other)) return false;
        const theirs = other === "" ? [] : other.split("/");
        return theirs.length === segments.length && !(theirs[position] ?? ".").startsWith(".") && theirs.every((segment, index) => index === position || segment === segments[index]);
      });
      if (group.length < 2) continue;
      for (const other of group) done.add(other);
      result.push(segments.map((segment, index) => (index === position ? "*" : segment)).join("/"));
      folded = true;
    }
    if (!folded) {
      done.add(parent);
      result.push(parent);
    }
  }
  return result;
}

/** Patterns as a hint names them: every one up to five, else the first four and how many more. */
export function describeSkillPatterns(patterns: readonly string[]): string {
  const quotedAll = patterns.map((pattern) => `"${pattern}"`);
  if (quotedAll.length <= 5) return quotedAll.join(", ");
  return `${quotedAll.slice(0, 4).join(", ")} and ${quotedAll.length - 4} more`;
}


function expand(search: FolderSearch, base: string, segments: readonly string[]): string[] {
  const { root, excluded } = search;
  const [head, ...rest] = segments;
  if (head === undefined) return [base];
  if (head === "**") {
    const results = expand(search, base, rest);
    // A skill folder ends the descent: its references/ and scripts/ are not skills.
    if (base !== "" && isFile(join(root, base, SKILL_FILE))) return results;
    for (const entry of listFolderEntries(search, base)) {
      const next = join2(base, entry);
      if (entry.startsWith(".") || excluded(next)) continue;
      results.push(...expand(search, next, segments));
    }
    return results;
  }
  if (!/[*?[]/.test(head)) {
    const next = join2(base, head);
    return !excluded(next) && isDirectory(join(root, next)) ? expand(search, next, rest) : [];
  }
  const regexp = new RegExp(`^${segmentToRegExp(head)}$`);
  const results: string[] = [];
  // A link that leads nowhere, where a skill folder is expected, is kept so discovery reports the skill no host can load.
  for (const entry of listFolderEntries(search, base, { withUnresolvedLinks: rest.length === 0 })) {
    const next = join2(base, entry);
    if ((entry.startsWith(".") && !head.startsWith(".")) || excluded(next)) continue;
    if (regexp.test(entry)) results.push(...expand(search, next, rest));
  }
  return results;
}

/** {@link listDirectories} of a root-relative folder, noting a folder that exists but cannot be listed. */
function listFolderEntries(search: FolderSearch, base: string, options: { withUnresolvedLinks?: boolean } = {}): string[] {
  const listed = listDirectories(join(search.root, base), options);
  if (!Array.isArray(listed)) {
    if (!search.unreadable.some((entry) => entry.folder === base)) search.unreadable.push({ folder: base, code: listed.code });
    return [];
  }
  return listed;
}




/** Whether a `skills` pattern climbs out of the project root (a `..` segment): skills live inside the project. */
export function patternLeavesRoot(pattern: string): boolean {
  return normalisePattern(pattern).split("/").includes("..");
}


function join2(base: string, name: string): string {
  return base === "" ? name : `${base}/${name}`;
}

/**
 * Folders, links to folders, and with `withUnresolvedLinks` links whose target
 * is missing or loops; none when the folder is absent or no folder, and the
 * error code when it exists but cannot be listed.
 */
function listDirectories(path: string, options: { withUnresolvedLinks?: boolean } = {}): string[] | { code: string } {
  let entries: Dirent[];
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch (error) {
    const code = errorCode(error);
    return code === "ENOENT" || code === "ENOTDIR" ? [] : { code };
  }
  return entries
    .filter((entry) => {
      if (entry.isDirectory()) return true;
      if (!entry.isSymbolicLink()) return false;
      const target = statIfPossible(join(path, entry.name));
      return target === undefined ? options.withUnresolvedLinks === true : target.isDirectory();
    })
    .map((entry) => entry.name)
    .sort(compareCodeUnits);
}

function isDirectory(path: string): boolean {
  return statIfPossible(path)?.isDirectory() ?? false;
}

function isFile(path: string): boolean {
  return statIfPossible(path)?.isFile() ?? false;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
