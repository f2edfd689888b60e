import { createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SourceFile, ValidSkill } from "../../stage-data.js";
import type { InjectionKindArtifact, ToolSchemaArtifact } from "../../protocol/dist-manifest.js";
import { baseFolderLine } from "../../protocol/skill-folder.js";
import { collapseWhitespace, renderCatalog, renderNamespaceCatalog, skillPath, type CatalogNamespace } from "../../skills/catalog.js";
import { checkTemplateCached } from "./template-check-cache.js";
import {
  createEngine,
  finishText,
  loadHandlebars,
  parseTemplate,
  registerPartials,
  renderTemplate,
  type HandlebarsInstance,
  type ParsedTemplate,
} from "./templates.js";
import type { ResolvedVariant } from "../validate/variants.js";

export { PARTIALS_DIR, PREFIX_TEMPLATE, VARIANT_TEMPLATE } from "../discover/source-paths.js";

export interface TemplateSources {
  prefix: SourceFile;
  variant: SourceFile;
  /** Files in prompts/partials/ ending in .hbs, sorted by path. */
  partials: SourceFile[];
}

export interface PrefixContext {
  catalog: string;
  skills: Array<{ name: string; type: string; description: string; path: string }>;
  workflowSkills: string[];
  referenceSkills: string[];
  tools: Array<{ name: string; description: string }>;
  injectionKinds: Array<{ kind: string; tag: string; meaning: string; action: string; delivery: string }>;
  /** The tool namespaces a session can load, sorted by name: names and descriptions only, never a schema. */
  toolNamespaces: Array<{ name: string; description: string }>;
  /** The `<tool_namespaces>` block; "" when the project has no namespace. */
  namespaceCatalog: string;
}

export interface VariantContext {
  variant: string;
  /** `baseFolder`: where the skill's supporting files are, as the `skill` tool says it; "" when it ships none. */
  preloaded: Array<{ name: string; type: string; isWorkflow: boolean; path: string; body: string; baseFolder: string }>;
}

export interface PreparedTemplates {
  engine: HandlebarsInstance;
  prefix: ParsedTemplate;
  variant: ParsedTemplate;
  partials: Map<string, ParsedTemplate>;
  /** Template-check findings by template and context shape (see template-check-cache.ts). */
  checkResults: Map<string, Diagnostic[]>;
}

export interface RenderedPrompts {
  catalog: string;
  prefix: string;
  /** Where the catalog first starts in the prefix. */
  catalogAt: number;
  /** Variant name → the text appended after the prefix. */
  suffixes: Map<string, string>;
  templates: PreparedTemplates;
}

/** The body the skill tool returns: no leading blank lines, exactly one trailing newline. */
export function normalizeSkillBody(body: string): string {
  return finishText(body.replace(/^(?:[ \t]*\n)+/, ""));
}

/**
 * Every context value is a string, boolean, list or plain object built here,
 * in a fixed order: the rendered bytes depend on nothing but the sources.
 */
export function prefixContext(
  skills: readonly ValidSkill[],
  tools: readonly ToolSchemaArtifact[],
  injections: readonly InjectionKindArtifact[],
  /** The catalog when the caller already rendered it (it must equal `renderCatalog(skills)`). */
  catalog?: string,
  namespaces: readonly CatalogNamespace[] = [],
): PrefixContext {
  const sortedNamespaces = [...namespaces].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const sorted = [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    catalog: catalog ?? renderCatalog(sorted),
    skills: sorted.map((skill) => ({ name: skill.name, type: skill.type, description: collapseWhitespace(skill.description), path: skillPath(skill.name) })),
    workflowSkills: sorted.filter((skill) => skill.type === "workflow").map((skill) => skill.name),
    referenceSkills: sorted.filter((skill) => skill.type === "reference").map((skill) => skill.name),
    tools: tools.map((tool) => ({ name: tool.name, description: tool.description })),
    injectionKinds: injections.map((entry) => ({ kind: entry.kind, tag: entry.tag, meaning: entry.meaning, action: entry.action, delivery: entry.delivery })),
    toolNamespaces: sortedNamespaces.map((namespace) => ({ name: namespace.name, description: collapseWhitespace(namespace.description) })),
    namespaceCatalog: sortedNamespaces.length > 0 ? renderNamespaceCatalog(sortedNamespaces) : "",
  };
}

/** A skill's supporting files, relative to its folder, in the order the manifest lists them. */
export type SkillFilesOf = (skill: string) => readonly string[];

export function variantContext(variant: ResolvedVariant, filesOf: SkillFilesOf = () => []): VariantContext {
  return {
    variant: variant.name,
    preloaded: variant.skills.map((skill) => ({
      name: skill.name,
      type: skill.type,
      isWorkflow: skill.type === "workflow",
      path: skillPath(skill.name),
      body: normalizeSkillBody(skill.body),
      baseFolder: baseFolderLine(skill.name, filesOf(skill.name)) ?? "",
    })),
  };
}

export async function prepareTemplates(sources: TemplateSources): Promise<PreparedTemplates | Diagnostic[]> {
  const engine = createEngine(await loadHandlebars());
  const diagnostics: Diagnostic[] = [];
  const parse = (source: SourceFile, partialName?: string): ParsedTemplate | undefined => {
    const parsed = parseTemplate(engine, source, partialName);
    if ("ast" in parsed) return parsed;
    diagnostics.push(parsed);
    return undefined;
  };
  const prefix = parse(sources.prefix);
  const variant = parse(sources.variant);
  const partials = new Map<string, ParsedTemplate>();
  for (const source of sources.partials) {
    const name = (source.path.split("/").pop() ?? source.path).replace(/\.hbs$/, "");
    const parsed = parse(source, name);
    if (parsed) partials.set(name, parsed);
  }
  if (!prefix || !variant || diagnostics.length > 0) return diagnostics;
  return { engine, prefix, variant, partials, checkResults: new Map() };
}

const partialsRegistered = new WeakSet<PreparedTemplates>();

/** Checks, then renders the prefix and every variant suffix. */
export function renderPrompts(templates: PreparedTemplates, context: PrefixContext, variants: readonly ResolvedVariant[], filesOf?: SkillFilesOf): RenderedPrompts | Diagnostic[] {
  const diagnostics = checkTemplateCached(templates.checkResults, templates.prefix, context, templates.partials);
  const variantContexts = variants.map((variant) => ({ name: variant.name, context: variantContext(variant, filesOf) }));
  for (const { context: variantCtx } of variantContexts) {
    diagnostics.push(...checkTemplateCached(templates.checkResults, templates.variant, variantCtx, templates.partials));
  }
  if (diagnostics.length > 0) return uniqueDiagnostics(diagnostics);
  if (!partialsRegistered.has(templates)) {
    // Prepared templates are reused across watch rebuilds; their partials need registering once.
    registerPartials(templates.engine, [...templates.partials.values()], (template) => template.text);
    partialsRegistered.add(templates);
  }
  const prefix = renderTemplate(templates.engine, templates.prefix, context);
  if (typeof prefix !== "string") return [prefix];
  const suffixes = new Map<string, string>();
  for (const { name, context: variantCtx } of variantContexts) {
    if (variantCtx.preloaded.length === 0) {
      // Nothing to preload: the variant is the prefix itself.
      suffixes.set(name, "");
      continue;
    }
    const suffix = renderTemplate(templates.engine, templates.variant, variantCtx);
    if (typeof suffix !== "string") return [suffix];
    suffixes.set(name, finishText(suffix));
  }
  // Found in the finished text: a CRLF a value put before the catalog is one character less there.
  const finished = finishText(prefix);
  const catalogAt = context.catalog ? finished.indexOf(context.catalog) : -1;
  if (catalogAt < 0) {
    return [createDiagnostic("template/missing-catalog", templates.prefix.file, FILE_START, "Unexpected static prefix without the skill catalog, expected {{catalog}} in prompts/prefix.hbs or one of its partials")];
  }
  return { catalog: context.catalog, prefix: finished, catalogAt, suffixes, templates };
}

function uniqueDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((diagnostic) => {
    const key = `${diagnostic.file}:${diagnostic.line}:${diagnostic.column}:${diagnostic.ruleId}:${diagnostic.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
