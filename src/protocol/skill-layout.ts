/**
 * A project's skill layout as data: the config's `skills` and `ignore` globs, read without validating the
 * config, and what they name judged from paths alone. No listing and no parser: finding the project at
 * start-up uses it as discovery does.
 */
import { MAX_SOURCE_BYTES, readSmallText } from "./regular-file.js";
import { join } from "node:path";

/**
 * Where a project keeps its skills: folders or globs relative to the root
 * (`skills/*`, `plugins/*\/skills/*`, `skills/.curated/*`), and globs of
 * folders to leave out. Globs know `*` and `?` within one path segment and
 * `**` for any depth; like a shell, `*` does not match a name that starts
 * with a dot unless the pattern spells the dot.
 */
export interface SkillLayout {
  skills: readonly string[];
  ignore: readonly string[];
  /**
   * The build's output folder, root-relative (default `dist`). Discovery never
   * looks inside it, whatever the patterns say: a build copies every file of a
   * skill, so a nested `sub/SKILL.md` would otherwise come back as a skill.
   */
  outDir?: string;
}

export const DEFAULT_SKILL_PATTERNS: readonly string[] = ["skills/*"];
export const DEFAULT_LAYOUT: SkillLayout = { skills: DEFAULT_SKILL_PATTERNS, ignore: [] };
/** Never searched: dependencies and tooling state hold no project skills. */
export const NEVER_SEARCHED = new Set(["node_modules", ".git"]);
export const DEFAULT_OUT_DIR = "dist";
/** A build's transient neighbours of its output folder: staging folders and the lock (see emit/recovery.ts and emit/lock.ts). */
const TRANSIENT_PREFIXES = [".gamma-prompt-tmp-", ".gamma-prompt-lock-"];

/**
 * The layout alone, read without validating the config (for the no-change
 * fast path, which must not load the parsers); anything unexpected gives the
 * default, and the full run reports what is wrong with the file.
 */
export function readSkillLayout(root: string): SkillLayout {
  let parsed: unknown;
  try {
    // Never a blocking read: a FIFO or a device where the config belongs is the full run's finding (source/not-a-file).
    const text = readSmallText(join(root, "gamma-prompt.config.json"), MAX_SOURCE_BYTES);
    if (text === undefined) return DEFAULT_LAYOUT;
    parsed = JSON.parse(text);
  } catch {
    return DEFAULT_LAYOUT;
  }
  if (typeof parsed !== "object" || parsed === null) return DEFAULT_LAYOUT;
  const { skills, ignore } = parsed as { skills?: unknown; ignore?: unknown };
  const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string" && item !== "");
  return { skills: strings(skills) && skills.length > 0 ? skills : DEFAULT_SKILL_PATTERNS, ignore: strings(ignore) ? ignore : [] };
}

/**
 * Whether the layout names `folder` as a skill folder, judged from the path
 * alone: for a SKILL.md that is not on disk yet (an agent's draft, an
 * editor's unsaved new file), whose folder the listing cannot find.
 */
export function layoutNamesFolder(layout: SkillLayout, folder: string): boolean {
  if (folder === "" || excludedFolder(layout.outDir ?? DEFAULT_OUT_DIR)(folder)) return false;
  if (layout.ignore.map(globToRegExp).some((regexp) => isIgnored(regexp, folder))) return false;
  return layout.skills.some((pattern) => new RegExp(`${globToRegExp(pattern).source}$`).test(`${folder}/`));
}

/**
 * Whether a root-relative folder is one discovery never enters: the output
 * folder, a build's staging folders and lock, `node_modules` and `.git`
 * anywhere. An output folder outside the root (`../out`) excludes nothing.
 */
export function excludedFolder(outDir: string): (folder: string) => boolean {
  const out = normalisePattern(outDir);
  return (folder) => {
    if (folder === out || folder.startsWith(`${out}/`)) return true;
    return folder.split("/").some((name) => NEVER_SEARCHED.has(name) || TRANSIENT_PREFIXES.some((prefix) => name.startsWith(prefix)));
  };
}

/** A glob over a root-relative path; `**` crosses folders, `*` and `?` do not. */
export function globToRegExp(pattern: string): RegExp {
  const parts = normalisePattern(pattern).split("/").filter((segment) => segment !== "" && segment !== ".");
  const source = parts.map((part) => (part === "**" ? "(?:[^/]+/)*" : `${segmentToRegExp(part)}/`)).join("");
  return new RegExp(`^${source}`);
}

/** A folder is ignored when a glob matches it or one of the folders above it. */
export function isIgnored(regexp: RegExp, folder: string): boolean {
  return regexp.test(`${folder}/`);
}

export function segmentToRegExp(segment: string): string {
  let source = "";
  for (const character of segment) {
    if (character === "*") source += "[^/]*";
    else if (character === "?") source += "[^/]";
    else source += character.replace(/[\\^$.|+(){}[\]]/g, "\\$&");
  }
  return source;
}

export function normalisePattern(pattern: string): string {
  return pattern.replace(/\\/g, "/").replace(/^\.\//, "").replace(/\/+$/, "");
}
