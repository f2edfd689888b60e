import { readdirSync, readlinkSync, statSync } from "node:fs";
import { readRegularFile, statIfPossible } from "../../protocol/regular-file.js";
import { folderProblem } from "../../protocol/path-problem.js";
import { isAbsolute, join, relative, sep } from "node:path";
import { createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../stage-data.js";
import { MAX_SOURCE_BYTES, readBytes, SKILL_READ_RULES, toSourceFile, type SourceOverrides } from "./read-source.js";
import { PlainFolders } from "./read-inside-root.js";
import { DEFAULT_LAYOUT, describeSkillPatterns, ignoredFolder, isDefaultLayout, layoutNamesFolder, matchSkillFolders, suggestSkillPatterns, type SkillLayout, type UnreadableFolder } from "./skill-folders.js";
import { CONFIG_FILE } from "./source-paths.js";
import { compareCodeUnits, errorCode, unlistableFolder } from "./sources.js";
import { isWithin } from "../../protocol/within.js";
import { quoted } from "../../diagnostics/quote.js";
import { KNOWLEDGE_DIR } from "../../protocol/knowledge.js";
import { expectString } from "../../protocol/arguments.js";

/** The folder, relative to the project root, that holds one folder per skill. */
export const SKILLS_DIR = "skills";
export const SKILL_FILE = "SKILL.md";

/**
 * Thrown when the project root cannot hold skills at all, or when the output
 * folder would hold the root; callers treat it as bad usage, not a finding.
 */
export class ProjectRootError extends Error {
  override readonly name = "ProjectRootError";
  /** For a root without skills/: the globs that would find the SKILL.md files it holds elsewhere (the message names them); empty otherwise. */
  readonly skillPatterns: readonly string[];
  constructor(message: string, skillPatterns: readonly string[] = []) {
    super(message);
    this.skillPatterns = skillPatterns;
  }
}

/**
 * An output folder that holds the project root (`--out ""`, `--out .`,
 * `--out ..`) is refused before anything is read: a build would remove every
 * source as a file that is no artifact, and check has nothing of its own to compare.
 */
export function refuseOutputHoldingRoot(root: string, outDir: string, given: string | undefined): void {
  if (isWithin(outDir, root)) throw new ProjectRootError(`output folder "${given ?? "dist"}" holds the project root, expected a folder of its own such as "dist"`);
}

/** The folders whose files are sources, whatever the layout. */
const SOURCE_FOLDERS = ["skills", "prompts", "schemas", KNOWLEDGE_DIR] as const;

/**
 * An output folder inside a source folder (`skills/`, `prompts/`, `schemas/`,
 * `knowledge/`, or a skill folder of a layout of its own, which the
 * config's `skills` globs name) is refused before anything is read: a build's
 * artifacts would become sources of the next build, and check would call
 * the sources there artifacts that should not exist.
 */
export function refuseOutputInSourceFolder(root: string, outDir: string, given: string | undefined, layout: SkillLayout): void {
  const skillFolders = isDefaultLayout(layout) ? [] : matchSkillFolders(root, layout);
  const sourceFolder = [...SOURCE_FOLDERS, ...skillFolders].find((folder) => isWithin(join(root, folder), outDir));
  if (sourceFolder !== undefined) {
    throw new ProjectRootError(`output folder "${given ?? "dist"}" is inside the source folder ${sourceFolder}/, expected a folder of its own such as "dist"`);
  }
}

export interface SkillSources {
  /** Readable SKILL.md files, sorted by POSIX path. */
  files: SourceFile[];
  /** Findings about the tree itself and about files that could not be read. */
  diagnostics: Diagnostic[];
  /** Names of the skill folders whose SKILL.md is there but cannot be read (an error), sorted. */
  unreadFolders: string[];
  /** Every folder the layout names as a skill's, root-relative, whether or not its SKILL.md could be read. */
  folders: string[];
  /** Root-relative folders that could not be listed: skills under them may have gone unseen. */
  unlisted: string[];
}

/**
 * The config file a message tells the user to edit: the one given instead of
 * the root's own (`lint --config`, absolute), root-relative when it sits in
 * the project and as given otherwise; else the root's gamma-prompt.config.json.
 */
export function configInUse(root: string, configFile: string | undefined): string {
  if (configFile === undefined) return CONFIG_FILE;
  const inRoot = relative(root, configFile).split(sep).join("/");
  return inRoot.startsWith("../") || isAbsolute(inRoot) ? configFile : inRoot;
}

/** Every readable SKILL.md the layout (default `skills/*`) names under `root`, sorted by POSIX path. */
export async function discoverSkills(root: string, layout: SkillLayout = DEFAULT_LAYOUT): Promise<SourceFile[]> {
  expectString(root, "discoverSkills root", "the project root, such as \".\"");
  return (await loadSkillSources(root, layout)).files;
}

/**
 * Like {@link discoverSkills}, but also reports folders without SKILL.md and
 * unreadable files. File access is synchronous on purpose: for thousands of
 * small files it is several times faster than fs/promises, and lint has
 * nothing else to do while it waits. `configFile` is the config given instead
 * of the root's own (absolute), which a finding that asks for a config change names.
 */
export async function loadSkillSources(root: string, layout: SkillLayout = DEFAULT_LAYOUT, overrides?: SourceOverrides, configFile?: string): Promise<SkillSources> {
  const files: SourceFile[] = [];
  const diagnostics: Diagnostic[] = [];
  const unreadFolders: string[] = [];
  const unlisted: UnreadableFolder[] = [];
  const folders = skillFoldersWithUnsaved(root, layout, overrides, unlisted);
  // A folder that cannot be listed hides every skill in it: an error, so a build keeps dist/ rather than ship a catalog without them.
  diagnostics.push(...unlisted.map(({ folder, code }) => unlistableFolder("skill/unreadable-file", folder === "" ? "." : folder, code)));
  // One lookup per folder for the whole run, instead of resolving each file's path (read-inside-root.ts).
  const plain = new PlainFolders(root);
  for (const folder of folders) {
    const path = `${folder}/${SKILL_FILE}`;
    const result = overrides?.get(path) ?? readSkillFile(root, folder, path, plain, layout, configFile);
    if (result === undefined) continue;
    if ("text" in result) files.push(result);
    else {
      diagnostics.push(result);
      // A SKILL.md that is there but cannot be read (an error of its own) still names a skill, so what requires it does not cascade into
      // "unknown"; a folder without one (a warning) names none, and a requirement of it must fail as unknown, or a build would ship it.
      if (result.severity === "error") unreadFolders.push(folder.slice(folder.lastIndexOf("/") + 1));
    }
  }
  return { files, diagnostics, unreadFolders, folders, unlisted: unlisted.map(({ folder }) => folder) };
}

/** The skill folders, and the folders of unsaved SKILL.md texts the layout names that are not on disk yet. */
export function skillFoldersWithUnsaved(root: string, layout: SkillLayout, overrides: SourceOverrides | undefined, unreadable?: UnreadableFolder[]): string[] {
  const folders = findSkillFolders(root, layout, unreadable);
  if (!overrides) return folders;
  const listed = new Set(folders);
  for (const path of overrides.keys()) {
    const folder = path.endsWith(`/${SKILL_FILE}`) ? path.slice(0, -SKILL_FILE.length - 1) : undefined;
    if (folder !== undefined && !listed.has(folder) && layoutNamesFolder(layout, folder)) {
      listed.add(folder);
      folders.push(folder);
    }
  }
  return folders.sort(compareCodeUnits);
}

/**
 * Root-relative paths of the skill folders (`skills/<name>` by default),
 * sorted by code unit. Folders starting with a dot are matched only by a
 * pattern that spells the dot (`skills/.curated/*`). Folders on the way that
 * cannot be listed are added to `unreadable`.
 */
export function findSkillFolders(root: string, layout: SkillLayout = DEFAULT_LAYOUT, unreadable?: UnreadableFolder[]): string[] {
  assertProjectRoot(root, layout);
  return matchSkillFolders(root, layout, unreadable);
}


/** The skill file, or why it cannot be read; undefined for a folder that is no skill at all (no Markdown file: a helper folder such as `skills/_lib`). */
function readSkillFile(root: string, folder: string, path: string, plain: PlainFolders, layout: SkillLayout, configFile: string | undefined): SourceFile | Diagnostic | undefined {
  // Opening the expected file directly costs one syscall; the folder is listed only to explain a miss.
  const bytes = readBytes(root, path, MAX_SOURCE_BYTES, plain);
  if ("code" in bytes && (bytes.code === "ENOENT" || bytes.code === "ELOOP")) return unresolvedLink(root, folder) ?? missingSkillFile(root, folder, layout, configFile);
  return toSourceFile(path, bytes, SKILL_READ_RULES);
}

/** A skill folder that is a symbolic link to nothing (a moved target, a loop): the skill is missing from every host, so it is reported, not skipped. */
function unresolvedLink(root: string, folder: string): Diagnostic | undefined {
  const link = describeUnresolvedLink(join(root, folder));
  if (link === undefined) return undefined;
  return createDiagnostic("skill/missing-skill-file", folder, FILE_START, `Unexpected ${link}, expected a skill folder holding ${SKILL_FILE} (no host can load this skill)`);
}

/** `symbolic link to "x", which does not exist` (or `leads back to itself`) when `path` is a link that resolves to nothing; undefined otherwise. */
function describeUnresolvedLink(path: string): string | undefined {
  if (!statIfPossible(path, { noFollow: true })?.isSymbolicLink()) return undefined;
  let failure: string | undefined;
  try {
    statSync(path);
    return undefined;
  } catch (error) {
    failure = (error as NodeJS.ErrnoException).code;
  }
  let target: string;
  try {
    target = readlinkSync(path);
  } catch {
    return undefined;
  }
  return `symbolic link to ${quoted(target)}, which ${failure === "ELOOP" ? "leads back to itself" : "does not exist"}`;
}

function missingSkillFile(root: string, folder: string, layout: SkillLayout, configFile: string | undefined): Diagnostic | undefined {
  const names = listNames(join(root, folder));
  if (!Array.isArray(names)) return unlistableFolder("skill/unreadable-file", folder, names.code);
  const nearMiss = names.find((name) => name.toLowerCase() === SKILL_FILE.toLowerCase());
  // Listed under its own name, yet not found: a SKILL.md that is a link to nothing.
  const link = nearMiss === SKILL_FILE ? describeUnresolvedLink(join(root, folder, SKILL_FILE)) : undefined;
  if (link !== undefined) {
    return createDiagnostic("skill/missing-skill-file", `${folder}/${SKILL_FILE}`, FILE_START, `Unexpected ${link}, expected the skill's ${SKILL_FILE} (no host can load this skill)`);
  }
  if (nearMiss) {
    return createDiagnostic("skill/missing-skill-file", `${folder}/${nearMiss}`, FILE_START, `Unexpected file name "${nearMiss}", expected "${SKILL_FILE}"`);
  }
  // A group of skills one level too deep (skills/group/my-skill/SKILL.md under skills/*), with or without a README
  // beside them: no glob names them, and they would be left out of every run without a word, so the finding names
  // them and the glob that finds them rather than a SKILL.md the group does not need.
  const nested = nestedSkills(root, folder, names, layout, configFile);
  if (nested !== undefined) return nested;
  // A group folder: its subfolders hold skills the globs name (skills/group/* beside skills/*). Its README or other
  // Markdown describes the group; it needs no SKILL.md of its own, unless one of those files is a skill under
  // another name (Skill.markdown, pdf.md with a skill's frontmatter), which no host would load.
  if (names.some((name) => groupedSkill(root, layout, `${folder}/${name}`)) && !names.some((name) => skillUnderAnotherName(join(root, folder, name)))) return undefined;
  // A folder with files but no Markdown file holds no attempt at a skill: shared scripts or assets the skills beside it use.
  // An empty one is still reported: it is where a SKILL.md was deleted or is yet to be written.
  if (names.length > 0 && !names.some((name) => /\.(?:md|markdown)$/i.test(name))) return undefined;
  return createDiagnostic("skill/missing-skill-file", folder, FILE_START, `Unexpected skill folder without ${SKILL_FILE}, expected ${folder}/${SKILL_FILE}`);
}

/** Frontmatter as a skill opens: `---`, then a `name:` and a `description:` key before the closing `---`. */
const SKILL_FRONTMATTER = /^\uFEFF?---\r?\n(?:(?!---)[^\n]*\n)*?(?=(?:(?!---)[^\n]*\n)*?name:[ \t]*\S)(?=(?:(?!---)[^\n]*\n)*?description:)/;

/** A Markdown file that is a skill by its name (`Skill.markdown`) or by its frontmatter, though not named SKILL.md. */
function skillUnderAnotherName(path: string): boolean {
  if (!/\.(?:md|markdown)$/i.test(path)) return false;
  if (/[\\/]skill\.(?:md|markdown)$/i.test(path)) return true;
  const read = readRegularFile(path, { maxBytes: MAX_SOURCE_BYTES });
  return read.kind === "file" && SKILL_FRONTMATTER.test(read.bytes.subarray(0, 4096).toString("utf8"));
}

/** A subfolder holding a SKILL.md that the globs name and no `ignore` leaves out: a skill of the group it is in. */
function groupedSkill(root: string, layout: SkillLayout, sub: string): boolean {
  return layoutNamesFolder(layout, sub) && skillSubfolder(root, layout, sub);
}

/** A subfolder that holds a SKILL.md and no `ignore` leaves out, named by the globs or not. */
function skillSubfolder(root: string, layout: SkillLayout, sub: string): boolean {
  return !ignoredFolder(layout, sub) && (statIfPossible(join(root, sub, SKILL_FILE))?.isFile() ?? false);
}

/**
 * A folder the globs name that holds no skill of its own but subfolders with a
 * SKILL.md no glob names (and no `ignore` leaves out): a warning naming the
 * first of them and the glob that would find them; undefined when there is none.
 */
function nestedSkills(root: string, folder: string, names: readonly string[], layout: SkillLayout, configFile: string | undefined): Diagnostic | undefined {
  const nested = [...names]
    .sort(compareCodeUnits)
    .map((name) => `${folder}/${name}`)
    .filter((sub) => !layoutNamesFolder(layout, sub) && skillSubfolder(root, layout, sub));
  if (nested.length === 0) return undefined;
  const more = nested.length === 1 ? "" : ` and ${nested.length - 1} more`;
  return createDiagnostic(
    "skill/missing-skill-file",
    folder,
    FILE_START,
    `Unexpected skill folder without ${SKILL_FILE} whose subfolders hold skills the "skills" globs (${describeSkillPatterns(layout.skills)}) do not name (${nested[0]}/${SKILL_FILE}${more}), expected each skill in a folder the globs name: move them up, or add "${folder}/*" to "skills" in ${configInUse(root, configFile)}`,
  );
}

/**
 * Reads one root-relative file as normalised text (see read-source.ts). A
 * missing or unreadable file, or bytes that are not UTF-8, give a diagnostic.
 */
export async function readSourceFile(root: string, relPath: string): Promise<SourceFile | Diagnostic> {
  return readSourceFileSync(root, relPath);
}

export function readSourceFileSync(root: string, relPath: string): SourceFile | Diagnostic {
  return toSourceFile(relPath, readBytes(root, relPath), SKILL_READ_RULES);
}

function assertProjectRoot(root: string, layout: SkillLayout): void {
  const problem = folderProblem(root);
  if (problem !== undefined) throw new ProjectRootError(`project root "${root}" ${problem}`);
  // With the default layout a missing skills/ folder is a wrong --root; a configured layout may match nothing, which lint reports.
  if (isDefaultLayout(layout) && !isDirectory(join(root, SKILLS_DIR))) {
    const found = statIfPossible(join(root, SKILLS_DIR));
    const what = found === undefined ? `has no ${SKILLS_DIR}/ folder` : `has ${found.isFile() ? "a file" : "something other than a folder"} named ${SKILLS_DIR}, expected a ${SKILLS_DIR}/ folder`;
    // The skills may well be there under another layout: say where, as for a skills/ folder that holds none.
    const patterns = found === undefined ? suggestSkillPatterns(root) : [];
    const hint = patterns.length === 0 ? "" : `; SKILL.md files are under ${describeSkillPatterns(patterns)}: name ${patterns.length === 1 ? "that" : "the ones that hold the skills"} in "skills" of ${CONFIG_FILE} (gamma-prompt init writes it)`;
    throw new ProjectRootError(`project root "${root}" ${what}${hint}`, patterns);
  }
}

function isDirectory(path: string): boolean {
  return statIfPossible(path)?.isDirectory() ?? false;
}

/** A folder's names; none when it is absent or no folder, the error code when it exists but cannot be listed. */
function listNames(path: string): string[] | { code: string } {
  try {
    return readdirSync(path);
  } catch (error) {
    const code = errorCode(error);
    return code === "ENOENT" || code === "ENOTDIR" ? [] : { code };
  }
}

