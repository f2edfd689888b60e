import { readdirSync, statSync } from "node:fs";
import { readSmallText } from "./protocol/regular-file.js";
import { dirname, join, relative, resolve, sep } from "node:path";
import { CONFIG_FILE } from "./pipeline/discover/source-paths.js";
import { layoutNamesFolder, readSkillLayout } from "./protocol/skill-layout.js";
import { expectString } from "./protocol/arguments.js";

/**
 * Which project a command run in some folder means, found the way git,
 * eslint and tsc find theirs: the nearest folder, from the working folder
 * up, that holds a `gamma-prompt.config.json` or a project's sources
 * (`skills/`, or `prompts/prefix.hbs`); for the commands that read only a
 * build (`cost`, `report`, `eval`, `audit`), a built `dist/manifest.json`
 * counts too. A build's output folder is no project, though it holds
 * `skills/` (the compiled skills): run inside `dist/`, the search carries on
 * up to the project that built it. Nor is a plugin's `skills/` that the
 * nearest config above names in its globs: the collection is the project. The search stops at the
 * repository's top (a folder holding `.git`), so a project never reaches
 * into an unrelated folder above the checkout.
 */
export type ProjectMarker = "config" | "sources" | "build";

export interface FoundProject {
  /** Absolute path of the project's root. */
  root: string;
  /** What made it the project: its config file, its sources, or its build. */
  marker: ProjectMarker;
}

export interface FindProjectOptions {
  /** Accept a folder whose only sign of a project is a built `dist/manifest.json`. */
  build?: boolean;
}

export function findProject(from: string, options: FindProjectOptions = {}): FoundProject | undefined {
  expectString(from, "findProject from", "the folder to look from, such as process.cwd()");
  const folders = foldersUp(resolve(from));
  for (const [index, folder] of folders.entries()) {
    if (isFile(join(folder, CONFIG_FILE))) return { root: folder, marker: "config" };
    if (isBuildOutput(folder)) continue;
    if (isDirectory(join(folder, "skills"))) return collectionNaming(folder, folders.slice(index + 1)) ?? { root: folder, marker: "sources" };
    if (isFile(join(folder, "prompts", "prefix.hbs"))) return { root: folder, marker: "sources" };
    if (options.build === true && isFile(join(folder, "dist", "manifest.json"))) return { root: folder, marker: "build" };
  }
  return undefined;
}

/**
 * A plugin's `skills/` inside a collection whose config's `skills` globs name a skill folder in it (one for
 * plugins/NAME/skills/SKILL): the collection is the project, with its config, as a run from its top sees it (a
 * pre-commit hook that passes `plugins/b/skills/x/SKILL.md` would otherwise lint one plugin alone, under the
 * defaults). The nearest config above decides, read as discovery reads it; one whose globs name no folder of
 * this `skills/` leaves it its own project.
 */
function collectionNaming(folder: string, above: readonly string[]): FoundProject | undefined {
  for (const candidate of above) {
    if (!isFile(join(candidate, CONFIG_FILE))) continue;
    const layout = readSkillLayout(candidate);
    const skills = relative(candidate, join(folder, "skills")).split(sep).join("/");
    const named = subfolders(join(folder, "skills")).some((name) => layoutNamesFolder(layout, `${skills}/${name}`));
    return named ? { root: candidate, marker: "config" } : undefined;
  }
  return undefined;
}

function subfolders(folder: string): string[] {
  try {
    return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? [entry.name] : []));
  } catch {
    return [];
  }
}

/** What a marker means, for the line a command prints when it works on a project above the working folder. */
export function describeMarker(marker: ProjectMarker): string {
  return { config: `its ${CONFIG_FILE}`, sources: "its skills/ or prompts/", build: "its built dist/" }[marker];
}

/**
 * Folders below `from` (at most `depth` levels, node_modules skipped) that are projects as `findProject`
 * sees them (a config, or the sources: `skills/` or `prompts/prefix.hbs`): the projects of a monorepo, in
 * name order, at most `limit` of them. Nothing below a project is looked at. A dot folder is named when it
 * is a project itself (where hosts keep a repository's skills: `.claude/skills`, `.github/skills`) and never
 * walked into (`.git`, caches, virtual environments).
 */
export function projectsBelow(from: string, depth = 3, limit = 20): string[] {
  expectString(from, "projectsBelow from", "the folder to look below, such as process.cwd()");
  const found: string[] = [];
  const walk = (folder: string, left: number): void => {
    if (left < 0) return;
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (found.length >= limit) return;
      if (!entry.isDirectory() || entry.name === "node_modules") continue;
      const child = join(folder, entry.name);
      if (isProject(child)) found.push(relative(from, child).split("\\").join("/"));
      else if (!entry.name.startsWith(".")) walk(child, left - 1);
    }
  };
  walk(resolve(from), depth - 1);
  return found;
}

/** How many of the projects below a folder a message names. */
const PROJECTS_NAMED = 20;

/**
 * The projects below `from` as a message names them: "packages/agent-a, packages/agent-b", the first
 * {@link PROJECTS_NAMED} followed by ", and more" when there are more; undefined when there are none.
 */
export function namedProjectsBelow(from: string): string | undefined {
  // One more than is shown, to know there are more.
  const below = projectsBelow(from, 3, PROJECTS_NAMED + 1);
  if (below.length === 0) return undefined;
  return below.slice(0, PROJECTS_NAMED).join(", ") + (below.length > PROJECTS_NAMED ? ", and more" : "");
}

/** Whether `folder` itself is a project as `findProject` sees it (a config, or the sources), without looking above it. */
export function isProject(folder: string): boolean {
  if (isFile(join(folder, CONFIG_FILE))) return true;
  return !isBuildOutput(folder) && (isDirectory(join(folder, "skills")) || isFile(join(folder, "prompts", "prefix.hbs")));
}

/** A build's manifest is a few KB per skill: a larger file named so is no manifest to look into. */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/**
 * Whether `folder` is a build's output: it holds the manifest.json gamma-prompt writes (its `generator` names
 * gamma-prompt). Another program's manifest.json (a browser extension's, say) leaves the folder a project.
 */
function isBuildOutput(folder: string): boolean {
  const path = join(folder, "manifest.json");
  if (!isFile(path)) return false;
  try {
    const manifest = JSON.parse(readSmallText(path, MAX_MANIFEST_BYTES) ?? "null") as { generator?: { name?: unknown } } | null;
    return manifest?.generator?.name === "gamma-prompt";
  } catch {
    return false;
  }
}

/** `from` and each folder above it, up to the repository's top folder (the one holding `.git`) or the file system's root. */
function foldersUp(from: string): string[] {
  const folders: string[] = [];
  for (let folder = from; ; folder = dirname(folder)) {
    folders.push(folder);
    if (exists(join(folder, ".git")) || dirname(folder) === folder) return folders;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
