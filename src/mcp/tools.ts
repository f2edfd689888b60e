import { existsSync } from "node:fs";
import { basename, isAbsolute, join, posix, relative, sep } from "node:path";
import { cacheImpact } from "../cache-impact.js";
import { builtPrompt, compiledPrompt, readBuiltOutput, verificationSummary, type CompiledPrompt } from "../compiled-prompt.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { compareDiagnostics, countDiagnostics } from "../diagnostics/diagnostic.js";
import { explainRule, isRuleId, ruleSuggestion, type RuleExplanation } from "../diagnostics/rules/explain.js";
import { lint, withAvailableFixes, type FixableDiagnostic } from "../lint.js";
import { fixesDiff } from "../pipeline/fix/unified-diff.js";
import { MAX_SOURCE_BYTES } from "../pipeline/discover/read-source.js";
import { detectProfile, isAgentProject, readLintConfig } from "../pipeline/validate/lint-config.js";
import { listProjectSourcePaths } from "../pipeline/discover/project-sources.js";
import { matchSkillFolders } from "../pipeline/discover/skill-folders.js";
import { CONFIG_FILE } from "../pipeline/discover/source-paths.js";
import { splitFrontmatter } from "../pipeline/parse/frontmatter.js";
import { isMapping } from "../pipeline/parse/parse.js";
import { LineIndex } from "../pipeline/parse/positions.js";
import { parseYamlTree } from "../pipeline/parse/yaml-tree.js";
import { didYouMean } from "../protocol/suggest.js";
import { skillGraph, type GraphSkill } from "../skills/graph.js";
import { echoed, MAX_ECHOED_CHARACTERS, ToolInputError, type McpProject, type ProjectPath } from "./project.js";
import { findingsSummary, oversizedBytes, oversizedResult } from "./tool-result.js";

/**
 * Each tool's work: arguments (already checked against the tool's input
 * schema) in, the structured result out, every finding, fix, build and cost
 * from the library. Bad input throws ToolInputError with the message the
 * agent sees.
 */

type Arguments = Record<string, unknown>;

/** The call's cancellation: aborted when the client cancels the call or gives up waiting for it. */
export interface ToolContext {
  signal: AbortSignal;
}

export const TOOL_HANDLERS: Readonly<Record<string, (project: McpProject, args: Arguments, context: ToolContext) => Promise<object>>> = {
  lint: lintTool,
  lint_text: lintTextTool,
  explain_rule: async (_project, args) => explainRuleTool(args.rule as string),
  fix_file: fixFileTool,
  check_cache: checkCacheTool,
  show_variant: showVariantTool,
  skill_graph: skillGraphTool,
};

async function lintTool(project: McpProject, args: Arguments): Promise<object> {
  let scope = "";
  let kind: "file" | "folder" = "folder";
  if (typeof args.path === "string") {
    const place = project.place(args.path, { what: "a skill folder or file", exists: true });
    kind = project.kindOf(place, ["file", "folder"], "a skill folder or a file");
    scope = await lintScope(project, place, kind);
  }
  const result = await lint({ root: project.root, checklists: false });
  // A finding on the folder itself (a skill folder without SKILL.md, an ignored sub-folder) is the folder's too.
  const kept = result.diagnostics.filter((diagnostic) => scope === "" || diagnostic.file === scope || (kind === "folder" && diagnostic.file.startsWith(`${scope}/`)));
  return { root: project.root, scope: scope || ".", profile: result.profile, ...countDiagnostics(kept), diagnostics: await withAvailableFixes(project.root, kept, result.profile) };
}

async function lintTextTool(project: McpProject, args: Arguments): Promise<object> {
  const text = args.text as string;
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_SOURCE_BYTES) throw new ToolInputError(`Unexpected text of ${bytes} bytes, expected at most ${MAX_SOURCE_BYTES} bytes: a larger SKILL.md is refused unread (skill/file-too-large)`);
  const pathArgument = typeof args.path === "string" ? args.path : defaultSkillPath(project, text);
  if (!pathArgument.endsWith("SKILL.md")) throw new ToolInputError(`Unexpected path ${echoed(pathArgument)}, expected the path of a SKILL.md (such as skills/my-skill/SKILL.md)`);
  const given = project.place(pathArgument, { what: "the path of a SKILL.md", exists: false });
  if (existsSync(given.abs)) project.kindOf(given, ["file"], "a SKILL.md file (or nothing yet)");
  const place = project.skillFile(given, { unsaved: true });
  const analysis = await project.analyzer.analyze({ buffers: new Map([[place.rel, text]]), scope: "skills" });
  // The project as it is on disk: what the draft brings onto other files is what is new there with it.
  const onDisk = await project.analyzer.analyze({ scope: "skills" });
  const kept = draftFindings(analysis.diagnostics, place.rel, onDisk.diagnostics);
  return { path: place.rel, profile: analysis.profile, ...countDiagnostics(kept), diagnostics: await withAvailableFixes(project.root, kept, analysis.profile, new Map([[place.rel, text]])) };
}

/**
 * The findings of the draft at `file`: its own, and those lint would put on another file because of it, each
 * with the other file's place as the related one. A finding that points at the draft (the second of two skills
 * of one name is the one later in path order, which may be the one on disk) is moved to the place it points
 * at; one that is new on another file with the draft (a requirement cycle the draft closes, a conflict it
 * declares) and points nowhere in it is put at the draft's start.
 */
function draftFindings(diagnostics: readonly Diagnostic[], file: string, onDisk: readonly Diagnostic[]): Diagnostic[] {
  const kept: Diagnostic[] = [];
  const key = (diagnostic: Diagnostic): string => `${diagnostic.file}\u0000${diagnostic.ruleId}\u0000${diagnostic.line}:${diagnostic.column}\u0000${diagnostic.message}`;
  const before = new Set(onDisk.map(key));
  const elsewhere = (diagnostic: Diagnostic, at: { line: number; column: number; endLine: number; endColumn: number }): Diagnostic => {
    const { related: _related, ...finding } = diagnostic;
    return {
      ...finding,
      file,
      ...at,
      message: `${diagnostic.message} (lint reports it on ${diagnostic.file}:${diagnostic.line}:${diagnostic.column} once this file is written)`,
      related: { file: diagnostic.file, line: diagnostic.line, column: diagnostic.column, endLine: diagnostic.endLine, endColumn: diagnostic.endColumn, message: "where lint reports it" },
    };
  };
  for (const diagnostic of diagnostics) {
    if (diagnostic.file === file) kept.push(diagnostic);
    else if (diagnostic.related?.file === file) kept.push(elsewhere(diagnostic, diagnostic.related));
    else if (!before.has(key(diagnostic))) kept.push(elsewhere(diagnostic, { line: 1, column: 1, endLine: 1, endColumn: 1 }));
  }
  return kept.sort(compareDiagnostics);
}

/** Where the project's `skills` globs put a new skill of the text's `name:` (skills/<name>/SKILL.md by default). */
function defaultSkillPath(project: McpProject, text: string): string {
  const name = frontmatterName(text);
  // A YAML collection (`name: [`, `name: {`) or a path is no name to file the text under; a badly formed name is, and lint says what is wrong with it.
  if (!name || /[/\\[\]{}]|^\.\.?$/.test(name)) throw new ToolInputError("Unexpected text without a usable `name:` line, expected `path` (where the SKILL.md will live) or a `name:` in the frontmatter");
  const path = project.newSkillFile(name);
  if (path === undefined) {
    throw new ToolInputError(`Unexpected text without \`path\`: the project's \`skills\` globs (${project.layout().skills.join(", ")}) leave open where a new skill goes; expected \`path\`, the SKILL.md's place in a folder they name`);
  }
  return path;
}

/** The `name` of a SKILL.md's frontmatter as YAML reads it (comments, quotes, block scalars); undefined without one. */
function frontmatterName(text: string): string | undefined {
  const index = new LineIndex(text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n"));
  const split = splitFrontmatter(index);
  if ("ruleId" in split) return undefined;
  const tree = parseYamlTree(index.text.slice(split.yamlStart, split.yamlEnd), split.yamlStart, index);
  if (Array.isArray(tree) || !isMapping(tree.value)) return undefined;
  const name = tree.value["name"];
  return typeof name === "string" ? name.trim() : undefined;
}

/**
 * The root-relative scope of `lint {path}`. A path lint reads nothing in (no
 * skill folder the globs name at, above or below it, no other source lint
 * checks) is refused rather than reported clean, and so are a template and
 * the output folder, with the tool that does check them.
 */
async function lintScope(project: McpProject, place: ProjectPath, kind: "file" | "folder"): Promise<string> {
  if (kind === "file" && basename(place.rel) === "SKILL.md") return project.skillFile(place, { unsaved: false }).rel;
  if (kind === "folder" && place.rel !== "" && existsSync(join(place.abs, "SKILL.md"))) return posix.dirname(project.skillFile({ rel: `${place.rel}/SKILL.md`, abs: join(place.abs, "SKILL.md") }, { unsaved: false }).rel);
  const scope = project.realPlace(place).rel;
  if (scope === "") return scope;
  const holds = (path: string): boolean => (kind === "file" ? path === scope : path === scope || path.startsWith(`${scope}/`));
  const layout = project.layout();
  const skillFolders = matchSkillFolders(project.root, layout);
  if (skillFolders.some((folder) => holds(folder) || scope.startsWith(`${folder}/`))) return scope;
  const { config } = readLintConfig(project.root);
  const agent = isAgentProject(project.root, config.profile ?? detectProfile(project.root));
  // What the build never reads there (source/ignored-file) is lint's to report too.
  const ignored: string[] = [];
  const sources = agent ? await listProjectSourcePaths(project.root, [], ignored) : [];
  const templates = sources.filter((path) => path.endsWith(".hbs") && holds(path));
  const reported = [...sources.filter((path) => !path.endsWith(".hbs")), ...ignored.map((path) => path.replace(/\/$/, ""))];
  if (holds(CONFIG_FILE) || reported.some(holds)) return scope;
  const shown = JSON.stringify(place.rel);
  const outRel = relative(project.root, project.outDir).split(sep).join("/");
  if (outRel !== "" && (scope === outRel || scope.startsWith(`${outRel}/`))) {
    throw new ToolInputError(`Unexpected path ${shown}: in the output folder ${outRel}/, which lint does not check; expected a skill folder or file (check_cache compares the output folder with the sources)`);
  }
  if (templates.length > 0) {
    throw new ToolInputError(
      `Unexpected path ${shown}: ${kind === "file" ? "a template" : "a folder of templates"}, which lint does not render, so it would find nothing there; expected a skill folder or file (check_cache builds the sources as \`gamma-prompt build\` does and reports the templates' findings)`,
    );
  }
  const covered = `the skill folders the project's \`skills\` globs name (${layout.skills.join(", ")})${agent ? ", the config and the project's sources other than templates (prompts/*.yaml, schemas/, knowledge/)" : " and the config"}`;
  throw new ToolInputError(`Unexpected path ${shown}: lint reads no file there (it reads ${covered}), so it would find nothing; expected a skill folder or file, or no path for the whole project`);
}

export function explainRuleTool(rule: string): RuleExplanation {
  if (!isRuleId(rule)) {
    // Past that many characters an argument is no near miss of a name.
    const long = rule.length > MAX_ECHOED_CHARACTERS;
    throw new ToolInputError(`Unexpected rule ${echoed(rule)}, expected a rule id such as skill/description-trigger (every finding names its rule)${long ? "" : ruleSuggestion(rule)}`);
  }
  return explainRule(rule);
}

async function fixFileTool(project: McpProject, args: Arguments, context: ToolContext): Promise<object> {
  const given = project.place(args.path as string, { what: "a SKILL.md file", exists: true });
  project.kindOf(given, ["file"], "a SKILL.md file");
  if (!given.rel.endsWith("SKILL.md")) throw new ToolInputError(`Unexpected file ${echoed(given.rel)}, expected a SKILL.md (only skill frontmatter has safe fixes)`);
  const place = project.skillFile(given, { unsaved: false });
  const write = args.write === true;
  if (write) {
    // The answer has to fit in one message: one that would not is refused before anything is written.
    const preview = await fixFileAnswer(project, place, false, context);
    const bytes = oversizedBytes({ ...preview, written: true });
    if (bytes !== undefined) throw new ToolInputError(`${oversizedResult("fix_file", bytes)}, and nothing was written: ${fixesHeld(preview)}; ${FIX_ON_THE_COMMAND_LINE}`);
  }
  const answer = await fixFileAnswer(project, place, write, context);
  const bytes = oversizedBytes(answer);
  if (bytes === undefined) return answer;
  // Written although the preview fitted: the file changed in between. What was written is still said, in few words.
  if (answer.written) throw new ToolInputError(`${oversizedResult("fix_file", bytes)}; the file was written all the same: ${fixesHeld(answer)}`);
  throw new ToolInputError(`${oversizedResult("fix_file", bytes)}: ${fixesHeld(answer)}; ${FIX_ON_THE_COMMAND_LINE}`);
}

const FIX_ON_THE_COMMAND_LINE = "run `gamma-prompt lint --fix` on the command line to make the fixes, or fix the findings left first";

interface FixFileAnswer {
  file: string;
  written: boolean;
  notFixed?: string;
  fixes: Array<{ line: number; column: number; ruleId: string; message: string }>;
  diff: string;
  remaining: FixableDiagnostic[];
}

async function fixFileAnswer(project: McpProject, place: ProjectPath, write: boolean, context: ToolContext): Promise<FixFileAnswer> {
  const result = await lint({ root: project.root, checklists: false, fix: write ? "write" : "dry-run", fixFiles: [place.rel], signal: context.signal });
  const fixed = (result.fixedFiles ?? []).filter((file) => file.file === place.rel);
  // A file reached through a symbolic link is never written through it: the answer says so instead of an empty diff.
  const reasons = (result.fixesSkipped ?? []).filter((entry) => entry.file === place.rel).map((entry) => entry.reason);
  const skipped = reasons.length === 0 ? undefined : { reason: reasons.join("; ") };
  return {
    file: place.rel,
    written: write && fixed.length > 0,
    ...(skipped === undefined ? {} : { notFixed: skipped.reason }),
    fixes: fixed.flatMap((file) => file.fixes.map(({ line, column, ruleId, message }) => ({ line, column, ruleId, message }))),
    diff: fixesDiff(fixed),
    remaining: await withAvailableFixes(project.root, result.diagnostics.filter((diagnostic) => diagnostic.file === place.rel), result.profile),
  };
}

/** A fix_file answer too large to send, in a sentence: its fixes by rule, and the findings left. */
function fixesHeld(answer: FixFileAnswer): string {
  const byRule = new Map<string, number>();
  for (const fix of answer.fixes) byRule.set(fix.ruleId, (byRule.get(fix.ruleId) ?? 0) + 1);
  const fixes = answer.fixes.length === 0 ? "no safe fix" : `${answer.fixes.length} safe fix${answer.fixes.length === 1 ? "" : "es"} (${[...byRule].map(([rule, n]) => `${rule} ${n}`).join(", ")})`;
  return `${answer.file} has ${fixes}, and after them ${answer.remaining.length === 0 ? "no finding" : findingsSummary(answer.remaining)}`;
}

async function checkCacheTool(project: McpProject): Promise<object> {
  requirePrompts(project, "check_cache");
  // Named as the command names it: from the root when inside it (`dist/`), else as the absolute path it is.
  const inside = relative(project.root, project.outDir);
  const outDir = inside !== "" && !inside.startsWith("..") && !isAbsolute(inside) ? inside : project.outDir;
  const impact = await cacheImpact({ root: project.root, outDir });
  const { ok, errorCount, warningCount, noteCount, diagnostics, drift, invalidatesSharedPrefix } = impact.check;
  const out: Record<string, unknown> = { ok, errorCount, warningCount, noteCount, diagnostics: plain(diagnostics), drift, invalidatesSharedPrefix };
  if (impact.comparison) {
    const { intact, variants, removedVariants, changes, invalidation, costDelta, costDeltaProblem } = impact.comparison;
    out.comparison = {
      intact,
      variants,
      removedVariants,
      changes,
      invalidation: invalidation.map((entry) => ({ ...entry, dollarsPer1000Sessions: Object.fromEntries(Object.entries(entry.dollarsPer1000Sessions).map(([model, dollars]) => [model, cents(dollars)])) })),
      costDelta: costDelta.map((row) => ({ ...row, before: cents(row.before), after: cents(row.after) })),
      ...(costDeltaProblem === undefined ? {} : { costDeltaProblem }),
    };
  }
  if (impact.comparisonProblem !== undefined) out.comparisonProblem = impact.comparisonProblem;
  return out;
}

async function showVariantTool(project: McpProject, args: Arguments): Promise<CompiledPrompt> {
  requirePrompts(project, "show_variant");
  const variant = args.variant as string;
  // Built as `build` builds it, whatever rule set the config's `profile` gives lint.
  const analysis = await project.analyzer.analyze({ build: true });
  if (analysis.artifacts && analysis.cachePlan && analysis.manifest) {
    const prompt = compiledPrompt(analysis.artifacts, analysis.cachePlan, variant);
    if (prompt) return prompt;
    const known = Object.keys(analysis.manifest.variants);
    throw new ToolInputError(`Unexpected variant ${echoed(variant)}: the sources' variants are ${known.join(", ")}${variant.length > MAX_ECHOED_CHARACTERS ? "" : didYouMean(variant, known)}`);
  }
  // While the sources have errors: the last build, only as far as it passes the runtime's verification.
  const output = readBuiltOutput(project.outDir);
  const sources = sourcesHaveErrors(project, analysis.errorCount);
  if (output.kind === "failed") throw new ToolInputError(`Unexpected variant ${echoed(variant)}: ${sources} and the output folder ${outputFolder(project)} failed verification (${verificationSummary(output.problems)}); run \`gamma-prompt build\` once the sources are fixed`);
  if (output.kind === "absent") throw new ToolInputError(`Unexpected variant ${echoed(variant)}: ${sources} and the output folder ${outputFolder(project)} holds no build`);
  const prompt = builtPrompt(project.outDir, variant, output);
  if (prompt) return prompt;
  const known = Object.keys(output.artifacts.variants);
  throw new ToolInputError(`Unexpected variant ${echoed(variant)}: ${sources} and the output folder has no such variant${variant.length > MAX_ECHOED_CHARACTERS ? "" : didYouMean(variant, known)}`);
}

async function skillGraphTool(project: McpProject, args: Arguments): Promise<object> {
  const name = args.skill as string;
  const compiles = existsSync(join(project.root, "prompts", "prefix.hbs"));
  // Every SKILL.md with a name, errors or not: the graph is what the files declare.
  const analysis = await project.analyzer.analyze(compiles ? { build: true } : { scope: "skills" });
  const skills: GraphSkill[] = analysis.skillFiles.flatMap(({ path, manifest }) =>
    manifest?.name === undefined
      ? []
      : [{ name: manifest.name, type: manifest.type, description: manifest.description, path, requiresSkills: names(manifest.requiresSkills), conflictsWith: names(manifest.conflictsWith), toolNamespaces: manifest.toolNamespaces }],
  );
  const preloads = variantPreloads(project, analysis.manifest?.variants, compiles);
  const view = skillGraph(skills, name, "variants" in preloads ? preloads.variants : {});
  if (!view) throw new ToolInputError(`Unexpected skill ${echoed(name)}, expected the name of a skill in the project${name.length > MAX_ECHOED_CHARACTERS ? "" : didYouMean(name, skills.map((skill) => skill.name))}`);
  const { preloadedBy, ...graph } = view;
  return "variants" in preloads ? { ...graph, preloadedBy, preloadedFrom: preloads.from } : { ...graph, preloadsUnknown: preloads.unknown };
}

type VariantPreloads = Readonly<Record<string, { preloadedSkills: readonly string[] }>>;

/**
 * Which variants preload which skills: the sources' build; while the sources
 * have errors, the last build that passes verification; otherwise unknown,
 * and said so rather than answered with an empty list.
 */
function variantPreloads(project: McpProject, fromSources: VariantPreloads | undefined, compiles: boolean): { variants: VariantPreloads; from: "sources" | "output" } | { unknown: string } {
  // A skills collection has no variants: nothing preloads a skill.
  if (!compiles) return { variants: {}, from: "sources" };
  if (fromSources) return { variants: fromSources, from: "sources" };
  const output = readBuiltOutput(project.outDir);
  if (output.kind === "verified") return { variants: output.artifacts.manifest.variants, from: "output" };
  const why = output.kind === "failed" ? `failed verification (${verificationSummary(output.problems)})` : "holds no build";
  return { unknown: `${sourcesHaveErrors(project)} and the output folder ${outputFolder(project)} ${why}: which variants preload a skill is not known` };
}

/**
 * Why the sources build to nothing: their errors, and where to see them (lint
 * lists the build's errors when its profile is the build's own, gamma; under
 * another profile only `build` and check_cache do).
 */
function sourcesHaveErrors(project: McpProject, count?: number): string {
  const where = readLintConfig(project.root).config.profile === "agentskills" ? "check_cache lists them, as `gamma-prompt build` does" : "run lint";
  return `the sources have errors (${count === undefined ? "" : `${count}; `}${where})`;
}

function outputFolder(project: McpProject): string {
  return `${relative(project.root, project.outDir).split(sep).join("/") || "."}/`;
}

function names(references: ReadonlyArray<{ name: string }>): string[] {
  return [...new Set(references.map((reference) => reference.name))];
}

/** Dollars to the cent, as `cost` and `report` print them: 42.39704999999999 is 42.4. */
function cents(dollars: number): number {
  return Math.round(dollars * 100) / 100;
}

function requirePrompts(project: McpProject, tool: string): void {
  if (!existsSync(join(project.root, "prompts", "prefix.hbs"))) {
    throw new ToolInputError(`${tool} needs a project with prompts/prefix.hbs: ${project.root} is a skills collection, which gamma-prompt lints but does not compile into prompts`);
  }
}

/** Findings as plain records (the structured result is JSON). */
function plain(diagnostics: readonly Diagnostic[]): FixableDiagnostic[] {
  return diagnostics.map((diagnostic) => ({ ...diagnostic }));
}
