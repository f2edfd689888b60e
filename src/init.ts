import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { packageRoot } from "./package-paths.js";
import { expectBoolean, expectObject, expectOneOf, expectProjectOptions, expectString, expectStringArray, shownValue } from "./protocol/arguments.js";
import { describeFsError, fsErrorCode } from "./protocol/path-problem.js";
import { escapeControls } from "./diagnostics/printable.js";
import { CONFIG_FILE, MAX_SOURCE_BYTES } from "./pipeline/discover/source-paths.js";
import { readSmallText } from "./protocol/regular-file.js";
import { DESIGN_FIELDS } from "./protocol/manifest-spellings.js";
import type { ChosenSkillType } from "./skills/existing-types.js";

export type { ChosenSkillType } from "./skills/existing-types.js";

/**
 * `gamma-prompt init`: scaffolds a project that lints, builds and checks
 * cleanly as it stands. The files come from the package itself: the neutral
 * template set in templates/agent/, or the embedded Gamma project (skills/,
 * prompts/, schemas/tools/, schemas/namespaces/, knowledge/, evals/). Nothing is written when any target file already
 * exists, unless `force` is set.
 */

/** `agent`: the neutral template set; `gamma`: a copy of the embedded Gamma project. */
export type InitTemplate = "agent" | "gamma";
/** The lint profile the project's config names (the config key `profile`). */
export type InitProfile = "gamma" | "agentskills";

export const INIT_TEMPLATES: readonly InitTemplate[] = ["agent", "gamma"];
export const INIT_PROFILES: readonly InitProfile[] = ["gamma", "agentskills"];
export const DEFAULT_AGENT_NAME = "Assistant";

export interface InitOptions {
  /** The folder to scaffold into; created when missing. */
  dir: string;
  template?: InitTemplate;
  /**
   * `gamma` (default): an agent project with prompts/ and schemas/tools/.
   * `agentskills`: a plain Agent Skills collection (skills/ and the config;
   * the skills carry only the specification's keys).
   */
  profile?: InitProfile;
  /** The agent's name in the identity section of the neutral template. */
  name?: string;
  /** Overwrite files that already exist. */
  force?: boolean;
  /**
   * The folder already holds skills (a `SKILL.md` in `skills/<name>/` or
   * any other folder: see `findExistingSkills` in skills/existing-types.ts) and no
   * prompts/prefix.hbs, as a plain Agent Skills collection does: the scaffold adds the agent around them
   * (prompts/, schemas/tools/, the config, whose `skills` finds them and whose `skillTypes` gives each
   * skill without a type one: see skills/type-rule.ts)
   * and no example skill, whatever the profile, and never touches the skills.
   * `init` finds this out itself.
   */
  existingSkills?: boolean;
  /** Around existing skills outside `skills/*`: the config's `skills` globs (`init` derives them itself). */
  skillGlobs?: readonly string[];
  /** Around existing skills: the types for the config's `skillTypes` (`init` chooses them itself; `planScaffold` writes none without them). */
  skillTypes?: readonly ChosenSkillType[];
}

export interface InitResult {
  /** Every file was written. False when some already existed and `force` was not set: then nothing was written. */
  ok: boolean;
  /** The absolute folder. */
  dir: string;
  /** Every file the scaffold holds, relative to `dir`, sorted. */
  files: string[];
  /** Files written (all of `files` when ok, none otherwise). */
  written: string[];
  /** Files that already existed: skipped (nothing written) without `force`, overwritten with it. */
  existing: string[];
  /** Around existing skills: the type given to each skill that names none, in folder order. */
  skillTypes?: ChosenSkillType[];
  /** Around existing skills: the skill folders found, in folder order. */
  skillFolders?: string[];
  /** The `skills` globs written to the config (absent when the default `skills/*` finds every skill, or the config names its own). */
  skillGlobs?: string[];
  /** The keys of a config that was already there: kept as they were (init only adds the keys it lacks). */
  keptConfigKeys?: string[];
  /** The profile such a config names, which stays (whatever `profile` init was given). */
  keptProfile?: string;
  /**
   * Around existing skills, when the folder also holds a `SKILL.md` at its root: that skill is left out (a skill
   * sits in a folder of its own). Where to move it, and what: its folder and the entries that move with it.
   */
  rootSkill?: RootSkillMove;
}

/** Where a root `SKILL.md` goes to become one of the agent's skills. */
export interface RootSkillMove {
  /**
   * `skills/<name>`: the skill's name when it is a valid one, else the folder's, else `<name>`. When something is
   * already there, the first free `skills/<name>-<n>` (the skill then takes that name).
   */
  folder: string;
  /** `SKILL.md` and the specification's optional folders beside it (references/, scripts/, assets/) that exist. */
  entries: string[];
  /** `skills/<name>` when the move cannot go there: it holds a skill (the move would overwrite it), other files (it would mix with them) or is a file. */
  taken?: { folder: string; holds: "skill" | "files" | "file" };
  /**
   * The shell line that makes `folder` and moves `entries` into it, its paths from the working folder init ran in;
   * absent when no valid name is known.
   */
  command?: string;
}

/** Bad options or a target that cannot hold a project; the CLI exits 2. */
export class InitUsageError extends Error {
  override readonly name = "InitUsageError";
}

/** The config schema's own `$id`: where `$schema` points when no installed copy is found from the project's folder. */
export const CONFIG_SCHEMA_URL = "https://unpkg.com/gamma-prompt/schemas/config.schema.json";
const INSTALLED_SCHEMA = "node_modules/gamma-prompt/schemas/config.schema.json";

/**
 * Where the config's `$schema` points, from the config's own folder: the
 * schema of the package installed in that folder or the nearest folder above
 * it (a project in a subfolder of a monorepo, `init my-agent`), so editors
 * work offline; else the stable URL.
 */
export function configSchemaRef(dir: string): string {
  for (let folder = resolve(dir), up = 0; ; folder = dirname(folder), up++) {
    if (isFile(join(folder, INSTALLED_SCHEMA))) return up === 0 ? `./${INSTALLED_SCHEMA}` : `${"../".repeat(up)}${INSTALLED_SCHEMA}`;
    if (dirname(folder) === folder) return CONFIG_SCHEMA_URL;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

const NAME_PLACEHOLDER = "%AGENT_NAME%";
/** Keys only this project defines, in both spellings; a plain Agent Skills collection leaves them out. */
const EXTENSION_KEYS: ReadonlySet<string> = new Set(DESIGN_FIELDS.map((spelling) => spelling.field));
const PORTABLE_KEYS = new Set(DESIGN_FIELDS.map((spelling) => spelling.portableKey));

export async function init(options: InitOptions): Promise<InitResult> {
  expectProjectOptions(options, "init", "dir");
  expectScaffoldOptions(options);
  const dir = resolve(options.dir);
  usableFolder(dir, options.dir);
  const current = readConfig(dir);
  // Loaded only here: every other command starts without the skill search.
  const existingTypes = await import("./skills/existing-types.js");
  // An agent's folder is no collection to build around, unless init built it around one: its config's
  // `skillTypes` says so, and `--force` then types the skills added or mended since, and adds no example skill.
  const aroundCollection = isObject(current?.["skillTypes"]);
  const found = options.existingSkills === false || (isFile(join(dir, "prompts", "prefix.hbs")) && !aroundCollection) ? undefined : existingTypes.findExistingSkills(dir, current);
  const existingSkills = options.existingSkills ?? (found !== undefined && found.folders.length > 0);
  // A skill published as its own repository keeps SKILL.md at the root. The root is the agent's project: as a skill
  // folder, every file of the project would be the skill's (prompts/, dist/). It must move into a folder of its own.
  const rootSkill = found !== undefined && isFile(join(dir, ROOT_SKILL_FILE));
  if (rootSkill && !existingSkills) throw new InitUsageError(rootSkillMessage(dir, options.dir));
  const typedGlobs = isObject(current?.["skillTypes"]) ? Object.keys(current["skillTypes"]) : [];
  const skillTypes =
    existingSkills && (options.template ?? "agent") === "agent"
      ? (options.skillTypes ?? (await existingTypes.chooseTypesOfExistingSkills(dir, found?.folders ?? [], typedGlobs)))
      : undefined;
  const skillGlobs = options.skillGlobs ?? found?.globs;
  const files = planScaffold({ ...options, existingSkills, ...(skillTypes === undefined ? {} : { skillTypes }), ...(existingSkills && skillGlobs !== undefined ? { skillGlobs } : {}) });
  let keptConfigKeys: string[] | undefined;
  if (current !== undefined) {
    // A config already there (written over only with force) keeps every setting: init adds only the keys it lacks
    // (and skillTypes entries for skills no glob of it types).
    keptConfigKeys = Object.keys(current);
    files.set(CONFIG_FILE, Buffer.from(`${JSON.stringify(mergeConfig(current, JSON.parse(Buffer.from(files.get(CONFIG_FILE) as Uint8Array).toString("utf8")) as Record<string, unknown>), null, 2)}\n`));
  }
  const typed = {
    ...(skillTypes === undefined ? {} : { skillTypes: [...skillTypes], skillFolders: [...(found?.folders ?? [])] }),
    ...(existingSkills && skillGlobs !== undefined && current?.["skills"] === undefined ? { skillGlobs: [...skillGlobs] } : {}),
    ...(keptConfigKeys === undefined ? {} : { keptConfigKeys }),
    ...(typeof current?.["profile"] === "string" ? { keptProfile: current["profile"] } : {}),
    ...(rootSkill ? { rootSkill: rootSkillMove(dir, options.dir) } : {}),
  };
  const paths = [...files.keys()].sort(compare);
  const existing = paths.filter((path) => occupied(join(dir, path)));
  if (existing.length > 0 && options.force !== true) return { ok: false, dir, files: paths, written: [], existing, ...typed };
  writeScaffold(dir, options.dir, paths, files);
  return { ok: true, dir, files: paths, written: paths, existing, ...typed };
}

/**
 * Writes the scaffold all or nothing: every file first goes to a temporary
 * name beside its place (the folders it needs are made), and only when all
 * of them are written whole are they renamed into place. A failure (a full
 * disk, a folder that cannot be written, a folder where a file belongs)
 * removes the temporary files and the folders this run made, and says which
 * file failed and that nothing was written.
 */
function writeScaffold(dir: string, given: string, paths: readonly string[], files: ReadonlyMap<string, Uint8Array>): void {
  const made: string[] = [];
  const staged: Array<{ temp: string; file: string; replaces: boolean }> = [];
  const token = `${process.pid}.${randomBytes(4).toString("hex")}`;
  const undo = (): void => {
    for (const { temp } of staged) rmSync(temp, { force: true });
    // Deepest first; a folder someone else put something into meanwhile stays.
    for (const folder of [...made].sort((a, b) => b.length - a.length)) {
      try {
        rmdirSync(folder);
      } catch {
        // not empty, or already gone
      }
    }
  };
  const fail = (path: string, error: unknown, done: readonly string[] = []): never => {
    const code = fsErrorCode(error);
    if (code === undefined) throw error;
    const reason = code === "EISDIR" ? "it is a folder, expected a file" : `${describeFsError(code)} (${code})`;
    const kept = done.length === 0 ? "nothing was written" : `only ${done.join(", ")} ${done.length === 1 ? "was" : "were"} replaced, nothing else was written`;
    throw new InitUsageError(`"${escapeControls(given)}" cannot be written: ${escapeControls(path)}: ${reason}; ${kept}`);
  };
  for (const path of paths) {
    const file = join(dir, path);
    const temp = join(dirname(file), `.${basename(file)}.${token}.tmp`);
    try {
      if (lstatSync(file, { throwIfNoEntry: false })?.isDirectory() === true) throw Object.assign(new Error(`${path} is a folder`), { code: "EISDIR" });
      for (let folder = dirname(file), missing: string[] = []; ; folder = dirname(folder)) {
        if (lstatSync(folder, { throwIfNoEntry: false }) !== undefined || dirname(folder) === folder) {
          if (missing.length > 0) {
            mkdirSync(dirname(file), { recursive: true });
            made.push(...missing);
          }
          break;
        }
        missing.push(folder);
      }
      staged.push({ temp, file, replaces: lstatSync(file, { throwIfNoEntry: false }) !== undefined });
      writeFileSync(temp, files.get(path) as Uint8Array, { flag: "wx" });
    } catch (error) {
      undo();
      fail(path, error);
    }
  }
  for (const [index, { temp, file }] of staged.entries()) {
    try {
      renameSync(temp, file);
    } catch (error) {
      // Renames in one folder do not need space; should one still fail, the new files already in place go again.
      const done = staged.slice(0, index);
      for (const entry of done) if (!entry.replaces) rmSync(entry.file, { force: true });
      staged.splice(0, index);
      undo();
      fail(paths[index] as string, error, done.filter((entry) => entry.replaces).map((entry) => relative(dir, entry.file).split(sep).join("/")));
    }
  }
}

const ROOT_SKILL_FILE = "SKILL.md";
/** The folders the Agent Skills specification names beside SKILL.md. */
const SKILL_SUBFOLDERS = ["references", "scripts", "assets"];

/** The longest skill name the Agent Skills specification allows. */
const MAX_SKILL_NAME = 64;

/**
 * Where a SKILL.md at the root of `dir` would go, named after the skill (its frontmatter's `name` when valid) or the
 * folder, and the line that moves it from the working folder (`given` is the folder as init was given it).
 */
function rootSkillMove(dir: string, given: string): RootSkillMove {
  let text = "";
  try {
    // Never a blocking read: a FIFO where the SKILL.md belongs names the skill after the folder.
    text = (readSmallText(join(dir, ROOT_SKILL_FILE), MAX_SOURCE_BYTES) ?? "").slice(0, 65_536);
  } catch {
    // unreadable: named after the folder
  }
  const frontmatter = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? "";
  const written = /^name:[ \t]*(["']?)([^"'\r\n]*?)\1[ \t]*$/m.exec(frontmatter)?.[2];
  const valid = (name: string | undefined): name is string => name !== undefined && /^[a-z0-9]+(-[a-z0-9]+)*$/.test(name) && name.length <= MAX_SKILL_NAME;
  const name = valid(written) ? written : valid(basename(dir)) ? basename(dir) : undefined;
  const entries = [ROOT_SKILL_FILE, ...SKILL_SUBFOLDERS.filter((folder) => lstatSync(join(dir, folder), { throwIfNoEntry: false })?.isDirectory() === true).map((folder) => `${folder}/`)];
  if (name === undefined) return { folder: "skills/<name>", entries };
  let holds: ReturnType<typeof takenBy>;
  let free = name;
  try {
    holds = takenBy(join(dir, "skills", name));
    for (let n = 2; holds !== undefined && takenBy(join(dir, "skills", free)) !== undefined; n++) free = `${name.slice(0, MAX_SKILL_NAME - `-${n}`.length).replace(/-+$/, "")}-${n}`;
  } catch {
    // skills is a file, or a folder that cannot be read: no line, as there is no telling what it would meet
    return { folder: `skills/${name}`, entries };
  }
  const folder = `skills/${free}`;
  // Paths from the working folder, so the line works where init ran (`init my-skill`); never a `cd`, which would
  // leave the shell inside the folder, where running the same init again would scaffold a folder inside it.
  const at = fromWorkingFolder(dir, given);
  const path = (relativePath: string): string => shellWord(at === "" ? relativePath : `${at}/${relativePath}`);
  const command = `mkdir -p ${path(folder)} && mv ${entries.map((entry) => path(entry.replace(/\/$/, ""))).join(" ")} ${path(folder)}/`;
  return { folder, entries, ...(holds === undefined ? {} : { taken: { folder: `skills/${name}`, holds } }), command };
}

/**
 * What is at a skill folder's place already: nothing (or an empty folder), a skill, other files, or a file. Throws
 * when the folder above cannot hold it (a file, a folder that cannot be read).
 */
function takenBy(path: string): "skill" | "files" | "file" | undefined {
  const found = lstatSync(path, { throwIfNoEntry: false });
  if (found === undefined) return undefined;
  if (!found.isDirectory()) return "file";
  try {
    if (lstatSync(join(path, ROOT_SKILL_FILE), { throwIfNoEntry: false }) !== undefined) return "skill";
    return readdirSync(path).length > 0 ? "files" : undefined;
  } catch {
    // a folder that cannot be read: not one to move a skill into
    return "files";
  }
}

/** `dir` as a path from the working folder: "" when it is the working folder, relative when inside it, else as given. */
function fromWorkingFolder(dir: string, given: string): string {
  const rel = relative(process.cwd(), dir).split(sep).join("/");
  if (rel === "") return "";
  const path = rel === ".." || rel.startsWith("../") || resolve(rel) !== dir ? given.replace(/[\\/]+$/, "") || given : rel;
  // A word starting with "-" would be read as an option by mkdir and mv.
  return path.startsWith("-") ? `./${path}` : path;
}

/** The line breaks and tab as `$'…'` writes them. */
const SHELL_ESCAPES: Readonly<Record<string, string>> = { "\n": "\\n", "\t": "\\t", "\r": "\\r" };

/**
 * A word for a POSIX shell command line: as it is when it holds only characters no shell reads specially; in double
 * quotes when that is enough (`"my agent"`); else in single quotes; and a word holding a character
 * {@link escapeControls} escapes (a line break, ESC, a bidi control) in `$'…'`, that character as `\n`, `\t`, `\r` or
 * its UTF-8 bytes in octal (`\033`), so the printed line stays one line of plain text and still names the folder.
 */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_./@%+=:,-]+$/.test(word)) return word;
  if (escapeControls(word) === word) return /[$`"\\!]/.test(word) ? `'${word.replaceAll("'", "'\\''")}'` : `"${word}"`;
  const quoted = [...word].map((character) =>
    character === "'" || character === "\\"
      ? `\\${character}`
      : escapeControls(character) === character
        ? character
        : (SHELL_ESCAPES[character] ?? [...Buffer.from(character, "utf8")].map((byte) => `\\${byte.toString(8).padStart(3, "0")}`).join("")),
  );
  return `$'${quoted.join("")}'`;
}

/** Where the skill goes, after `lead` ("move it"), and why not to `skills/<name>/` when that is taken. */
export function rootSkillDestination(move: RootSkillMove, lead: string): string {
  const where = `into ${move.folder}/ (${move.entries.join(", ")} and any other file it uses)`;
  if (move.taken === undefined) return `${lead.charAt(0).toUpperCase()}${lead.slice(1)} ${where}`;
  const { folder, holds } = move.taken;
  const why = { skill: `${folder}/ already holds a skill, which the move would overwrite`, files: `${folder}/ already holds files, which the move would mix with the skill's`, file: `${folder} is a file, not a folder` }[holds];
  return `${why}: ${lead} ${where} instead, and name it ${move.folder.slice("skills/".length)} in its ${ROOT_SKILL_FILE}`;
}

/** Why init writes nothing in a folder whose only skill is its root SKILL.md, and what to do. */
function rootSkillMessage(dir: string, given: string): string {
  const move = rootSkillMove(dir, given);
  return [
    `"${escapeControls(given)}" holds a skill at its root (${ROOT_SKILL_FILE}) and no other: a project keeps each skill in a folder of its own, as its root holds the project's files (the config, prompts/); nothing was written.`,
    `${rootSkillDestination(move, "move the skill")}, then run init again: it writes the agent around that skill instead of example skills.`,
    ...(move.command === undefined ? [] : [`  ${move.command}`]),
  ].join("\n");
}

/** The config already in the folder, when it is a JSON object; undefined when absent or unreadable as one (then it is a file like any other: kept without --force, replaced with it). */
function readConfig(dir: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readSmallText(join(dir, CONFIG_FILE), MAX_SOURCE_BYTES) ?? "null");
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The config as it was, in its own key order, with the scaffold's keys it lacks after it; `skillTypes` gains the entries init chose (for skills none of its globs types). */
function mergeConfig(current: Record<string, unknown>, scaffold: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(scaffold)) {
    if (!(key in merged)) merged[key] = value;
    else if (key === "skillTypes" && isObject(merged[key]) && isObject(value)) merged[key] = { ...merged[key], ...value };
  }
  return merged;
}

/** The target is a folder, or can become one: nothing but folders on the way to it, a name the file system takes. */
function usableFolder(dir: string, given: string): void {
  let target: ReturnType<typeof statSync>;
  try {
    target = statSync(dir, { throwIfNoEntry: false });
  } catch (error) {
    const code = fsErrorCode(error) ?? "unreadable";
    throw new InitUsageError(`"${escapeControls(given)}" cannot be used as a folder: ${describeFsError(code)} (${code})`);
  }
  if (target && !target.isDirectory()) throw new InitUsageError(`"${escapeControls(given)}" exists and is not a folder`);
  if (target) return;
  for (let folder = dirname(dir); dirname(folder) !== folder; folder = dirname(folder)) {
    const above = statSync(folder, { throwIfNoEntry: false });
    if (above === undefined) continue;
    if (!above.isDirectory()) throw new InitUsageError(`"${escapeControls(given)}" cannot be created: ${escapeControls(folder)} is a file, not a folder`);
    return;
  }
}

/** The scaffold's files, relative path → bytes, without touching the target. */
export function planScaffold(options: Omit<InitOptions, "dir"> & { dir?: string }): Map<string, Uint8Array> {
  expectObject(options, "planScaffold options", 'an object such as { template: "agent" }');
  if (options.dir !== undefined) expectString(options.dir, "dir", 'the folder to set up, such as "."', true);
  expectScaffoldOptions(options);
  const template = options.template ?? "agent";
  const profile = options.profile ?? "gamma";
  if (!INIT_TEMPLATES.includes(template)) throw new InitUsageError(`Unexpected template "${String(template)}", expected one of ${INIT_TEMPLATES.join(", ")}`);
  if (!INIT_PROFILES.includes(profile)) throw new InitUsageError(`Unexpected profile "${String(profile)}", expected one of ${INIT_PROFILES.join(", ")}`);
  if (template === "gamma" && profile === "agentskills") {
    throw new InitUsageError("Unexpected --profile agentskills with --template gamma, expected the Gamma project with its own profile (gamma)");
  }
  const name = checkName(options.name ?? DEFAULT_AGENT_NAME);
  const files = new Map<string, Uint8Array>();
  const root = fileURLToPath(packageRoot);
  if (template === "gamma") {
    // evals/ too: its scenarios and recorded cassettes, so `eval --replay` runs in the copy as it does here.
    for (const folder of ["skills", "prompts", "schemas/tools", "schemas/namespaces", "knowledge", "evals"]) copyTree(join(root, folder), folder, files);
  } else {
    copyTree(join(root, "templates/agent"), "", files);
    const identity = "prompts/partials/identity.hbs";
    files.set(identity, Buffer.from(Buffer.from(files.get(identity) ?? new Uint8Array()).toString("utf8").replaceAll(NAME_PLACEHOLDER, name)));
  }
  if (options.existingSkills === true && template === "agent") {
    // An agent around skills that are already there: the example skills stay out, the skills stay as they are.
    for (const path of [...files.keys()]) if (path.startsWith("skills/")) files.delete(path);
    const skillTypes = options.skillTypes === undefined || options.skillTypes.length === 0 ? {} : { skillTypes: Object.fromEntries(options.skillTypes.map((chosen) => [chosen.folder, chosen.type])) };
    const skills = options.skillGlobs === undefined ? {} : { skills: [...options.skillGlobs] };
    files.set(CONFIG_FILE, Buffer.from(`${JSON.stringify({ $schema: configSchemaRef(options.dir ?? "."), profile, ...skills, ...skillTypes }, null, 2)}\n`));
    return files;
  }
  if (profile === "agentskills") {
    for (const path of [...files.keys()]) {
      if (!path.startsWith("skills/")) files.delete(path);
      else if (path.endsWith("/SKILL.md")) files.set(path, Buffer.from(withoutExtensionKeys(Buffer.from(files.get(path) as Uint8Array).toString("utf8"))));
    }
  }
  files.set(CONFIG_FILE, Buffer.from(`${JSON.stringify({ $schema: configSchemaRef(options.dir ?? "."), profile }, null, 2)}\n`));
  return files;
}

/** Something is at the path, or it cannot be created there (a parent is a file): either way, not ours to write. */
function occupied(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

/**
 * The options of init and planScaffold beside the folder, checked before
 * anything is read or written: a TypeError naming the option otherwise (a
 * single glob is refused, never written into the config as its characters).
 */
function expectScaffoldOptions(given: object): void {
  const options = given as Record<string, unknown>;
  if (options["name"] !== undefined) expectString(options["name"], "name", "the agent's name, one line", true);
  for (const key of ["force", "existingSkills"]) if (options[key] !== undefined) expectBoolean(options[key], key);
  if (options["skillGlobs"] !== undefined) expectStringArray(options["skillGlobs"], "skillGlobs", 'an array of globs for the config\'s "skills", such as ["skills/*"]');
  const skillTypes = options["skillTypes"];
  if (skillTypes === undefined) return;
  const expected = 'an array of { folder, type, reason }, such as [{ folder: "skills/review", type: "workflow", reason: "numbered steps" }]';
  if (!Array.isArray(skillTypes)) throw new TypeError(`Unexpected skillTypes ${shownValue(skillTypes)}, expected ${expected}`);
  skillTypes.forEach((chosen: unknown, index) => {
    expectObject(chosen, `skillTypes[${index}]`, "an object { folder, type, reason }");
    expectString(chosen["folder"], `skillTypes[${index}].folder`, 'the skill\'s folder relative to the project, such as "skills/review"');
    expectOneOf(chosen["type"], `skillTypes[${index}].type`, ["workflow", "reference"]);
    if (chosen["reason"] !== undefined) expectString(chosen["reason"], `skillTypes[${index}].reason`, "why that type, in words", true);
  });
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "" || trimmed.length > 80 || /[\n\r<>]|\{\{|\}\}|%AGENT_NAME%/.test(trimmed)) {
    throw new InitUsageError(`Unexpected agent name ${JSON.stringify(name)}, expected one line of at most 80 characters without <, >, {{ or }}`);
  }
  return trimmed;
}

/** Every regular file under `from` (dotfiles skipped), keyed by `prefix` + its relative path. */
function copyTree(from: string, prefix: string, into: Map<string, Uint8Array>): void {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) copyTree(join(from, entry.name), rel, into);
    else if (entry.isFile()) into.set(rel, readFileSync(join(from, entry.name)));
  }
}

/**
 * Drops this project's extension keys from a SKILL.md frontmatter the
 * scaffold owns: top-level keys with their list items, their portable
 * entries under metadata, and a metadata key left with nothing under it.
 */
function withoutExtensionKeys(text: string): string {
  const end = text.indexOf("\n---\n", 4);
  if (!text.startsWith("---\n") || end < 0) return text;
  const kept: string[] = [];
  let dropping = false;
  for (const line of text.slice(4, end).split("\n")) {
    const key = /^([A-Za-z][\w-]*):/.exec(line)?.[1];
    const nested = /^ +([A-Za-z][\w-]*):/.exec(line)?.[1];
    if (key !== undefined) dropping = EXTENSION_KEYS.has(key);
    else if (nested !== undefined) dropping = PORTABLE_KEYS.has(nested);
    else if (!/^\s/.test(line)) dropping = false;
    if (!dropping) kept.push(line);
  }
  const lines = kept.filter((line, position) => !(line === "metadata:" && !/^\s/.test(kept[position + 1] ?? "")));
  return `---\n${lines.join("\n")}${text.slice(end)}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
