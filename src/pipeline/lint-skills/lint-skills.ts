import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { appendDiagnostics, compareDiagnostics, createDiagnostic, FILE_START, type Diagnostic, type Severity } from "../../diagnostics/diagnostic.js";
import type { RuleId } from "../../diagnostics/rules/index.js";
import type { SkillType, SourceFile, ValidSkill } from "../../stage-data.js";
import type { ChecklistStep } from "../../protocol/checklist.js";
import { DEFAULT_LAYOUT, describeSkillPatterns, globToRegExp, suggestSkillPatterns, type SkillLayout } from "../discover/skill-folders.js";
import { CONFIG_FILE } from "../discover/source-paths.js";
import type { Profile, RuleSetting, SkillTypeGlob } from "../validate/lint-config.js";
import { brokenLinkDiagnostics, planLinkCheck, type LinkPlan } from "../validate/links.js";
import { unreferencedFileDiagnostics } from "../validate/unreferenced-files.js";
import { unmatchedSkillTypeDiagnostics } from "../validate/skill-types.js";
import { applySuppressions, UNSUPPRESSIBLE_IN_UNREAD_SKILL } from "../validate/suppressions.js";
import { loadSkillSourcesReusing, type SkillSourceRecord } from "../discover/skill-sources.js";
import { configInUse, loadSkillSources } from "../discover/discover.js";
import { listSupportingEntries, walkSupportingFolder, type SupportingWalk } from "../discover/supporting-files.js";
import { PathProbes } from "../discover/path-probes.js";
import { PlainFolders } from "../discover/read-inside-root.js";
import type { SourceOverrides } from "../discover/read-source.js";
import { duplicateMessage, skillSetDiagnostics, skillSetKey, type SkillRecord } from "../validate/skill-set-rules.js";
import { defineSlot, type BuildSession } from "../session/build-session.js";
import { checkSkillFile, SkillParseCache } from "./checked-skill.js";
import { quoted } from "../../diagnostics/quote.js";

/**
 * The skills half of a build, and all of `lint`: discover every SKILL.md the
 * layout names (default skills/<folder>/SKILL.md), parse it, apply the
 * per-file rules of the profile and the link check, then the rules across
 * files, the inline suppressions and the config's severities. One broken
 * skill never stops the others from being checked.
 */

/** Checked files by content hash, kept by the session across builds. */
export const CHECKED_SKILLS = defineSlot<SkillParseCache>("checked skill files");
/** SKILL.md files as last read, with their stamps. */
const SKILL_SOURCES = defineSlot<Map<string, SkillSourceRecord>>("skill sources");

/** Each SKILL.md's unreferenced-file findings, with the body they were found for. */
const UNREFERENCED_FILES = defineSlot<Map<string, { body: string; diagnostics: Diagnostic[] }>>("unreferenced files");

/**
 * The unreferenced-file check lists the skill's folder and reads its
 * Markdown: a watch rebuild repeats it only for a skill whose body changed or
 * whose folder holds a changed path; any other run checks every skill.
 */
function unreferencedReuser(known: Map<string, { body: string; diagnostics: Diagnostic[] }>, changedPaths: readonly string[] | undefined) {
  return (path: string, body: string, check: () => Diagnostic[]): Diagnostic[] => {
    const folder = path.slice(0, path.lastIndexOf("/") + 1);
    const cached = known.get(path);
    if (cached && changedPaths && cached.body === body && !changedPaths.some((changed) => changed.startsWith(folder))) return cached.diagnostics;
    const diagnostics = check();
    known.set(path, { body, diagnostics });
    return diagnostics;
  };
}

/**
 * Each body's link plan (what its text gives the link check to look up), by body, as the last run used them:
 * a watch rebuild reads one changed skill, and finding the links and path mentions in every other body again
 * was most of the link check's time. The lookups themselves are made again on every run.
 */
const LINK_PLANS = defineSlot<{ plans: Map<string, { bodyStartLine: number; plan: LinkPlan }> }>("link plans");

/** The findings across skills, with the key of each record (and of the unread folders) they were made from. */
const SKILL_SET = defineSlot<{ keys: string[]; diagnostics: Diagnostic[] }>("skill set findings");

/**
 * The rules across skills read every skill's name and references: a watch rebuild after a save that changed
 * none of them (nor where they are written) takes the last findings instead of walking the whole graph again.
 */
function skillSetReusing(known: { keys: string[]; diagnostics: Diagnostic[] }, records: readonly SkillRecord[], unreadFolders: readonly string[], namesByPlugin: boolean): Diagnostic[] {
  const keys = records.map(skillSetKey);
  keys.push(`\u0001${unreadFolders.join("\u0000")}`, namesByPlugin ? "\u0002plugin" : "\u0002agent");
  if (keys.length !== known.keys.length || keys.some((key, index) => key !== known.keys[index])) {
    known.keys = keys;
    known.diagnostics = skillSetDiagnostics(records, unreadFolders, namesByPlugin);
  }
  return known.diagnostics;
}

/** How one skill folder fared: `unread` (no readable SKILL.md), `invalid` (an error in its file) or `valid`. */
export interface SkillStatus {
  folder: string;
  status: "valid" | "invalid" | "unread";
}

export interface LintedSkills {
  /** Every finding about skills, sorted by file, position and rule id. */
  diagnostics: Diagnostic[];
  /** One entry per folder in skills/, sorted by folder. */
  statuses: SkillStatus[];
  /** Skills whose own file has no error diagnostic, sorted by name. */
  skills: ValidSkill[];
  /** How many SKILL.md files were checked. */
  skillFileCount: number;
  /** Every SKILL.md read, valid or not, in path order: its manifest with where each field is written, and its body. */
  files: SkillFileRecord[];
  /** The skill folders this run walked, by root-relative folder: what reads their supporting files next need not list them again. */
  walks: ReadonlyMap<string, SupportingWalk>;
  /**
   * The findings an inline suppression comment names and covers: hidden, or shown where no suppression may hide
   * them (`lint --fix` checks that a fix widens what a comment covers by none).
   */
  suppressed: Diagnostic[];
}

/** One SKILL.md as the rules saw it. */
export interface SkillFileRecord extends SkillRecord {
  body: string;
  bodyStartLine: number;
}

/** Which rules run and where the skills are: both lint and the compiler read the layout and rules from the config; the compiler always applies gamma. */
export interface SkillRuleSettings {
  profile: Profile;
  layout?: SkillLayout;
  /** Severity overrides from the config's `rules`. */
  rules?: ReadonlyMap<RuleId, RuleSetting>;
  /** Report a project without any skill (`skill/no-skills`); lint does, the compiler does not. */
  reportEmpty?: boolean;
  /** Files checked as given instead of as read, by root-relative path: `lint --fix` checks its fixed text before (or without) writing it, an editor its unsaved buffers. */
  sourceOverrides?: SourceOverrides;
  /** Read workflow checklists into `skills` (default true); no finding depends on them. */
  checklists?: boolean;
  /** The config's `skillTypes`: the type of a skill that names none, by glob of its folder. */
  skillTypes?: readonly SkillTypeGlob[];
  /** Where lookups of paths outside the listed sources are made and kept (link targets, plugins): the build persists them beside its findings. */
  probes?: PathProbes;
  /** The config file given instead of the root's own (`lint --config`), absolute: what `skill/no-skills` and `skill/missing-skill-file` tell the user to edit. */
  configFile?: string;
  /**
   * Skill names need only be unique within a plugin (`plugin:skill`), as for a plain collection linted under
   * agentskills. Default false: an agent, and every build, addresses a skill by its name alone.
   */
  namesByPlugin?: boolean;
  /**
   * Skill folders already walked by this run, by root-relative folder (a build's snapshot of its sources walks
   * every one just before): lint takes these walks instead of listing the folders again.
   */
  walks?: ReadonlyMap<string, SupportingWalk>;
}

/**
 * Throws ProjectRootError when `root` has no skills/ folder (with the default layout). With
 * `changedPaths` (watch), SKILL.md files the session read before and not
 * named there are taken unread.
 */
export async function lintSkills(root: string, session: BuildSession, changedPaths?: readonly string[], settings: SkillRuleSettings = { profile: "gamma" }): Promise<LintedSkills> {
  const layout = settings.layout ?? DEFAULT_LAYOUT;
  // Stamps pay off only in a later build of the same session: a one-shot run reads each SKILL.md without a stat first.
  const overrides = settings.sourceOverrides;
  const sources = session.repeated
    ? await loadSkillSourcesReusing(root, session.keep(SKILL_SOURCES, () => new Map()), changedPaths, layout, overrides, settings.configFile)
    : await loadSkillSources(root, layout, overrides, settings.configFile);
  // A one-shot run never sees the same file twice, so it neither hashes nor keeps checked files unless a caller put a cache there.
  const parseCache = session.repeated ? session.keep(CHECKED_SKILLS, () => new SkillParseCache()) : session.find(CHECKED_SKILLS);
  // A one-shot run never asks again: it keeps no findings by body, so nothing holds the bodies but the records.
  const unreferenced = session.repeated ? session.keep(UNREFERENCED_FILES, () => new Map()) : new Map<string, { body: string; diagnostics: Diagnostic[] }>();
  const reuseUnreferenced = session.repeated ? unreferencedReuser(unreferenced, changedPaths) : (_path: string, _body: string, check: () => Diagnostic[]) => check();
  const unreferencedOn = settings.rules?.get("skill/unreferenced-file") !== "off";
  // Nothing keeps the kept findings current while the rule is off: turned on again, every skill is checked anew.
  if (!unreferencedOn) unreferenced.clear();
  const found = [...sources.diagnostics];
  const typeGlobs = (settings.skillTypes ?? []).map(({ glob, type }) => ({ pattern: globToRegExp(glob), type }));
  const defaultTypeOf = (path: string): SkillType | undefined => typeGlobs.find(({ pattern }) => pattern.test(`${path.slice(0, path.lastIndexOf("/"))}/`))?.type;
  const records: Array<SkillFileRecord & { checklist?: ChecklistStep[] }> = [];
  // Each skill's folder is listed once, for the unreferenced-file rule, for mentions of another skill's files, for how linked
  // files are spelled, and for the project checks that read the supporting files after lint (see `walks`).
  const walks = new Map<string, SupportingWalk>();
  const listings = new Map<string, ReturnType<typeof listSupportingEntries>>();
  const entriesOf = (folder: string): ReturnType<typeof listSupportingEntries> => {
    let entries = listings.get(folder);
    if (entries === undefined) {
      const walked = settings.walks?.get(folder) ?? walkSupportingFolder(root, folder);
      walks.set(folder, walked);
      listings.set(folder, (entries = listSupportingEntries(root, folder, walked)));
    }
    return entries;
  };
  const probes = settings.probes ?? new PathProbes(root);
  // The files the unreferenced-file rule follows are read like the skill files: below folders this run found to be
  // no link, without resolving each path (a link, or a folder that is one, still takes the resolving read).
  const plain = new PlainFolders(root);
  const linkPlans = session.repeated ? session.keep(LINK_PLANS, () => ({ plans: new Map() })) : undefined;
  const plansNow = new Map<string, { bodyStartLine: number; plan: LinkPlan }>();
  const planOf = (body: string, bodyStartLine: number): LinkPlan => {
    const known = plansNow.get(body) ?? linkPlans?.plans.get(body);
    const kept = known?.bodyStartLine === bodyStartLine ? known : { bodyStartLine, plan: planLinkCheck(body, bodyStartLine) };
    if (linkPlans) plansNow.set(body, kept);
    return kept.plan;
  };
  const pluginOf = pluginFinder(probes);
  let skillFiles: Set<string> | undefined;
  const inOtherSkill = (skillRelative: string): boolean => {
    skillFiles ??= new Set(sources.files.flatMap((file) => entriesOf(dirOf(file.path)).map((entry) => entry.path.slice(dirOf(file.path).length + 1))));
    return skillFiles.has(skillRelative);
  };
  for (const file of sources.files) {
    const checked = await checkSkillFile(file, parseCache, settings.profile, settings.checklists !== false, defaultTypeOf(file.path));
    appendDiagnostics(found, checked.diagnostics);
    // Reads the files beside SKILL.md, so it is not part of the per-content cache. The skill's listing shows how
    // the files it links are spelled, so a lookup there lists no folder again.
    probes.listedBy(dirOf(file.path), () => entriesOf(dirOf(file.path)).map((entry) => entry.path));
    if (checked.body !== "") appendDiagnostics(found, brokenLinkDiagnostics({ root, path: file.path, body: checked.body, bodyStartLine: checked.bodyStartLine, inOtherSkill, probes, plan: planOf(checked.body, checked.bodyStartLine), built: settings.profile === "gamma" }));
    // It lists the skill's folder: a project that turned the rule off does not pay for it. A file whose body
    // could not be read (no frontmatter to end, an empty file: its own error says so) names nothing, and every
    // file beside it would be reported for that alone.
    const bodyUnread = checked.body === "" && checked.diagnostics.some((diagnostic) => diagnostic.severity === "error");
    if (bodyUnread) unreferenced.delete(file.path);
    if (unreferencedOn && !bodyUnread) appendDiagnostics(found, reuseUnreferenced(file.path, checked.body, () => unreferencedFileDiagnostics({ root, path: file.path, body: checked.body, entries: entriesOf(dirOf(file.path)), plain })));
    const plugin = pluginOf(dirOf(file.path));
    records.push({ path: file.path, folder: folderOf(file.path), manifest: checked.manifest, opening: checked.opening, body: checked.body, bodyStartLine: checked.bodyStartLine, ...(plugin === undefined ? {} : { plugin }), ...(checked.checklist ? { checklist: checked.checklist } : {}) });
  }
  // Only the bodies of this run are kept.
  if (linkPlans) linkPlans.plans = plansNow;
  parseCache?.dropUnused();
  if (settings.skillTypes !== undefined) found.push(...unmatchedSkillTypeDiagnostics(settings.skillTypes, sources.folders, sources.unlisted, layout.ignore));
  // Skills no longer listed are forgotten.
  const listed = new Set(sources.files.map((file) => file.path));
  for (const path of unreferenced.keys()) if (!listed.has(path)) unreferenced.delete(path);
  const namesByPlugin = settings.namesByPlugin === true;
  appendDiagnostics(found, session.repeated ? skillSetReusing(session.keep(SKILL_SET, () => ({ keys: [], diagnostics: [] })), records, sources.unreadFolders, namesByPlugin) : skillSetDiagnostics(records, sources.unreadFolders, namesByPlugin));
  // No skill checked is a finding whatever else discovery saw (folders with a skill.md, empty folders), unless
  // discovery's own error already fails the run and names what to fix (a skills/ folder that cannot be read).
  if (settings.reportEmpty && sources.files.length === 0 && !applyRuleSettings(sources.diagnostics, settings.rules).some((diagnostic) => diagnostic.severity === "error")) {
    found.push(noSkillsDiagnostic(root, layout, settings.configFile));
  }
  const unread = new Set(records.filter((record) => unreadSkill(record.manifest, settings.profile)).map((record) => record.path));
  const suppressed: Diagnostic[] = [];
  const settled = applyRuleSettings(suppressInline(found, sources.files, unread, suppressed), settings.rules, unread).sort(compareDiagnostics);
  const diagnostics = namesByPlugin ? settled : keepSameNameErrors(settled, records);

  const filesWithErrors = new Set(diagnostics.filter((diagnostic) => diagnostic.severity === "error").map((diagnostic) => diagnostic.file));
  const statuses: SkillStatus[] = sources.unreadFolders.map((folder) => ({ folder, status: "unread" }));
  const skills: ValidSkill[] = [];
  for (const record of records) {
    const { manifest } = record;
    const valid = !filesWithErrors.has(record.path) && manifest?.name !== undefined && manifest.type !== undefined && manifest.description !== undefined;
    statuses.push({ folder: record.folder, status: valid ? "valid" : "invalid" });
    if (!valid || !manifest?.name || !manifest.type || manifest.description === undefined) continue;
    skills.push({
      name: manifest.name,
      type: manifest.type,
      description: manifest.description,
      requiresSkills: uniqueNames(manifest.requiresSkills),
      conflictsWith: uniqueNames(manifest.conflictsWith),
      path: record.path,
      body: record.body,
      bodyStartLine: record.bodyStartLine,
      ...(manifest.disableModelInvocation ? { disableModelInvocation: true as const } : {}),
      ...(record.checklist ? { checklist: record.checklist } : {}),
      ...(manifest.toolNamespaces.length > 0 ? { toolNamespaces: uniqueReferences(manifest.toolNamespaces) } : {}),
    });
  }
  statuses.sort((a, b) => compareCodeUnits(a.folder, b.folder));
  skills.sort((a, b) => compareCodeUnits(a.name, b.name));
  const files = records.map(({ path, folder, manifest, opening, body, bodyStartLine }) => ({ path, folder, manifest, opening, body, bodyStartLine }));
  return { diagnostics, statuses, skills, skillFileCount: sources.files.length, files, walks, suppressed };
}

/**
 * An agent loads a skill by its name alone, and the build writes one dist/skills/<name>.md and one manifest
 * entry per name: two skills of one name that would both compile (the config's `rules` or an inline suppression
 * lowered skill/name-duplicate) would leave one of them out without a word. There the finding stays an error,
 * also while either skill has another error: fixing that one must not bring up a new error on the next run.
 * The pairs are the rule's own (skill-set-rules.ts): each later skill of a name, against the first; where the
 * rule's finding still stands as an error, it is kept as it is.
 */
function keepSameNameErrors(diagnostics: Diagnostic[], records: readonly SkillRecord[]): Diagnostic[] {
  const standing = new Set(diagnostics.filter((diagnostic) => diagnostic.ruleId === "skill/name-duplicate" && diagnostic.severity === "error").map((diagnostic) => diagnostic.file));
  const firstByName = new Map<string, SkillRecord>();
  const raised: Diagnostic[] = [];
  for (const record of records) {
    const { manifest } = record;
    if (manifest?.name === undefined || manifest.nameRange === undefined) continue;
    const first = firstByName.get(manifest.name);
    if (first === undefined) {
      firstByName.set(manifest.name, record);
      continue;
    }
    if (standing.has(record.path)) continue;
    const name = quoted(manifest.name);
    const related = { file: first.path, range: first.manifest?.nameRange ?? first.opening, message: `first skill named ${name}` };
    // Worded as the rule words it (the other file and its plugin), and why it cannot be lowered.
    const message = `${duplicateMessage(manifest.name, record, first)} (in an agent this finding stays an error whatever the config's rules or a suppression say)`;
    raised.push(createDiagnostic("skill/name-duplicate", record.path, manifest.nameRange ?? record.opening, message, related));
  }
  if (raised.length === 0) return diagnostics;
  const kept = new Set(raised.map((diagnostic) => diagnostic.file));
  return [...diagnostics.filter((diagnostic) => !(diagnostic.ruleId === "skill/name-duplicate" && kept.has(diagnostic.file))), ...raised].sort(compareDiagnostics);
}

/**
 * The plugin a skill belongs to, each folder looked up once: the nearest
 * folder above the skill's that holds `.claude-plugin/plugin.json`, or,
 * nearer still, the folder holding the `skills/` folder the skill sits in
 * when a `.claude-plugin/marketplace.json` at or above it makes that folder
 * a marketplace's plugin. A plugin's manifest is optional once a marketplace
 * lists it, and its skills are the ones in its own `skills/` folder, so
 * `plugins/a/skills/setup` and `plugins/b/skills/setup` are `a:setup` and
 * `b:setup` even under a root `plugin.json`.
 */
function pluginFinder(probes: PathProbes): (skillFolder: string) => string | undefined {
  const holds = (folder: string, file: string): boolean => {
    const found = probes.exists(folder === "" ? `.claude-plugin/${file}` : `${folder}/.claude-plugin/${file}`);
    return found === "file" || found === "directory";
  };
  const inMarketplace = (folder: string): boolean => {
    for (let above = folder; ; above = dirOf(above)) {
      if (holds(above, "marketplace.json")) return true;
      if (above === "") return false;
    }
  };
  return (skillFolder) => {
    const skillsFolder = dirOf(skillFolder);
    const listed = baseOf(skillsFolder) === "skills" && inMarketplace(dirOf(skillsFolder)) ? dirOf(skillsFolder) : undefined;
    for (let folder = skillsFolder; folder !== ""; folder = dirOf(folder)) {
      if (folder === listed || holds(folder, "plugin.json")) return folder;
    }
    return listed ?? (holds("", "plugin.json") ? "" : undefined);
  };
}

/** Last segment of a root-relative path. */
function baseOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Root-relative folder of a root-relative path ("" at the top). */
function dirOf(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf("/")));
}

/** The name of the folder that holds SKILL.md: what `name` must equal. */
function folderOf(path: string): string {
  const folder = path.slice(0, path.lastIndexOf("/"));
  return folder.slice(folder.lastIndexOf("/") + 1);
}

/**
 * Inline `# gamma-prompt-disable…` comments, file by file; files without one pass through untouched. A skill
 * without a name, a description or (gamma profile) a type the build reads cannot compile: the findings that say
 * why stay, or it would leave the build without a word.
 */
function suppressInline(diagnostics: Diagnostic[], files: readonly SourceFile[], unread: ReadonlySet<string>, suppressed: Diagnostic[]): Diagnostic[] {
  const withComments = files.filter((file) => file.text.includes("gamma-prompt-disable"));
  if (withComments.length === 0) return diagnostics;
  const byFile = new Map(withComments.map((file) => [file.path, [] as Diagnostic[]]));
  const rest: Diagnostic[] = [];
  for (const diagnostic of diagnostics) (byFile.get(diagnostic.file) ?? rest).push(diagnostic);
  for (const file of withComments) appendDiagnostics(rest, applySuppressions(file, byFile.get(file.path) ?? [], unread.has(file.path), suppressed));
  return rest;
}

/** A skill without a name, a description or (gamma profile) a type the build reads: it cannot compile. */
export function unreadSkill(manifest: SkillRecord["manifest"], profile: Profile): boolean {
  return manifest?.name === undefined || manifest.description === undefined || (profile === "gamma" && manifest.type === undefined);
}

/**
 * `rules` in the config: "off" drops a rule's findings, "note", "warn" and "error" set their severity. In a skill
 * the build cannot read (`unread`, by path), the findings that say why (the rules no suppression hides there,
 * {@link UNSUPPRESSIBLE_IN_UNREAD_SKILL}) are never lowered: the skill would leave the build without a word.
 */
function applyRuleSettings(diagnostics: Diagnostic[], settings: ReadonlyMap<RuleId, RuleSetting> | undefined, unread: ReadonlySet<string> = new Set()): Diagnostic[] {
  if (!settings || settings.size === 0) return diagnostics;
  const result: Diagnostic[] = [];
  for (const diagnostic of diagnostics) {
    const setting = settings.get(diagnostic.ruleId);
    if (setting === undefined) {
      result.push(diagnostic);
      continue;
    }
    const severity = setting === "off" ? undefined : SETTING_SEVERITY[setting];
    if (severity === diagnostic.severity) result.push(diagnostic);
    else if (unread.has(diagnostic.file) && UNSUPPRESSIBLE_IN_UNREAD_SKILL.has(diagnostic.ruleId) && SEVERITY_RANK[severity ?? "off"] < SEVERITY_RANK[diagnostic.severity]) {
      result.push({ ...diagnostic, message: `${diagnostic.message} (in a skill without a name, description or type the build can read, this finding stays an error whatever the config's rules say)` });
    } else if (severity !== undefined) result.push({ ...diagnostic, severity });
  }
  return result;
}

const SEVERITY_RANK = { off: 0, note: 1, warning: 2, error: 3 } as const satisfies Record<Severity | "off", number>;

const SETTING_SEVERITY = { note: "note", warn: "warning", error: "error" } as const satisfies Record<Exclude<RuleSetting, "off">, Severity>;

function noSkillsDiagnostic(root: string, layout: SkillLayout, configFile: string | undefined): Diagnostic {
  const where = layout.skills.join(", ");
  // The config in use: the one given (root-relative when it sits in the project), else the root's own.
  const given = configFile === undefined ? undefined : configInUse(root, configFile);
  const hints = suggestSkillPatterns(root).filter((pattern) => !layout.skills.includes(pattern));
  const hint = hints.length > 0 ? `; SKILL.md files are under ${describeSkillPatterns(hints)}: add ${hints.length === 1 ? "that" : "the ones that hold the skills"} to "skills" in ${given ?? CONFIG_FILE}` : "";
  // Where the finding points: the config that names the folders, or (without one, or with one outside the project) the folder searched.
  const top = layout.skills[0]?.split("/")[0] ?? "";
  const configHere = given === undefined ? existsSync(join(root, CONFIG_FILE)) : !isAbsolute(given);
  const file = configHere ? (given ?? CONFIG_FILE) : top === "" || /[*?[{]/.test(top) ? (given === undefined ? CONFIG_FILE : ".") : top;
  return createDiagnostic(
    "skill/no-skills",
    file,
    FILE_START,
    `Unexpected project without a skill in ${where}, expected at least one folder with SKILL.md${hint} (pass --allow-empty when an empty project is intended)`,
  );
}

function uniqueNames(references: ReadonlyArray<{ name: string }>): string[] {
  return [...new Set(references.map((reference) => reference.name))];
}

/** The first mention of each name, with where it is written. */
export function uniqueReferences<T extends { name: string }>(references: readonly T[]): T[] {
  const seen = new Set<string>();
  return references.filter((reference) => !seen.has(reference.name) && seen.add(reference.name) !== undefined);
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
