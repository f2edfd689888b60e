import { dirname, join, posix, resolve } from "node:path";
import { expectAbortSignal, expectBoolean, expectOneOf, expectProjectOptions, expectString, expectStringArray, expectStringMap, shownValue } from "./protocol/arguments.js";
import { compareDiagnostics, countDiagnostics, withoutRepeats, type Diagnostic } from "./diagnostics/diagnostic.js";
import type { ValidSkill } from "./stage-data.js";
import type { ReportContext } from "./diagnostics/reporters/index.js";
import { lintSkills, type SkillRuleSettings } from "./pipeline/lint-skills/lint-skills.js";
import { BuildSession } from "./pipeline/session/build-session.js";
import { detectProfile, isAgentProject, PROFILES, readLintConfig, type Profile } from "./pipeline/validate/lint-config.js";
import { fixSkillAgain, fixSkillBytes, fixSkillFiles, type FileDeclinedFix, type FixedSkillFile, type SkillFix, type SkippedFix } from "./pipeline/fix/fix-skills.js";
import { FIXABLE_RULES } from "./pipeline/fix/fix-plan.js";
import { PORTABLE_MANIFEST_RULES } from "./pipeline/fix/portable-fixes.js";
import type { RuleId } from "./diagnostics/rules/index.js";
import { fixesDiff } from "./pipeline/fix/unified-diff.js";
import { writeFixedFiles } from "./pipeline/fix/write-fixes.js";
import { removeStaleTempFiles } from "./pipeline/fix/replace-file.js";
import { acceptedToolParametersIn } from "./pipeline/emit/verified-dist.js";
import { overrideSource, SKILL_READ_RULES, sourceReadRules, type SourceOverrides } from "./pipeline/discover/read-source.js";

export type { FixedSkillFile, SkillFix, SkippedFix } from "./pipeline/fix/fix-skills.js";

export { ProjectRootError } from "./pipeline/discover/discover.js";
export { ConfigFileError } from "./pipeline/validate/lint-config.js";
export { FixWriteError } from "./pipeline/fix/write-fixes.js";

export type { Profile, RuleSetting } from "./pipeline/validate/lint-config.js";

export interface LintOptions {
  /** Project root: the folder that holds skills/ (or the folders `skills` in the config names). */
  root: string;
  /**
   * Which rules apply, and what the project is; default: the config's
   * `profile`, else gamma for a project with prompts/prefix.hbs and
   * agentskills otherwise. Under agentskills the project is a skills
   * collection, whatever folders sit beside the skills, unless it has the
   * agent's files init writes.
   */
  profile?: Profile;
  /** Report a project without any skill (`skill/no-skills`, default true); `--allow-empty` passes false. */
  reportEmpty?: boolean;
  /**
   * Safe mechanical fixes in the frontmatter (see pipeline/fix/fix-plan.ts):
   * `write` applies them to the files, `dry-run` only reports them. Either
   * way the findings returned are those left after the fixes.
   */
  fix?: "write" | "dry-run";
  /** With `fix`: only these SKILL.md files (root-relative) are fixed; the findings are still the whole project's. */
  fixFiles?: readonly string[];
  /** A config file to read instead of root/gamma-prompt.config.json (its `skills` globs stay relative to the root). */
  config?: string;
  /**
   * Report only the findings in these files or folders (root-relative, `/`-separated; `"."` is the whole
   * project), as `gamma-prompt lint <paths...>` does for a pre-commit hook's staged files. The whole project is
   * still read, so a finding that depends on other skills (a broken requirement, a duplicate name) is the same;
   * the counts are those of the findings reported, and with `fix` only the SKILL.md files under them are fixed.
   */
  paths?: readonly string[];
  /** Read each workflow skill's checklist into `skills` (default true); false leaves `checklist` out, for a caller that wants the findings only. */
  checklists?: boolean;
  /** With `fix: "write"`: once aborted, nothing is written (lint throws the signal's reason instead); checked right before the first write. */
  signal?: AbortSignal;
}

/**
 * What lint found. It is also the {@link ReportContext} the reporters read:
 * `formatDiagnostics(format, result.diagnostics, result)` is the report
 * `gamma-prompt lint` prints, with the same options, from the project root.
 */
export interface LintResult extends ReportContext {
  /** Every finding, sorted by file, position and rule id. */
  diagnostics: Diagnostic[];
  errorCount: number;
  warningCount: number;
  /** Notes never fail a run. */
  noteCount: number;
  /** Skills whose own file has no error diagnostic, sorted by name. */
  skills: ValidSkill[];
  /** The profile whose rules ran. */
  profile: Profile;
  /** How many SKILL.md files were checked. */
  skillFileCount: number;
  /** With `fix`: every change, by file (root-relative), then in the order the passes made them (each pass by position). */
  fixes?: SkillFix[];
  /** With `fix`: each changed file's content before and after. */
  fixedFiles?: FixedSkillFile[];
  /** With `fix`: whether the fixes were written (`"write"`) or only reported (`"dry-run"`). */
  fixesWritten?: boolean;
  /** With `fix: "dry-run"`: the changes as one unified diff, paths relative to the root (what `lint --fix-dry-run` prints from the root). */
  fixDiff?: string;
  /** With `fix`: the files with fixable findings that were left as they are, and why (a symbolic link, or a file another program changed while lint ran); their findings stay in `diagnostics`. */
  fixesSkipped?: SkippedFix[];
}

/** Why `lint --fix` left a file unfixed that another program changed while it ran. */
const CHANGED_WHILE_FIXING = "it changed while lint --fix ran, and its fixes were computed from what it held before: nothing was written over the change; run lint --fix again";

/** At most this many passes of `lint --fix` over a file (each pass's fixes can make the next one's possible). */
const MAX_FIX_PASSES = 10;

/**
 * Checks every skill under `root`/skills. One broken skill never stops the
 * others from being checked: every problem in the files is a diagnostic.
 * Throws {@link ProjectRootError} only when `root` is not a folder or has no
 * skills/ folder, which is a usage problem rather than a finding.
 */
export async function lint(options: LintOptions): Promise<LintResult> {
  expectProjectOptions(options, "lint");
  if (options.fix !== undefined) expectOneOf(options.fix, "fix", ["write", "dry-run"]);
  if (options.fixFiles !== undefined) expectStringArray(options.fixFiles, "fixFiles", 'an array of root-relative SKILL.md paths, such as ["skills/x/SKILL.md"]');
  if (options.profile !== undefined) expectOneOf(options.profile, "profile", PROFILES);
  const within = options.paths === undefined ? undefined : pathsFilter(options.paths);
  if (options.config !== undefined) expectString(options.config, "config", "a config file's path", true);
  if (options.checklists !== undefined) expectBoolean(options.checklists, "checklists");
  if (options.reportEmpty !== undefined) expectBoolean(options.reportEmpty, "reportEmpty");
  if (options.signal !== undefined) expectAbortSignal(options.signal);
  // Absolute from here on: the readers cache per root, and "." means another folder after a chdir.
  const root = resolve(options.root);
  const { config, diagnostics: configDiagnostics } = readLintConfig(root, options.config);
  const profile = options.profile ?? config.profile ?? detectProfile(root);
  const agent = isAgentProject(root, profile);
  const settings = {
    profile,
    // A plain collection's hosts name a plugin's skills plugin:skill; an agent loads a skill by its name alone.
    namesByPlugin: profile === "agentskills" && !agent,
    layout: config.layout,
    rules: config.rules,
    reportEmpty: options.reportEmpty !== false,
    checklists: options.checklists !== false,
    ...(config.skillTypes ? { skillTypes: config.skillTypes } : {}),
    ...(options.config === undefined ? {} : { configFile: resolve(options.config) }),
  };
  let linted = await lintSkills(root, new BuildSession(), undefined, settings);
  let fixedFiles: FixedSkillFile[] | undefined;
  const skipped: SkippedFix[] = [];
  if (options.fix) {
    const only = options.fixFiles === undefined ? undefined : new Set(options.fixFiles);
    const fixable = linted.diagnostics.filter((diagnostic) => (only === undefined || only.has(diagnostic.file)) && (within === undefined || within(diagnostic.file)));
    const declined: FileDeclinedFix[] = [];
    const fixed = new Map((await fixSkillFiles(root, fixable, profile, skipped, declined)).map((file) => [file.file, file]));
    linted = (await fixInPasses(fixed, profile, linted, (overrides) => lintSkills(root, new BuildSession(), undefined, { ...settings, sourceOverrides: overrides }), declined, skipped)) ?? linted;
    skipped.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    fixedFiles = [...fixed.values()];
    if (options.fix === "write") {
      // What an earlier --fix killed before its rename left beside the skill files (never read as a source).
      for (const folder of new Set(linted.files.map((file) => dirname(join(root, file.path))))) removeStaleTempFiles(folder);
    }
    if (fixedFiles.length > 0 && options.fix === "write") {
      // The work so far never waited for I/O: one turn of the event loop lets a cancel the caller has been sent
      // meanwhile (an MCP client's notifications/cancelled, its closed output) abort the signal before the write.
      if (options.signal !== undefined) await new Promise((resolve) => setImmediate(resolve));
      options.signal?.throwIfAborted();
      const changed = new Set(writeFixedFiles(root, fixedFiles));
      if (changed.size > 0) {
        // Another program wrote these files while lint ran: their fixes were computed from bytes they no longer hold.
        for (const file of changed) skipped.push({ file, reason: CHANGED_WHILE_FIXING });
        skipped.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
        fixedFiles = fixedFiles.filter((file) => !changed.has(file.file));
        // Their findings are those of what they hold now; the others', of the fixes written.
        linted = await lintSkills(root, new BuildSession(), undefined, { ...settings, sourceOverrides: new Map(fixedFiles.map((file) => [file.file, file.source])) });
      }
    }
  }
  const agentFindings = agent ? await agentSourceDiagnostics(root, linted, options.config) : [];
  const found = withoutRepeats([...configDiagnostics, ...linted.diagnostics, ...agentFindings]);
  const diagnostics = (within === undefined ? found : found.filter((diagnostic) => within(diagnostic.file))).sort(compareDiagnostics);
  const result: LintResult = { diagnostics, ...countDiagnostics(diagnostics), skills: linted.skills, profile, skillFileCount: linted.skillFileCount };
  if (fixedFiles) {
    result.fixedFiles = fixedFiles;
    result.fixes = fixedFiles.flatMap((fixed) => fixed.fixes);
    result.fixesWritten = options.fix === "write";
    if (options.fix === "dry-run") result.fixDiff = fixesDiff(fixedFiles);
    result.fixesSkipped = skipped;
  }
  return result;
}

type Linted = Awaited<ReturnType<typeof lintSkills>>;

/**
 * Whether a finding's file (root-relative) lies in one of `paths`: the file itself or a folder above it.
 * A path leaving the root or absolute names nothing lint reads, and is refused as the caller's mistake.
 */
function pathsFilter(paths: readonly string[]): (file: string) => boolean {
  expectStringArray(paths, "paths", 'an array of root-relative files or folders, such as ["skills/x"]');
  const prefixes = paths.map((given, index) => {
    const path = posix.normalize(given.split("\\").join("/")).replace(/\/+$/, "");
    if (given === "" || posix.isAbsolute(path) || /^[A-Za-z]:/.test(path) || path === ".." || path.startsWith("../")) {
      throw new TypeError(`Unexpected paths[${index}] ${shownValue(given)}, expected a file or folder inside the root, relative to it (such as "skills/x" or ".")`);
    }
    return path;
  });
  if (prefixes.includes(".")) return () => true;
  return (file) => prefixes.some((prefix) => file === prefix || file.startsWith(`${prefix}/`));
}

/**
 * The passes after the first over files fixed in memory (`fixed`, updated in
 * place), until nothing more can be fixed, as one fix can make another
 * possible, or {@link MAX_FIX_PASSES} in all. Each pass's findings are those
 * of the text fixed so far (`relint` reads the fixed files' sources over the
 * disk's). After each pass, a file whose findings, or whose findings a
 * suppression comment covers, grew under any rule (compared with `baseline`,
 * then with the pass before) goes back to what it was before that pass and
 * is fixed no further: a fix never brings a finding or hides one. Those
 * files, and the findings a planner left for a person (`declined`, by the
 * latest pass that planned their file), are told in `skipped`. Returns the
 * last findings; undefined when nothing was fixed.
 */
async function fixInPasses(fixed: Map<string, FixedSkillFile>, profile: Profile, baseline: Linted, relint: (overrides: SourceOverrides) => Promise<Linted>, declined: readonly FileDeclinedFix[], skipped: SkippedFix[]): Promise<Linted | undefined> {
  const overrides = (): SourceOverrides => new Map([...fixed.values()].map((file) => [file.file, file.source]));
  const latest = new Map<string, FileDeclinedFix[]>();
  for (const entry of declined) latest.set(entry.file, [...(latest.get(entry.file) ?? []), entry]);
  let linted: Linted | undefined;
  let previous = baseline;
  // The files the pass changed, each with what it was before (undefined: as read).
  let changed = new Map<string, FixedSkillFile | undefined>([...fixed.keys()].map((file) => [file, undefined]));
  const stopped = new Set<string>();
  for (let pass = 1; changed.size > 0; pass++) {
    linted = await relint(overrides());
    let reverted = false;
    for (const [file, before] of changed) {
      const why = widenedFindings(previous, linted, file);
      if (why === undefined) continue;
      if (before === undefined) fixed.delete(file);
      else fixed.set(file, before);
      stopped.add(file);
      skipped.push({ file, reason: why });
      reverted = true;
    }
    if (reverted) linted = await relint(overrides());
    if (pass === MAX_FIX_PASSES) break;
    previous = linted;
    changed = new Map();
    for (const [file, before] of fixed) {
      if (stopped.has(file)) continue;
      const told: FileDeclinedFix[] = [];
      const again = await fixSkillAgain(before, linted.diagnostics.filter((diagnostic) => diagnostic.file === file), profile, told);
      latest.set(file, told);
      if (again === undefined) continue;
      fixed.set(file, again);
      changed.set(file, before);
    }
  }
  const seen = new Set<string>();
  for (const entry of [...latest.values()].flat()) {
    const key = [entry.file, entry.ruleId, entry.reason].join("\u0000");
    if (seen.has(key)) continue;
    seen.add(key);
    skipped.push({ file: entry.file, reason: `${entry.line}:${entry.column} ${entry.ruleId}: ${entry.reason}` });
  }
  return linted;
}

/**
 * Why a file's fixes may not be kept: under some rule it has more findings after them than before (a fix that
 * brings a finding), or a suppression comment covers more of them (a fix that widened what the comment covers).
 */
function widenedFindings(before: Linted, after: Linted, file: string): string | undefined {
  const grown = (was: readonly Diagnostic[], now: readonly Diagnostic[]): RuleId[] => {
    const left = new Map<RuleId, number>();
    for (const diagnostic of was) if (diagnostic.file === file) left.set(diagnostic.ruleId, (left.get(diagnostic.ruleId) ?? 0) + 1);
    const rules = new Set<RuleId>();
    for (const diagnostic of now) {
      if (diagnostic.file !== file) continue;
      const count = (left.get(diagnostic.ruleId) ?? 0) - 1;
      left.set(diagnostic.ruleId, count);
      if (count < 0) rules.add(diagnostic.ruleId);
    }
    return [...rules].sort();
  };
  const added = grown(before.diagnostics, after.diagnostics);
  if (added.length > 0) return `fixes that would bring findings it does not have (${added.join(", ")}) were not made`;
  const hidden = grown(before.suppressed, after.suppressed);
  if (hidden.length > 0) return `fixes that would make a suppression comment cover findings it does not cover now (${hidden.join(", ")}) were not made`;
  return undefined;
}

/** The settings a re-check of fixed text runs with: those of a plain lint of `root` under `profile`, with `others` (unsaved text) read over the disk. */
function fixCheckSettings(root: string, profile: Profile, others: SourceOverrides): SkillRuleSettings {
  const { config } = readLintConfig(root, undefined, others);
  return {
    profile,
    layout: config.layout,
    rules: config.rules,
    reportEmpty: true,
    checklists: true,
    namesByPlugin: profile === "agentskills" && !isAgentProject(root, profile),
    ...(config.skillTypes ? { skillTypes: config.skillTypes } : {}),
  };
}

/** Unsaved text by root-relative path, read as the reader would read the files. */
function textOverrides(texts: ReadonlyMap<string, string>): Map<string, ReturnType<typeof overrideSource>> {
  return new Map([...texts].map(([path, text]) => [path, overrideSource(path, text, path.endsWith("/SKILL.md") ? SKILL_READ_RULES : sourceReadRules(path))]));
}

/**
 * What `lint --fix` would make of one SKILL.md whose text is `text` (an
 * editor's buffer, root-relative `file`), given the findings in that text:
 * the same passes until nothing more can be fixed, each pass's findings
 * those of the project with `buffers` (other unsaved text by root-relative
 * path) and the text fixed so far, and the same check that no fix brings or
 * hides a finding. Undefined when nothing can be fixed. Writes nothing.
 */
export async function fixSkillText(root: string, file: string, text: string, findings: readonly Diagnostic[], profile: Profile, buffers: ReadonlyMap<string, string> = new Map()): Promise<FixedSkillFile | undefined> {
  root = resolve(root);
  const first = await fixSkillBytes(file, Buffer.from(text, "utf8"), findings, profile);
  if (first === undefined) return undefined;
  const others = textOverrides(new Map([...buffers].filter(([path]) => path !== file)));
  const settings = fixCheckSettings(root, profile, others);
  const relint = (overrides: SourceOverrides): Promise<Linted> => lintSkills(root, new BuildSession(), undefined, { ...settings, sourceOverrides: new Map([...others, ...textOverrides(new Map([[file, text]])), ...overrides]) });
  const fixed = new Map([[file, first]]);
  await fixInPasses(fixed, profile, await relint(new Map()), relint, [], []);
  return fixed.get(file);
}

/**
 * An agent project (the gamma profile with prompts/prefix.hbs, or init's agent files under agentskills) is checked whole, as its build checks
 * it before rendering: the config, injections, tool schemas, variants,
 * supporting files and knowledge notes, with the same
 * rule ids and positions. A plain skills collection has none of them. The
 * stages load only here, so a collection's lint never pays for them.
 */
async function agentSourceDiagnostics(root: string, linted: Awaited<ReturnType<typeof lintSkills>>, configPath: string | undefined): Promise<Diagnostic[]> {
  const { agentSourceFindings } = await import("./pipeline/lint-skills/project-checks.js");
  // Tool parameter schemas a build accepted byte for byte (dist/'s verified record, as check takes it) are not compiled again.
  return agentSourceFindings(root, new BuildSession(), linted, readLintConfig(root, configPath).config, { acceptedToolParameters: acceptedToolParametersIn(join(root, "dist")) });
}

/** A finding with what `lint --fix` would change for it, when it has a safe fix. */
export type FixableDiagnostic = Diagnostic & { fix?: string };

/**
 * Each finding with the fix `lint --fix` would make for it (what it changes), when `lint --fix` resolves it:
 * worked out in memory as `lint --fix` works (its passes, and its check that no fix brings or hides a finding)
 * from the files' bytes, or from `texts` (unsaved text by root-relative path) where given. A finding is resolved
 * when the fixed file no longer has it: one fix can resolve several (moving the design's fields answers each
 * of their findings), and a finding another fix's lines overlapped is resolved in a later pass. Writes nothing.
 */
export async function withAvailableFixes(root: string, diagnostics: readonly Diagnostic[], profile: Profile, texts?: ReadonlyMap<string, string>): Promise<FixableDiagnostic[]> {
  expectString(root, "withAvailableFixes root", 'the project\'s folder, such as "."', true);
  if (!Array.isArray(diagnostics as unknown)) throw new TypeError(`Unexpected diagnostics ${shownValue(diagnostics)}, expected an array of findings (a lint result's diagnostics)`);
  expectOneOf(profile, "profile", PROFILES);
  if (texts !== undefined) expectStringMap(texts, "texts", "a Map from root-relative SKILL.md paths to their unsaved text");
  root = resolve(root);
  if (!diagnostics.some((diagnostic) => FIXABLE_RULES.has(diagnostic.ruleId))) return diagnostics.map((diagnostic) => ({ ...diagnostic }));
  const fromDisk = diagnostics.filter((diagnostic) => !texts?.has(diagnostic.file));
  const fixed = new Map((await fixSkillFiles(root, fromDisk, profile)).map((file) => [file.file, file]));
  for (const [file, text] of texts ?? []) {
    const found = await fixSkillBytes(file, Buffer.from(text, "utf8"), diagnostics.filter((diagnostic) => diagnostic.file === file), profile);
    if (found) fixed.set(file, found);
  }
  if (fixed.size === 0) return diagnostics.map((diagnostic) => ({ ...diagnostic }));
  const others = textOverrides(texts ?? new Map());
  const settings = fixCheckSettings(root, profile, others);
  const relint = (overrides: SourceOverrides): Promise<Linted> => lintSkills(root, new BuildSession(), undefined, { ...settings, sourceOverrides: new Map([...others, ...overrides]) });
  const linted = await fixInPasses(fixed, profile, await relint(new Map()), relint, [], []);
  // What is left of each fixable rule's findings in a fixed file, by rule and message (a fix moves lines, so not by position).
  const left = new Map<string, number>();
  const keyOf = (diagnostic: Diagnostic): string => [diagnostic.file, diagnostic.ruleId, diagnostic.message].join("\u0000");
  for (const diagnostic of linted?.diagnostics ?? []) if (fixed.has(diagnostic.file)) left.set(keyOf(diagnostic), (left.get(keyOf(diagnostic)) ?? 0) + 1);
  const records = [...fixed.values()].flatMap((file) => file.fixes);
  const siteOf = (fix: { file: string; line: number; column: number; ruleId: string }): string => [fix.file, fix.line, fix.column, fix.ruleId].join("\u0000");
  const exact = new Map(records.map((fix) => [siteOf(fix), fix.message]));
  // Of findings alike, the ones a fix names by position are the ones gone; the others stay in the order found.
  const ordered = diagnostics.map((diagnostic, position) => ({ diagnostic, position })).sort((a, b) => Number(exact.has(siteOf(b.diagnostic))) - Number(exact.has(siteOf(a.diagnostic))) || a.position - b.position);
  const result: FixableDiagnostic[] = diagnostics.map((diagnostic) => ({ ...diagnostic }));
  for (const { diagnostic, position } of ordered) {
    if (!fixed.has(diagnostic.file) || !FIXABLE_RULES.has(diagnostic.ruleId)) continue;
    const key = keyOf(diagnostic);
    const remaining = left.get(key) ?? 0;
    if (remaining > 0) {
      left.set(key, remaining - 1);
      continue;
    }
    const inFile = records.filter((fix) => fix.file === diagnostic.file);
    const sameRule = inFile.filter((fix) => fix.ruleId === diagnostic.ruleId || (PORTABLE_MANIFEST_RULES.has(fix.ruleId) && PORTABLE_MANIFEST_RULES.has(diagnostic.ruleId)));
    const fix = exact.get(siteOf(diagnostic)) ?? (sameRule.length > 0 ? sameRule : inFile).map((record) => record.message).join("; ");
    result[position] = { ...diagnostic, fix };
  }
  return result;
}
