import { appendDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { ToolSchemaArtifact } from "../../protocol/dist-manifest.js";
import type { SourceFile, ValidSkill } from "../../stage-data.js";
import { loadProjectSources } from "../discover/project-sources.js";
import type { SourceOverrides } from "../discover/read-source.js";
import { readSupportingFiles, type SupportingFile, type SupportingWalk } from "../discover/supporting-files.js";
import { defineSlot, type BuildSession } from "../session/build-session.js";
import { resolveConfig } from "../validate/config.js";
import { resolveInjections } from "../validate/injection-kinds.js";
import { knowledgeToolDiagnostics, resolveKnowledge } from "../validate/knowledge.js";
import type { readLintConfig } from "../validate/lint-config.js";
import { declaredToolNames, resolveTools, runtimeToolDiagnostics, type ToolFileResult } from "../validate/tools.js";
import { resolveVariants } from "../validate/variants.js";
import { failedNamespaceFolders, namespaceToolNames, resolveNamespaces, skillNamespaceDiagnostics, unreachableNamespaceDiagnostics, type NamespaceDeclaringSkill } from "../validate/namespaces.js";
import { uniqueReferences, type lintSkills } from "./lint-skills.js";

const CONFIG = defineSlot<ReturnType<typeof resolveConfig>>("config");
const INJECTIONS = defineSlot<ReturnType<typeof resolveInjections>>("injection kinds");
const TOOL_FILES = defineSlot<ToolFileResult>("tool files");
const SUPPORTING_FILES = defineSlot<Map<string, SupportedFolder>>("supporting files");

/** A source's identity for the session's reuse: its path and the hash of its bytes. */
export function sourceKey(source: SourceFile | undefined): string {
  return source ? `${source.path}\u0000${source.contentHash}` : "";
}

export type SupportedFolder = { maxBytes: number; files: SupportingFile[]; diagnostics: Diagnostic[] };

export interface CheckedProjectSources {
  /** Every finding about the project's own sources (config, injections, tools, variants, supporting files, knowledge). */
  diagnostics: Diagnostic[];
  config: ReturnType<typeof resolveConfig>;
  injections: ReturnType<typeof resolveInjections>;
  /** The skills the model is offered (no disable-model-invocation). */
  invocable: ValidSkill[];
  tools: ReturnType<typeof resolveTools>;
  /** The project's tool namespaces (none when it has no schemas/namespaces/). */
  namespaces: ReturnType<typeof resolveNamespaces>;
  variants: ReturnType<typeof resolveVariants>;
  supporting: ReturnType<typeof collectSupportingFiles>;
  knowledge: Awaited<ReturnType<typeof resolveKnowledge>> | undefined;
}

/**
 * Everything the build validates before it renders, past the skills: the
 * config, injections, tool schemas, variants, supporting files, knowledge
 * notes. Build and lint both call it (build then checks the templates), so a project
 * that lints clean does not fail its build on a source lint never read.
 */
export async function checkProjectSources(
  root: string,
  session: BuildSession,
  changedPaths: readonly string[] | undefined,
  lintConfig: ReturnType<typeof readLintConfig>,
  linted: Awaited<ReturnType<typeof lintSkills>>,
  sources: Awaited<ReturnType<typeof loadProjectSources>>["sources"],
  acceptedToolParameters?: (tool: ToolSchemaArtifact) => boolean,
  /** Source files the reader refused, each with its own finding. */
  refused?: ReadonlySet<string>,
): Promise<CheckedProjectSources> {
  const diagnostics: Diagnostic[] = [];
  const skills = linted.skills;
  const failedSkills = new Set(linted.statuses.filter((skill) => skill.status !== "valid").map((skill) => skill.folder));
  const config = session.reuseLatest(CONFIG, sourceKey(sources.config), () => resolveConfig(sources.config));
  appendDiagnostics(diagnostics, config.diagnostics);
  // Both read one schema: with the file valid, lint's reading adds only what the schema cannot see (rule ids).
  if (config.diagnostics.length === 0) appendDiagnostics(diagnostics, lintConfig.diagnostics);
  const injectionsSource = sources.injections;
  const injections = injectionsSource ? session.reuseLatest(INJECTIONS, sourceKey(injectionsSource), () => resolveInjections(injectionsSource)) : { injections: [], diagnostics: [] };
  appendDiagnostics(diagnostics, injections.diagnostics);
  // What the model is offered: a skill with disable-model-invocation is in neither the catalog nor the skill tool's names.
  const invocable = skills.filter((skill) => skill.disableModelInvocation !== true);
  const tools = resolveTools({ files: sources.toolFiles, order: sources.toolOrder, ...(refused ? { refused } : {}) }, invocable.map((skill) => skill.name), session.reuser(TOOL_FILES), acceptedToolParameters);
  appendDiagnostics(diagnostics, tools.diagnostics);
  const namespaceFiles = sources.namespaceFiles ?? [];
  const namespaces = namespaceFiles.length > 0 ? resolveNamespaces(namespaceFiles, tools.tools, session.reuser(TOOL_FILES), acceptedToolParameters) : { namespaces: [], diagnostics: [] };
  appendDiagnostics(diagnostics, namespaces.diagnostics);
  const namespaceNames = { valid: new Set(namespaces.namespaces.map((namespace) => namespace.name)), failed: failedNamespaceFolders(namespaceFiles, namespaces.namespaces) };
  const declaringSkills = namespaceDeclaringSkills(linted.files);
  appendDiagnostics(diagnostics, skillNamespaceDiagnostics(declaringSkills, namespaceNames.valid, namespaceNames.failed));
  const variants = sources.variants ? resolveVariants(sources.variants, skills, failedSkills, namespaceNames) : { variants: [], diagnostics: [] };
  appendDiagnostics(diagnostics, variants.diagnostics);
  // A skill with an error of its own is not built, but its folder's problems (a file over the size limit, a
  // link leading out) are reported with it: mending the one error must not bring the next to light.
  const built = new Set(skills.map((skill) => skill.path));
  const unbuilt = linted.files.filter((file) => !built.has(file.path)).map((file) => file.path.slice(0, -"/SKILL.md".length));
  const supporting = collectSupportingFiles(root, skills, config.config.supportingFiles.maxBytes, session, changedPaths, linted.walks, unbuilt);
  appendDiagnostics(diagnostics, supporting.diagnostics);
  // Every tool the agent declares, in the stable set or a namespace, with or without findings of its own (those are reported once, by their file).
  const stable = declaredToolNames({ files: sources.toolFiles, order: sources.toolOrder });
  const knowledge = sources.knowledgeFiles
    ? await resolveKnowledge(sources.knowledgeFiles, {
        skillNames: [...new Set([...skills.map((skill) => skill.name), ...failedSkills])].sort(),
        toolNames: [...new Set([...stable, ...namespaceToolNames(namespaceFiles, namespaces.namespaces)])].sort(),
        inlineBytes: config.config.knowledge.inlineBytes,
      })
    : undefined;
  if (knowledge) appendDiagnostics(diagnostics, knowledge.diagnostics);
  // Only an agent (a project with the prefix template) runs in the runtime, so only an agent's tool set is held to it.
  if (sources.prefix) {
    // The runtime serves its own tools from the stable set: one in a namespace would wait for a host executor.
    const namespaceOf = new Map(namespaceFiles.length > 0 ? namespaces.namespaces.flatMap((namespace) => namespace.tools.map((tool) => [tool.name, namespace.name] as const)) : []);
    appendDiagnostics(diagnostics, runtimeToolDiagnostics(sources.toolOrder, stable, namespaceOf));
    if (knowledge) appendDiagnostics(diagnostics, knowledgeToolDiagnostics(knowledge.notes, stable));
    appendDiagnostics(diagnostics, unreachableNamespaceDiagnostics(namespaces.namespaces, variants.variants, declaringSkills, stable));
  }
  return { diagnostics, config, injections, invocable, tools, namespaces, variants, supporting, knowledge };
}

/**
 * Every valid skill's supporting files, and the findings of those of the
 * skills in `unbuilt` (folders of skills with errors of their own: read for
 * their findings only). A watch rebuild lists and reads a skill folder again
 * only when a changed path lies inside it; a folder lint walked in the same
 * run (`walks`) is read from that walk.
 */
export function collectSupportingFiles(
  root: string,
  skills: readonly ValidSkill[],
  maxBytes: number,
  session: BuildSession,
  changedPaths: readonly string[] | undefined,
  walks?: ReadonlyMap<string, SupportingWalk>,
  unbuilt: readonly string[] = [],
): { files: Map<string, SupportingFile[]>; diagnostics: Diagnostic[] } {
  const known = session.keep(SUPPORTING_FILES, () => new Map());
  const files = new Map<string, SupportingFile[]>();
  const diagnostics: Diagnostic[] = [];
  const kept = new Map<string, SupportedFolder>();
  const readFolder = (folder: string): SupportedFolder => {
    const cached = known.get(folder);
    const touched = changedPaths === undefined || changedPaths.some((path) => path.startsWith(`${folder}/`));
    const reusable = cached !== undefined && cached.maxBytes === maxBytes && !touched;
    const read = reusable ? cached : { maxBytes, ...readSupportingFiles(root, folder, maxBytes, walks?.get(folder)) };
    kept.set(folder, read);
    appendDiagnostics(diagnostics, read.diagnostics);
    return read;
  };
  for (const skill of skills) files.set(skill.name, readFolder(skill.path.slice(0, -"/SKILL.md".length)).files);
  for (const folder of unbuilt) readFolder(folder);
  known.clear();
  for (const [folder, read] of kept) known.set(folder, read);
  return { files, diagnostics };
}

/** Every skill whose manifest names tool namespaces, each name once: a skill with an error of its own is checked too. */
function namespaceDeclaringSkills(files: Awaited<ReturnType<typeof lintSkills>>["files"]): NamespaceDeclaringSkill[] {
  const skills: NamespaceDeclaringSkill[] = [];
  for (const { path, manifest } of files) {
    if (manifest?.name === undefined || manifest.toolNamespaces.length === 0) continue;
    skills.push({ name: manifest.name, path, type: manifest.type, toolNamespaces: uniqueReferences(manifest.toolNamespaces) });
  }
  return skills;
}

/**
 * The findings of an agent's sources besides its skills (tools, namespaces,
 * variants, injections, knowledge, config) as lint reports them for a project
 * it does not compile: read (with unsaved text where given) and checked, no
 * template rendered. Config findings of `lintConfig` are the caller's.
 */
export async function agentSourceFindings(
  root: string,
  session: BuildSession,
  linted: Awaited<ReturnType<typeof lintSkills>>,
  config: ReturnType<typeof readLintConfig>["config"],
  options: { changedPaths?: readonly string[]; overrides?: SourceOverrides; acceptedToolParameters?: (tool: ToolSchemaArtifact) => boolean } = {},
): Promise<Diagnostic[]> {
  const loaded = await loadProjectSources(root, session, options.changedPaths, options.overrides);
  const checked = await checkProjectSources(root, session, options.changedPaths, { config, diagnostics: [] }, linted, loaded.sources, options.acceptedToolParameters, loaded.refused);
  return [...loaded.diagnostics, ...checked.diagnostics];
}
