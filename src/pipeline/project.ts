import { compareDiagnostics, countDiagnostics, createDiagnostic, FILE_START, type Diagnostic } from "../diagnostics/diagnostic.js";
import { lint } from "../lint.js";
import type { SourceFile, ValidSkill } from "../model.js";
import type { DistManifest } from "../protocol/manifest.js";
import { loadTokenizer, tokenizerVersion } from "../tokens.js";
import { summarize, type BuildSummary } from "./summary.js";
import { resolveConfig } from "./config.js";
import { resolveInjections } from "./injections.js";
import {
  CATALOG_FILE,
  createManifest,
  INJECTIONS_ARTIFACT,
  injectionsJson,
  MANIFEST_FILE,
  PREFIX_FILE,
  serializeManifest,
  skillFile,
  TOOLS_FILE,
  toolsJson,
  variantFile,
} from "./manifest.js";
import { measurePrompts, TokenCounter } from "./measure.js";
import { SkillParseCache } from "./parse.js";
import { loadProjectSources } from "./project-sources.js";
import { normalizeSkillBody, prefixContext, prepareTemplates, renderPrompts, PREFIX_TEMPLATE, type PreparedTemplates, type PrefixContext } from "./render.js";
import { handlebarsVersion } from "./templates.js";
import { resolveTools } from "./tools.js";
import { resolveVariants } from "./variants.js";

/**
 * The whole compile in memory: lint every skill, read and validate the
 * prompt sources, render, measure and assemble every artifact. Nothing here
 * touches dist/; build writes the result and check compares it.
 */

export interface CompileState {
  parseCache?: SkillParseCache;
  tokenCounts?: Map<string, number>;
  sources?: Map<string, SourceFile>;
}

export interface CompiledProject {
  diagnostics: Diagnostic[];
  errorCount: number;
  warningCount: number;
  /** dist-relative path → text, manifest.json included; absent when any error was found. */
  artifacts?: Map<string, string>;
  manifest?: DistManifest;
  summary?: BuildSummary;
  /** Kept for check, which maps prefix drift back to template lines. */
  templates?: PreparedTemplates;
  prefixContext?: PrefixContext;
}

export async function compileProject(root: string, state: CompileState = {}, changedPaths?: readonly string[]): Promise<CompiledProject> {
  // A caller that keeps state across builds also keeps parse results.
  if (state.sources) state.parseCache ??= new SkillParseCache();
  const [linted, loaded] = await Promise.all([
    lint(state.parseCache ? { root, cache: state.parseCache } : { root }),
    loadProjectSources(root, state.sources, changedPaths),
  ]);
  const diagnostics: Diagnostic[] = [...linted.diagnostics, ...loaded.diagnostics];
  const done = (extra: Partial<CompiledProject> = {}): CompiledProject => finish(diagnostics, extra);
  const { sources } = loaded;
  const skills = linted.skills;
  const failedSkills = new Set(linted.diagnostics.filter((d) => d.severity === "error").map((d) => d.file.split("/")[1] ?? ""));

  const config = resolveConfig(sources.config);
  diagnostics.push(...config.diagnostics);
  const injections = sources.injections ? resolveInjections(sources.injections) : { injections: [], diagnostics: [] };
  diagnostics.push(...injections.diagnostics);
  const tools = resolveTools({ files: sources.toolFiles, order: sources.toolOrder }, skills.map((skill) => skill.name));
  diagnostics.push(...tools.diagnostics);
  const variants = sources.variants ? resolveVariants(sources.variants, skills, failedSkills) : { variants: [], diagnostics: [] };
  diagnostics.push(...variants.diagnostics);
  if (!sources.prefix || !sources.variant) return done();

  const templates = await prepareTemplates({ prefix: sources.prefix, variant: sources.variant, partials: sources.partials });
  if (Array.isArray(templates)) {
    diagnostics.push(...templates);
    return done();
  }
  if (hasErrors(diagnostics)) return done();

  const context = prefixContext(skills, tools.tools, injections.injections);
  const prompts = renderPrompts(templates, context, variants.variants);
  if (Array.isArray(prompts)) {
    diagnostics.push(...prompts);
    return done();
  }

  const counter = new TokenCounter(await loadTokenizer(), state.tokenCounts);
  const measures = measurePrompts(counter, { prefix: prompts.prefix, catalog: prompts.catalog, suffixes: prompts.suffixes, variantTemplate: templates.variant.file });
  diagnostics.push(...measures.diagnostics, ...budgetDiagnostics(measures, config.config.budgets));
  if (hasErrors(diagnostics)) return done({ templates, prefixContext: context });

  const artifacts = new Map<string, string>();
  artifacts.set(PREFIX_FILE, prompts.prefix);
  artifacts.set(CATALOG_FILE, `${prompts.catalog}\n`);
  artifacts.set(TOOLS_FILE, toolsJson(tools.tools));
  artifacts.set(INJECTIONS_ARTIFACT, injectionsJson(injections.injections));
  for (const [name, suffix] of prompts.suffixes) artifacts.set(variantFile(name), prompts.prefix + suffix);
  const skillInfos = skills.map((skill) => skillInfo(skill, counter, artifacts));
  const byName = new Map(variants.variants.map((variant) => [variant.name, variant]));
  const manifest = createManifest({
    artifacts,
    prefix: { tokens: measures.prefixTokens },
    catalog: { tokens: measures.catalogTokens },
    tools: tools.tools,
    variants: measures.variants.map((measure) => ({
      name: measure.name,
      tokens: measure.tokens,
      preloadedSkills: (byName.get(measure.name)?.skills ?? []).map((skill) => skill.name),
      sharedPrefixTokens: measure.sharedPrefixTokens,
      cacheableTokens: measure.cacheableTokens,
    })),
    skills: skillInfos,
    versions: { handlebars: handlebarsVersion(templates.engine), tokenizer: tokenizerVersion() },
  });
  artifacts.set(MANIFEST_FILE, serializeManifest(manifest));
  return done({ artifacts, manifest, summary: summarize(manifest), templates, prefixContext: context });
}

function skillInfo(skill: ValidSkill, counter: TokenCounter, artifacts: Map<string, string>) {
  const body = normalizeSkillBody(skill.body);
  artifacts.set(skillFile(skill.name), body);
  return {
    name: skill.name,
    type: skill.type,
    description: skill.description.replace(/\s+/g, " ").trim(),
    requiresSkills: [...skill.requiresSkills],
    conflictsWith: [...skill.conflictsWith],
    tokens: counter.count(body),
  };
}

function budgetDiagnostics(measures: { prefixTokens: number; catalogTokens: number }, budgets: { prefixTokens: number; catalogTokens: number }): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  if (measures.prefixTokens > budgets.prefixTokens) {
    diagnostics.push(createDiagnostic("budget/prefix-exceeded", PREFIX_TEMPLATE, FILE_START, `Unexpected static prefix of ${measures.prefixTokens} tokens, expected at most ${budgets.prefixTokens} (budgets.prefixTokens)`));
  }
  if (measures.catalogTokens > budgets.catalogTokens) {
    diagnostics.push(createDiagnostic("budget/catalog-exceeded", PREFIX_TEMPLATE, FILE_START, `Unexpected skill catalog of ${measures.catalogTokens} tokens, expected at most ${budgets.catalogTokens} (budgets.catalogTokens)`));
  }
  if (measures.prefixTokens < 1024) {
    diagnostics.push(createDiagnostic("budget/prefix-below-cache-minimum", PREFIX_TEMPLATE, FILE_START, `Unexpected static prefix of ${measures.prefixTokens} tokens, expected at least 1024 for OpenAI prompt caching to apply`));
  }
  return diagnostics;
}

function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((diagnostic) => diagnostic.severity === "error");
}

function finish(diagnostics: Diagnostic[], extra: Partial<CompiledProject>): CompiledProject {
  const sorted = [...diagnostics].sort(compareDiagnostics);
  const counts = countDiagnostics(sorted);
  const result: CompiledProject = { diagnostics: sorted, ...counts, ...extra };
  if (counts.errorCount > 0) {
    delete result.artifacts;
    delete result.manifest;
    delete result.summary;
  }
  return result;
}
