import { existsSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { createDiagnostic, type Diagnostic, type Range } from "../../diagnostics/diagnostic.js";
import { UNSUPPRESSIBLE_RULES } from "./suppressions.js";
import { ruleRegistry, type RuleId } from "../../diagnostics/rules/index.js";
import { DEFAULT_SKILL_PATTERNS, patternLeavesRoot, type SkillLayout } from "../discover/skill-folders.js";
import { CONFIG_FILE, INJECTIONS_FILE, PREFIX_TEMPLATE, TOOL_ORDER_FILE, VARIANTS_FILE } from "../discover/source-paths.js";
import { readSource, SOURCE_READ_RULES, type SourceOverrides } from "../discover/read-source.js";
import { isDiagnostic } from "../discover/sources.js";
import { parseJsonSource, rangeAt, valueAt, type PositionedSource } from "../parse/positioned-source.js";
import { schemaDiagnostics } from "./schema-diagnostics.js";
import { buildSchemaValidator } from "./schemas.js";
import { didYouMean } from "../../protocol/suggest.js";
import type { SkillType } from "../../stage-data.js";
import { quoted } from "../../diagnostics/quote.js";

/**
 * What `gamma-prompt.config.json` says about linting: the profile, rule
 * severities, and where the skills are. Budgets are read by the build
 * (config.ts); both read the same file and the same schema.
 */

/** gamma: the design's manifest (type required). agentskills: exactly the open Agent Skills specification. */
export type Profile = "gamma" | "agentskills";
export const PROFILES: readonly Profile[] = ["gamma", "agentskills"];
/** A rule's severity in the config: "off" drops its findings; "note" shows them without ever failing a run. */
export type RuleSetting = "off" | "note" | "warn" | "error";

export interface LintConfig {
  /** Undefined when the file does not set it: the project's shape decides (see {@link detectProfile}). */
  profile?: Profile;
  rules: ReadonlyMap<RuleId, RuleSetting>;
  layout: SkillLayout;
  /** `skillTypes`: the type of a skill that names none, by glob of its folder, first match first. */
  skillTypes?: readonly SkillTypeGlob[];
}

export interface SkillTypeGlob {
  glob: string;
  type: SkillType;
  /** Where the key is written in the config: a key that matches no skill folder is reported there. */
  at?: { file: string; range: Range };
}

export const DEFAULT_LINT_CONFIG: LintConfig = { rules: new Map(), layout: { skills: DEFAULT_SKILL_PATTERNS, ignore: [] } };

/**
 * A project with the agent's prompts/prefix.hbs is a Gamma agent; any other
 * folder is a plain skills collection, also one that keeps prompt files of its
 * own in a prompts/ folder.
 */
export function detectProfile(root: string): Profile {
  return existsSync(join(root, PREFIX_TEMPLATE)) ? "gamma" : "agentskills";
}

/**
 * The files `gamma-prompt init` writes for an agent: with them, a project
 * linted under the agentskills profile (an agent around a plain collection)
 * is still an agent and is checked whole. A collection's own prompts/ folder
 * (a prefix.hbs among its templates) does not make it one.
 */
export const AGENT_FILES: readonly string[] = [PREFIX_TEMPLATE, VARIANTS_FILE, INJECTIONS_FILE, TOOL_ORDER_FILE];

/** Whether lint checks the project whole (config, templates, variants, tool schemas, knowledge) besides its skills. */
export function isAgentProject(root: string, profile: Profile): boolean {
  return profile === "gamma" ? existsSync(join(root, PREFIX_TEMPLATE)) : AGENT_FILES.every((file) => existsSync(join(root, file)));
}

export function isProfile(value: string): value is Profile {
  return (PROFILES as readonly string[]).includes(value);
}

/** `--config` named a file that is not there: a usage problem, not a finding. */
export class ConfigFileError extends Error {}

/**
 * Reads the optional config file (root/gamma-prompt.config.json, or the file
 * `configPath` names, e.g. one kept outside a collection that is read-only);
 * a broken file gives its diagnostics and the defaults.
 */
export function readLintConfig(root: string, configPath?: string, overrides?: SourceOverrides): { config: LintConfig; diagnostics: Diagnostic[] } {
  const source = configPath === undefined ? readSource(root, CONFIG_FILE, SOURCE_READ_RULES, overrides) : readNamedConfig(root, configPath);
  // Absent: the usual case.
  if (source === undefined) return { config: DEFAULT_LINT_CONFIG, diagnostics: [] };
  if (isDiagnostic(source)) return { config: DEFAULT_LINT_CONFIG, diagnostics: [source] };
  const located = parseJsonSource(source);
  if (!("document" in located)) return { config: DEFAULT_LINT_CONFIG, diagnostics: [located] };
  const validate = buildSchemaValidator("config");
  if (!validate(located.value)) {
    const invalid = schemaDiagnostics("config/invalid", located, validate.errors, "the config", "config");
    // The rule ids are judged too: a misspelt one would show only once the rest is fixed, while the user takes
    // the rule for off. An entry the schema already reports is not reported twice.
    const ruleFindings: Diagnostic[] = [];
    ruleSettings(located, ruleFindings);
    const reported = new Set(invalid.map((diagnostic) => `${diagnostic.line}:${diagnostic.column}`));
    return { config: DEFAULT_LINT_CONFIG, diagnostics: [...invalid, ...ruleFindings.filter((diagnostic) => !reported.has(`${diagnostic.line}:${diagnostic.column}`))] };
  }
  const diagnostics: Diagnostic[] = [];
  const config: LintConfig = { rules: ruleSettings(located, diagnostics), layout: layoutOf(located.value) };
  config.layout.skills.forEach((pattern, index) => {
    if (!patternLeavesRoot(pattern)) return;
    diagnostics.push(
      createDiagnostic("config/invalid", located.file, rangeAt(located, ["skills", index]), `Unexpected pattern ${quoted(pattern)} in skills that leaves the project root, expected a folder or glob inside the project (skills are found only there; this pattern was not searched)`),
    );
  });
  const profile = valueAt(located.value, ["profile"]);
  if (typeof profile === "string" && isProfile(profile)) config.profile = profile;
  const skillTypes = valueAt(located.value, ["skillTypes"]);
  // The schema has checked the values; the key order is the order written.
  if (typeof skillTypes === "object" && skillTypes !== null) {
    config.skillTypes = Object.entries(skillTypes as Record<string, SkillType>).map(([glob, type]) => ({ glob, type, at: { file: located.file, range: rangeAt(located, ["skillTypes", glob], true) } }));
  }
  return { config, diagnostics };
}

/**
 * Why `configPath` (a config named instead of the root's own, relative to the working folder) names no
 * config file at all: an empty name, a folder, nothing there. Undefined for a file, even one that cannot
 * be read: reading it reports that, at the file.
 */
export function namedConfigProblem(configPath: string): string | undefined {
  if (configPath === "") return "--config names no file (an empty name)";
  try {
    if (statSync(resolve(configPath)).isDirectory()) return `--config ${configPath} is a folder, expected a config file`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return `no config file at ${configPath}`;
  }
  return undefined;
}

/** A config named by path; its findings name it relative to the root, like every other file. */
function readNamedConfig(root: string, configPath: string): ReturnType<typeof readSource> {
  const problem = namedConfigProblem(configPath);
  if (problem !== undefined) throw new ConfigFileError(problem);
  const absolute = resolve(configPath);
  const source = readSource(dirname(absolute), basename(absolute), SOURCE_READ_RULES);
  if (source === undefined) throw new ConfigFileError(`no config file at ${configPath}`);
  const file = relative(root, absolute).split(sep).join("/");
  return isDiagnostic(source) ? { ...source, file } : { ...source, path: file };
}

const CONFIGURABLE_PREFIX = "skill/";

/** `rules`: every id must be a skill rule in the registry; a near miss suggests the id meant. */
function ruleSettings(located: PositionedSource, diagnostics: Diagnostic[]): Map<RuleId, RuleSetting> {
  const settings = new Map<RuleId, RuleSetting>();
  const rules = valueAt(located.value, ["rules"]);
  if (typeof rules !== "object" || rules === null) return settings;
  const known = Object.keys(ruleRegistry);
  const configurable = known.filter((id) => id.startsWith(CONFIGURABLE_PREFIX));
  for (const [id, setting] of Object.entries(rules as Record<string, RuleSetting>)) {
    const range = rangeAt(located, ["rules", id], true);
    if (!Object.prototype.hasOwnProperty.call(ruleRegistry, id)) {
      diagnostics.push(createDiagnostic("config/invalid", located.file, range, `Unexpected unknown rule ${quoted(id)} in rules, expected a rule id from \`gamma-prompt explain\`${didYouMean(id, known)}`));
      continue;
    }
    if (!id.startsWith(CONFIGURABLE_PREFIX)) {
      diagnostics.push(
        createDiagnostic("config/invalid", located.file, range, `Unexpected rule ${quoted(id)} in rules, expected a skill rule (${CONFIGURABLE_PREFIX}…): build, template and dist rules guard the artifacts and keep their severity`),
      );
      continue;
    }
    if (UNSUPPRESSIBLE_RULES.has(id as RuleId) && setting !== "error") {
      diagnostics.push(
        createDiagnostic("config/invalid", located.file, range, `Unexpected rule ${quoted(id)} in rules, expected a rule whose findings can be lowered: a file with this finding is not read as a skill, and would leave the build without a word, so the rule keeps its severity`),
      );
      continue;
    }
    if (configurable.includes(id)) settings.set(id as RuleId, setting);
  }
  return settings;
}

function layoutOf(value: unknown): SkillLayout {
  const skills = valueAt(value, ["skills"]);
  const ignore = valueAt(value, ["ignore"]);
  return {
    skills: Array.isArray(skills) ? (skills as string[]) : DEFAULT_SKILL_PATTERNS,
    ignore: Array.isArray(ignore) ? (ignore as string[]) : [],
  };
}
