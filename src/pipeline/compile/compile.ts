import { appendDiagnostics, compareDiagnostics, countDiagnostics, createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SourceFile, ValidSkill } from "../../stage-data.js";
import type { ArtifactEntry, DistManifest, SkillInfo } from "../../protocol/dist-manifest.js";
import { catalogEntry, catalogParts, collapseWhitespace, type CatalogParts } from "../../skills/catalog.js";
import { CACHE_MINIMUM_TOKENS, tokenizer, tokenizerVersion } from "../../tokens.js";
import { summarize, type BuildSummary } from "../render/summary.js";
import { resolveConfig } from "../validate/config.js";
import { readLintConfig } from "../validate/lint-config.js";
import { resolveInjections } from "../validate/injection-kinds.js";
import {
  artifactEntry,
  CACHE_PLAN_FILE,
  cachePlanJson,
  CATALOG_FILE,
  createManifest,
  INJECTIONS_ARTIFACT,
  injectionsJson,
  MANIFEST_FILE,
  namespaceFile,
  namespaceJson,
  PREFIX_FILE,
  prefixFamilyHashes,
  serializeManifest,
  skillFile,
  supportingFile,
  stepsFile,
  stepsJson,
  TOOLS_FILE,
  type ArtifactContent,
  toolsJson,
  variantFile,
} from "../emit/artifacts.js";
import { BuildSession, defineSlot } from "../session/build-session.js";
import { checkProjectSources, sourceKey } from "../lint-skills/project-checks.js";
import { compactTools, computeCachePlan } from "../render/cache-plan.js";
import { joinTail, measurePrompts, TokenCounter, type RecordedTokenCounts } from "../render/measure.js";
import type { CountedTokens, TokenWorker } from "../render/token-worker-client.js";
import type { ToolSchemaArtifact } from "../../protocol/dist-manifest.js";
import { lintSkills, type SkillFileRecord } from "../lint-skills/lint-skills.js";
import { loadProjectSources, type ProjectSources } from "../discover/project-sources.js";
import type { SourceOverrides } from "../discover/read-source.js";
import { normalizeSkillBody, prefixContext, prepareTemplates, renderPrompts, PREFIX_TEMPLATE, type PreparedTemplates, type PrefixContext, type TemplateSources } from "../render/render.js";
import { handlebarsVersion } from "../render/templates.js";
import { resolveTools, type ToolFileResult } from "../validate/tools.js";
import { resolveVariants } from "../validate/variants.js";
import type { SupportingFile, SupportingWalk } from "../discover/supporting-files.js";
import { KNOWLEDGE_INDEX_FILE } from "../../protocol/knowledge.js";
import { knowledgeArtifacts, knowledgeJson } from "../emit/knowledge.js";
import { resolveKnowledge } from "../validate/knowledge.js";
import type { PathProbes } from "../discover/path-probes.js";

/**
 * The whole compile in memory: lint every skill, read and validate the
 * prompt sources, render, measure and assemble every artifact. Nothing here
 * touches dist/; build writes the result and check compares it.
 */

export interface CompiledProject {
  diagnostics: Diagnostic[];
  errorCount: number;
  warningCount: number;
  /** Notes never fail a build. */
  noteCount: number;
  /**
   * dist-relative path → content, manifest.json included; absent when any
   * error was found. Rendered artifacts are text; supporting files are the
   * bytes read, copied unchanged.
   */
  artifacts?: Map<string, ArtifactContent>;
  manifest?: DistManifest;
  summary?: BuildSummary;
  /** Kept for check, which maps prefix drift back to template lines. */
  templates?: PreparedTemplates;
  prefixContext?: PrefixContext;
  /** sha256 and size of every artifact but manifest.json (which lists them), when the artifacts exist. */
  hashes?: Map<string, ArtifactEntry>;
  /** Every SKILL.md and every other source as this compile read them (an editor indexes the project from these). */
  skillFiles?: SkillFileRecord[];
  sources?: ProjectSources;
  /**
   * The token budgets of the config (`budgets.prefixTokens`, `budgets.catalogTokens`), each with what this compile
   * measured against it; absent when the compile stopped before measuring. A measure above its budget is the error
   * budget/prefix-exceeded or budget/catalog-exceeded.
   */
  tokenBudgets?: TokenBudgets;
}

/** A token budget and the tokens measured against it. */
export interface TokenBudget {
  measured: number;
  budget: number;
}

/** The budgets a build holds the static prefix and the skill catalog to, keyed as the config's `budgets` names them. */
export interface TokenBudgets {
  prefixTokens: TokenBudget;
  catalogTokens: TokenBudget;
}

export interface CompileOptions {
  /** The output folder, root-relative (default `dist`): skill discovery never looks inside it. */
  outDir?: string;
  /** Token counts the last build recorded for exact texts (check); the tokenizer loads only for texts not among them. */
  recordedCounts?: RecordedTokenCounts;
  /** Tool parameter schemas the last build accepted for exactly these bytes (check); others are compiled to check them. */
  acceptedToolParameters?: (tool: ToolSchemaArtifact) => boolean;
  /** Sources taken as given instead of as read (an editor's unsaved buffers); nothing is written either way. */
  sourceOverrides?: SourceOverrides;
  /** Where the compile's lookups of paths outside its sources are kept (the build persists them with its findings). */
  probes?: PathProbes;
  /** Skill folders the caller walked just before the compile (the build's snapshot of its sources), by root-relative folder: lint does not list them again. */
  walks?: ReadonlyMap<string, SupportingWalk>;
  /**
   * Called with the findings, sorted, once no stage can add to them: before the artifacts, the cache plan and
   * the manifest are made (which find nothing), so an editor can show them without waiting for those. Not called
   * when the compile stops before them (an error, no templates): it then returns its findings at once. The
   * compile goes on when the promise it returns settles (an editor's message goes out on a later turn of the
   * event loop).
   */
  onFindingsFinal?: (diagnostics: readonly Diagnostic[]) => void | Promise<void>;
  /**
   * A worker thread to count tokens in while this thread lints and renders (a large one-shot build starts
   * it before the compile). Used only by a first compile in its session without recorded counts; the caller
   * closes it. Counts are the same either way.
   */
  tokenWorker?: TokenWorker;
}

export async function compileProject(root: string, session: BuildSession = new BuildSession(), changedPaths?: readonly string[], options: CompileOptions = {}): Promise<CompiledProject> {
  // The artifacts need each skill's type, so the compiler applies the gamma profile; it finds the skills where lint
  // does (the config's `skills` and `ignore`), and the config's rules still apply.
  const overrides = options.sourceOverrides;
  const lintConfig = readLintConfig(root, undefined, overrides);
  const settings = {
    profile: "gamma" as const,
    rules: lintConfig.config.rules,
    ...(lintConfig.config.skillTypes ? { skillTypes: lintConfig.config.skillTypes } : {}),
    layout: { ...lintConfig.config.layout, ...(options.outDir !== undefined ? { outDir: options.outDir } : {}) },
    ...(overrides ? { sourceOverrides: overrides } : {}),
    ...(options.probes ? { probes: options.probes } : {}),
    ...(options.walks ? { walks: options.walks } : {}),
  };
  const [linted, loaded] = await Promise.all([lintSkills(root, session, changedPaths, settings), loadProjectSources(root, session, changedPaths, overrides)]);
  const diagnostics: Diagnostic[] = [...linted.diagnostics, ...loaded.diagnostics];
  const { sources } = loaded;
  // Every build ends its session's build, a failed one too: a watch session kept over budget for an afternoon
  // holds one build's worth, not every rebuild's counts (what a stage that did not run holds is kept for the next).
  const done = (extra: Partial<CompiledProject> = {}): CompiledProject => {
    session.endBuild();
    return finish(diagnostics, { skillFiles: linted.files, sources, ...extra });
  };
  const skills = linted.skills;
  // A compile with errors already stops before it measures: the worker is given nothing to count.
  const worker = options.tokenWorker && !options.recordedCounts && !session.find(TOKEN_COUNTER) && !hasErrors(diagnostics) ? options.tokenWorker : undefined;
  // The skill bodies are known now; the worker counts them while the rest is checked and rendered.
  const bodiesCounted = worker?.count(skills.map((skill) => skillBodyArtifact(skill, session).text));

  const checked = await checkProjectSources(root, session, changedPaths, lintConfig, linted, loaded.sources, options.acceptedToolParameters, loaded.refused);
  appendDiagnostics(diagnostics, checked.diagnostics);
  const { config, injections, invocable, tools, namespaces, variants, supporting, knowledge } = checked;
  if (!sources.prefix || !sources.variant) return done();

  const templateSources: TemplateSources = { prefix: sources.prefix, variant: sources.variant, partials: sources.partials };
  const templates = await session.reuseLatest(TEMPLATES, templatesKey(templateSources), () => prepareTemplates(templateSources));
  if (Array.isArray(templates)) {
    diagnostics.push(...templates);
    return done();
  }
  if (hasErrors(diagnostics)) return done();

  const catalogPieces = catalogParts(invocable, (skill) => session.reuse(CATALOG_ENTRIES, `${skill.name}\u0000${skill.type}\u0000${skill.description}`, () => catalogEntry(skill)));
  const catalog = catalogPieces.head + catalogPieces.entries.join("") + catalogPieces.tail;
  const context = prefixContext(invocable, tools.tools, injections.injections, catalog, namespaces.namespaces);
  const prompts = renderPrompts(templates, context, variants.variants, (skill) => (supporting.files.get(skill) ?? []).map((file) => file.path));
  if (Array.isArray(prompts)) {
    diagnostics.push(...prompts);
    return done();
  }
  // A namespace some variant loads on demand can be loaded only by the name the catalog shows.
  const loadedOnDemand = variants.variants.some((variant) => namespaces.namespaces.some((namespace) => !variant.namespaces.includes(namespace.name)));
  if (loadedOnDemand && !prompts.prefix.includes(context.namespaceCatalog)) {
    diagnostics.push(
      createDiagnostic("namespace/missing-catalog", PREFIX_TEMPLATE, FILE_START, "Unexpected static prefix without the namespace catalog, expected {{namespaceCatalog}} in prompts/prefix.hbs or one of its partials (a variant loads namespaces on demand)"),
    );
    return done();
  }

  // Recorded counts are of whole texts (check): a counter with them counts whole texts, so they are found.
  const counter = session.keep(TOKEN_COUNTER, () => new TokenCounter(tokenizer, { repeated: session.repeated, ...(options.recordedCounts ? { recorded: options.recordedCounts } : { trustPieces: true }) }));
  // The catalog entry by entry, so a rebuild after one edit counts one entry again (the counter decides whether to).
  const pieces = prompts.catalogAt >= 0 ? promptPieces(prompts.prefix, prompts.catalogAt, catalogPieces) : undefined;
  if (worker && bodiesCounted) {
    const texts = [
      ...counter.textsToCount(prompts.prefix, pieces?.prefix),
      ...counter.textsToCount(prompts.catalog, pieces?.catalog),
      ...prompts.suffixes.values(),
      compactTools(tools.tools),
      ...namespaces.namespaces.map((namespace) => compactTools(namespace.tools)),
      ...(knowledge ? knowledge.notes.map((note) => note.body) : []),
    ];
    const tail = joinTail(prompts.prefix);
    const joins = [...prompts.suffixes.values()].filter((suffix) => suffix !== "").map((suffix) => [tail, suffix] as const);
    for (const counted of await Promise.all([bodiesCounted, worker.count(texts, joins)])) takeCounted(counter, counted);
  }
  const measures = measurePrompts(counter, {
    prefix: prompts.prefix,
    catalog: prompts.catalog,
    suffixes: prompts.suffixes,
    variantTemplate: templates.variant.file,
    ...(pieces ? { pieces } : {}),
  });
  // Every request sends the stable tools before the system prompt, so they are part of the prefix a cache holds.
  const toolsTokens = counter.count(compactTools(tools.tools));
  const { budgets } = config.config;
  const tokenBudgets: TokenBudgets = {
    prefixTokens: { measured: measures.prefixTokens, budget: budgets.prefixTokens },
    catalogTokens: { measured: measures.catalogTokens, budget: budgets.catalogTokens },
  };
  diagnostics.push(...measures.diagnostics, ...budgetDiagnostics(tokenBudgets, toolsTokens));
  if (hasErrors(diagnostics)) return done({ templates, prefixContext: context, tokenBudgets });
  // Nothing below finds anything: what follows only writes down what was checked.
  await options.onFindingsFinal?.([...diagnostics].sort(compareDiagnostics));

  const artifacts = new Map<string, ArtifactContent>();
  artifacts.set(PREFIX_FILE, prompts.prefix);
  artifacts.set(CATALOG_FILE, `${prompts.catalog}\n`);
  artifacts.set(TOOLS_FILE, toolsJson(tools.tools));
  if (sources.injections) artifacts.set(INJECTIONS_ARTIFACT, injectionsJson(injections.injections));
  for (const [name, suffix] of prompts.suffixes) artifacts.set(variantFile(name), prompts.prefix + suffix);
  const hashes = prefixFamilyHashes(prompts.prefix, prompts.suffixes);
  const toolsEntry = artifactEntry(artifacts.get(TOOLS_FILE) as string);
  hashes.set(TOOLS_FILE, toolsEntry);
  const namespaceArtifacts = new Map<string, { file: string; entry: ArtifactEntry; tokens: number }>();
  for (const namespace of namespaces.namespaces) {
    const file = namespaceFile(namespace.name);
    const text = namespaceJson(namespace);
    artifacts.set(file, text);
    const entry = artifactEntry(text);
    hashes.set(file, entry);
    namespaceArtifacts.set(namespace.name, { file, entry, tokens: counter.count(compactTools(namespace.tools)) });
  }
  const plan = computeCachePlan({
    prefix: prompts.prefix,
    prefixTokens: measures.prefixTokens,
    suffixes: prompts.suffixes,
    tools: tools.tools,
    toolsArtifact: { file: TOOLS_FILE, entry: toolsEntry },
    prefixArtifact: { file: PREFIX_FILE, entry: hashes.get(PREFIX_FILE) as ArtifactEntry },
    variantFile,
    count: (text) => counter.count(text),
    startNamespaces: new Map(variants.variants.map((variant) => [variant.name, variant.namespaces.map((name) => namespaceArtifacts.get(name) as { file: string; entry: ArtifactEntry; tokens: number })])),
  });
  artifacts.set(CACHE_PLAN_FILE, cachePlanJson(plan));
  const skillInfos = skills.map((skill) => skillInfo(skill, counter, artifacts, hashes, session));
  for (const info of skillInfos) {
    const files = supporting.files.get(info.name) ?? [];
    if (files.length === 0) continue;
    for (const file of files) artifacts.set(supportingFile(info.name, file.path), file.bytes);
    info.files = files.map((file) => file.path);
  }
  if (knowledge) {
    // Notes are artifacts of their own, never part of the prefix: editing one leaves the cached prefix intact.
    const { files, index } = knowledgeArtifacts(knowledge.notes, (text) => counter.count(text));
    for (const [path, text] of files) artifacts.set(path, text);
    artifacts.set(KNOWLEDGE_INDEX_FILE, knowledgeJson(index));
  }
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
      // Absent unless the project requires skills for the variant, so manifests without the rule keep their bytes.
      ...((byName.get(measure.name)?.required.length ?? 0) > 0 ? { requiredSkills: byName.get(measure.name)?.required ?? [] } : {}),
      sharedPrefixTokens: measure.sharedPrefixTokens,
      cacheableTokens: measure.cacheableTokens,
      ...((byName.get(measure.name)?.namespaces.length ?? 0) > 0 ? { namespaces: byName.get(measure.name)?.namespaces ?? [] } : {}),
    })),
    skills: skillInfos,
    versions: { handlebars: handlebarsVersion(templates.engine), tokenizer: tokenizerVersion() },
    hashes,
    ...(knowledge ? { knowledge: { inlineBytes: config.config.knowledge.inlineBytes, notes: knowledge.notes.length } } : {}),
    namespaces: namespaces.namespaces.map((namespace) => ({
      name: namespace.name,
      description: collapseWhitespace(namespace.description),
      tools: namespace.tools.map((tool) => tool.name),
      tokens: namespaceArtifacts.get(namespace.name)?.tokens ?? 0,
    })),
  });
  artifacts.set(MANIFEST_FILE, serializeManifest(manifest));
  for (const [path, entry] of Object.entries(manifest.artifacts)) hashes.set(path, entry);
  return done({ artifacts, manifest, summary: summarize(manifest, plan), templates, prefixContext: context, hashes, tokenBudgets });
}

const TEMPLATES = defineSlot<Promise<PreparedTemplates | Diagnostic[]>>("templates");
const CATALOG_ENTRIES = defineSlot<string>("catalog entries");
const SKILL_BODIES = defineSlot<{ text: string; entry: ArtifactEntry }>("skill bodies");
export const TOKEN_COUNTER = defineSlot<TokenCounter>("token counter");
/** Each valid skill folder's supporting files (with the size limit they were read under) and findings, as last read. */

/** Identifies one source by path and bytes ("" when absent). */
/** Identifies a template set by every source's path and bytes. */
function templatesKey(sources: TemplateSources): string {
  return [sources.prefix, sources.variant, ...sources.partials].map(sourceKey).join("\n");
}

/** Counts from the worker, when it answered; whatever it did not count the counter counts itself. */
function takeCounted(counter: TokenCounter, counted: CountedTokens | undefined): void {
  if (counted) counter.takeCounted(counted.counts, counted.joins);
}

/** The prefix and the catalog cut at catalog entries; each list joins to exactly its text. */
function promptPieces(prefix: string, catalogAt: number, { head, entries, tail }: CatalogParts): { prefix: string[]; catalog: string[] } {
  const catalogLength = head.length + entries.reduce((sum, entry) => sum + entry.length, 0) + tail.length;
  return {
    prefix: [prefix.slice(0, catalogAt) + head, ...entries, tail + prefix.slice(catalogAt + catalogLength)],
    catalog: [head, ...entries, tail],
  };
}

/** The body the skill tool returns, with its hash; reused while the skill's raw body is unchanged. */
function skillBodyArtifact(skill: ValidSkill, session: BuildSession): { text: string; entry: ArtifactEntry } {
  return session.reuse(SKILL_BODIES, skill.body, () => {
    const text = normalizeSkillBody(skill.body);
    return { text, entry: artifactEntry(text) };
  });
}


type SkillInfoInput = Omit<SkillInfo, "file" | "sha256"> & { name: string };


function skillInfo(skill: ValidSkill, counter: TokenCounter, artifacts: Map<string, ArtifactContent>, hashes: Map<string, ArtifactEntry>, session: BuildSession): SkillInfoInput {
  const { text: body, entry } = skillBodyArtifact(skill, session);
  artifacts.set(skillFile(skill.name), body);
  hashes.set(skillFile(skill.name), entry);
  if (skill.checklist) artifacts.set(stepsFile(skill.name), stepsJson({ skill: skill.name, source: skill.path, steps: skill.checklist }));
  return {
    ...(skill.checklist ? { checklistSteps: skill.checklist.length } : {}),
    name: skill.name,
    type: skill.type,
    description: collapseWhitespace(skill.description),
    requiresSkills: [...skill.requiresSkills],
    conflictsWith: [...skill.conflictsWith],
    tokens: counter.count(body),
    ...(skill.disableModelInvocation ? { disableModelInvocation: true as const } : {}),
    ...(skill.toolNamespaces ? { toolNamespaces: skill.toolNamespaces.map((reference) => reference.name) } : {}),
  };
}

function budgetDiagnostics({ prefixTokens: prefix, catalogTokens: catalog }: TokenBudgets, toolsTokens: number): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  if (prefix.measured > prefix.budget) {
    diagnostics.push(createDiagnostic("budget/prefix-exceeded", PREFIX_TEMPLATE, FILE_START, `Unexpected static prefix of ${prefix.measured} tokens, expected at most ${prefix.budget} (budgets.prefixTokens)`));
  }
  if (catalog.measured > catalog.budget) {
    diagnostics.push(createDiagnostic("budget/catalog-exceeded", PREFIX_TEMPLATE, FILE_START, `Unexpected skill catalog of ${catalog.measured} tokens, expected at most ${catalog.budget} (budgets.catalogTokens)`));
  }
  const cacheablePrefix = toolsTokens + prefix.measured;
  if (cacheablePrefix < CACHE_MINIMUM_TOKENS) {
    diagnostics.push(
      createDiagnostic(
        "budget/prefix-below-cache-minimum",
        PREFIX_TEMPLATE,
        FILE_START,
        `Unexpected static prefix of ${prefix.measured} tokens (${cacheablePrefix} with the stable tools' ${toolsTokens}), expected at least ${CACHE_MINIMUM_TOKENS} together for OpenAI prompt caching to apply`,
      ),
    );
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
    delete result.hashes;
  }
  return result;
}

