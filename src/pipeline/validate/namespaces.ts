import { createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SourceFile, ValidSkill } from "../../stage-data.js";
import type { ToolNamespaceArtifact, ToolSchemaArtifact } from "../../protocol/dist-manifest.js";
import { parseJsonSource, rangeAt, type PositionedSource } from "../parse/positioned-source.js";
import { NAMESPACE_FILE, NAMESPACE_TOOLS_DIR, NAMESPACES_DIR } from "../discover/source-paths.js";
import type { Reuse } from "../session/build-session.js";
import { duplicateToolNameMessage, MAX_TOOLS_PER_NAMESPACE, namespaceDescriptionProblem, tooManyToolsMessage, toolNamePrefixMessage } from "../../protocol/tool-rules.js";
import { schemaDiagnostics } from "./schema-diagnostics.js";
import { buildSchemaValidator } from "./schemas.js";
import { didYouMean } from "../../protocol/suggest.js";
import { orderTools, resolveToolFiles, type ToolFileResult } from "./tools.js";
import { LOAD_NAMESPACE_TOOL } from "../../protocol/runtime-tools.js";

/**
 * Tool namespaces: groups of tools kept out of the stable tool set, each
 * loaded at session start or on demand. A namespace's tools pass every rule a
 * stable tool passes (the same per-file rules and the same order rules, with
 * the namespace's `tools` list as the order); the namespace itself is checked
 * for what tool search needs: a trigger description, few tools, names that
 * say which namespace they belong to and that no other tool uses.
 */


export interface ResolvedNamespaces {
  /** Valid namespaces, sorted by name. */
  namespaces: ToolNamespaceArtifact[];
  diagnostics: Diagnostic[];
}

export function resolveNamespaces(
  files: readonly SourceFile[],
  stableTools: readonly ToolSchemaArtifact[],
  reuse: Reuse<ToolFileResult> = (_key, compute) => compute(),
  accepted: (tool: ToolSchemaArtifact) => boolean = () => false,
): ResolvedNamespaces {
  const diagnostics: Diagnostic[] = [];
  const folders = new Map<string, { declaration?: SourceFile; tools: SourceFile[] }>();
  for (const file of files) {
    const [folder = "", ...rest] = file.path.slice(NAMESPACES_DIR.length + 1).split("/");
    const entry = folders.get(folder) ?? { tools: [] };
    folders.set(folder, entry);
    if (rest.join("/") === NAMESPACE_FILE) entry.declaration = file;
    else entry.tools.push(file);
  }
  const namespaces: ToolNamespaceArtifact[] = [];
  for (const [folder, { declaration, tools }] of [...folders].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const dir = `${NAMESPACES_DIR}/${folder}`;
    if (!declaration) {
      diagnostics.push(createDiagnostic("source/missing-file", `${dir}/${NAMESPACE_FILE}`, FILE_START, `Unexpected namespace folder without ${NAMESPACE_FILE}, expected {name, description, tools} in ${dir}/${NAMESPACE_FILE}`));
      continue;
    }
    const resolved = resolveNamespace(folder, declaration, tools, reuse, accepted, diagnostics);
    if (resolved) namespaces.push(resolved);
  }
  diagnostics.push(...duplicateToolNames(namespaces, stableTools, files));
  return { namespaces, diagnostics };
}

function resolveNamespace(
  folder: string,
  declaration: SourceFile,
  toolFiles: readonly SourceFile[],
  reuse: Reuse<ToolFileResult>,
  accepted: (tool: ToolSchemaArtifact) => boolean,
  diagnostics: Diagnostic[],
): ToolNamespaceArtifact | undefined {
  const located = parseJsonSource(declaration);
  if (!("document" in located)) {
    diagnostics.push(located);
    return undefined;
  }
  const validate = buildSchemaValidator("namespace");
  if (!validate(located.value)) {
    diagnostics.push(...schemaDiagnostics("namespace/invalid", located, validate.errors, "the namespace", "namespace"));
    return undefined;
  }
  const { name, description, tools: order } = located.value as { name: string; description: string; tools: string[] };
  if (name !== folder) {
    diagnostics.push(createDiagnostic("namespace/name-mismatch", declaration.path, rangeAt(located, ["name"]), `Unexpected name \`${name}\`, expected \`${folder}\` (the folder's name)`));
    return undefined;
  }
  const descriptionProblem = descriptionDiagnostic(located, description);
  if (descriptionProblem) {
    diagnostics.push(descriptionProblem);
    if (descriptionProblem.severity === "error") return undefined;
  }
  const files = resolveToolFiles(toolFiles, reuse, accepted);
  diagnostics.push(...files.diagnostics);
  const before = diagnostics.length;
  const dir = `${NAMESPACES_DIR}/${folder}/${NAMESPACE_TOOLS_DIR}`;
  const tools = orderTools({ order: located, at: ["tools"], names: order, files: toolFiles, byName: files.byName, dir, orderName: `the \`tools\` list of ${declaration.path}` }, diagnostics);
  if (files.diagnostics.length > 0 || diagnostics.length > before) return undefined;
  if (tools.length > MAX_TOOLS_PER_NAMESPACE) {
    diagnostics.push(createDiagnostic("namespace/too-many-tools", declaration.path, rangeAt(located, ["tools"]), tooManyToolsMessage(name, tools.length)));
  }
  tools.forEach((tool, index) => {
    if (tool.name.startsWith(`${name}_`)) return;
    diagnostics.push(createDiagnostic("namespace/tool-name-prefix", declaration.path, rangeAt(located, ["tools", index]), toolNamePrefixMessage(name, tool.name)));
  });
  return { name, description, tools };
}

/** The skill description rules, applied to a namespace's description (it is a trigger in a catalog too). */
function descriptionDiagnostic(located: PositionedSource, description: string): Diagnostic | undefined {
  const found = namespaceDescriptionProblem(description);
  // Positions are worked out only for a finding: a clean namespace never loads the YAML library.
  return found === undefined ? undefined : createDiagnostic(found.ruleId, located.file, rangeAt(located, ["description"]), found.message);
}

/** A tool name used twice: providers take one flat list of names, so the second would shadow the first. */
function duplicateToolNames(namespaces: readonly ToolNamespaceArtifact[], stableTools: readonly ToolSchemaArtifact[], files: readonly SourceFile[]): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const owner = new Map<string, string>(stableTools.map((tool) => [tool.name, "the stable tool set"]));
  for (const namespace of namespaces) {
    for (const tool of namespace.tools) {
      const first = owner.get(tool.name);
      if (first === undefined) {
        owner.set(tool.name, `namespace \`${namespace.name}\``);
        continue;
      }
      const path = `${NAMESPACES_DIR}/${namespace.name}/${NAMESPACE_TOOLS_DIR}/${tool.name}.json`;
      const file = files.find((candidate) => candidate.path === path)?.path ?? path;
      diagnostics.push(createDiagnostic("namespace/tool-name-duplicate", file, FILE_START, duplicateToolNameMessage(tool.name, namespace.name, first)));
    }
  }
  return diagnostics;
}

/**
 * A skill's `toolNamespaces`: each a declared namespace, and only on a
 * workflow skill (it loads them when it becomes active).
 */
/** What the namespace rules read of a skill: every skill whose manifest names namespaces, with errors of its own or not, so both rounds of fixes show at once. */
export interface NamespaceDeclaringSkill {
  name: string;
  path: string;
  /** Undefined when the manifest's type is missing or wrong (its own finding says so): only the names are checked then. */
  type: ValidSkill["type"] | undefined;
  toolNamespaces: NonNullable<ValidSkill["toolNamespaces"]>;
}

export function skillNamespaceDiagnostics(skills: readonly NamespaceDeclaringSkill[], namespaceNames: ReadonlySet<string>, namespacesFailed: ReadonlySet<string>): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const skill of skills) {
    const declared = skill.toolNamespaces;
    if (declared.length === 0) continue;
    if (skill.type !== undefined && skill.type !== "workflow") {
      const first = declared[0];
      if (first) diagnostics.push(createDiagnostic("skill/namespace-on-reference", skill.path, first.range, `Unexpected toolNamespaces on reference skill \`${skill.name}\`, expected them on the workflow skill that needs the tools`));
      continue;
    }
    for (const reference of declared) {
      // A namespace folder that exists but failed has errors of its own in its files (source, namespace and tool
      // rules are errors no config turns off): they fail the build and say what to fix; the skill names it rightly.
      if (namespaceNames.has(reference.name) || namespacesFailed.has(reference.name)) continue;
      diagnostics.push(
        createDiagnostic("skill/namespace-unknown", skill.path, reference.range, `Unexpected namespace \`${reference.name}\` (no namespace has that name), expected the name of a namespace in ${NAMESPACES_DIR}/${didYouMean(reference.name, [...namespaceNames].sort())}`),
      );
    }
  }
  return diagnostics;
}

/** Namespace folders that exist but did not resolve (their names may still be referenced). */
export function failedNamespaceFolders(files: readonly SourceFile[], resolved: readonly ToolNamespaceArtifact[]): Set<string> {
  const names = new Set(resolved.map((namespace) => namespace.name));
  const failed = new Set<string>();
  for (const file of files) {
    const folder = file.path.slice(NAMESPACES_DIR.length + 1).split("/")[0] ?? "";
    if (!names.has(folder)) failed.add(folder);
  }
  return failed;
}

/**
 * Every tool name the namespaces declare: the tools of each valid namespace,
 * and the tool files of every folder (a namespace or tool with findings of its
 * own is still declared, so a note naming it is not reported a second time).
 */
export function namespaceToolNames(files: readonly SourceFile[], resolved: readonly ToolNamespaceArtifact[]): string[] {
  const names = resolved.flatMap((namespace) => namespace.tools.map((tool) => tool.name));
  for (const file of files) {
    const [, folder, ...rest] = file.path.slice(NAMESPACES_DIR.length + 1).split("/");
    if (folder === NAMESPACE_TOOLS_DIR && rest.length === 1 && rest[0]?.endsWith(".json")) names.push(rest[0].slice(0, -".json".length));
  }
  return names;
}

/**
 * A namespace a variant loads on demand that nothing the model does can load
 * in a session of it: no workflow skill names it in `toolNamespaces` and the
 * stable set has no `load_tool_namespace`. The prefix's catalog still shows it
 * to the model. A warning: the host can still load it (`toolLoading: "start"`,
 * `loadNamespacesForHost`), which the build cannot see. One finding per
 * namespace, at its declaration, naming the variants.
 */
export function unreachableNamespaceDiagnostics(
  namespaces: readonly ToolNamespaceArtifact[],
  variants: ReadonlyArray<{ name: string; namespaces: readonly string[] }>,
  declaringSkills: readonly NamespaceDeclaringSkill[],
  stableTools: ReadonlySet<string>,
): Diagnostic[] {
  if (stableTools.has(LOAD_NAMESPACE_TOOL)) return [];
  const named = new Set(declaringSkills.filter((skill) => skill.type !== "reference").flatMap((skill) => skill.toolNamespaces.map((reference) => reference.name)));
  return namespaces.flatMap((namespace) => {
    if (named.has(namespace.name)) return [];
    const onDemand = variants.filter((variant) => !variant.namespaces.includes(namespace.name)).map((variant) => variant.name);
    if (onDemand.length === 0) return [];
    return [
      createDiagnostic(
        "namespace/unreachable",
        `${NAMESPACES_DIR}/${namespace.name}/${NAMESPACE_FILE}`,
        FILE_START,
        `Unexpected namespace \`${namespace.name}\` that ${onDemand.length === 1 ? `variant ${onDemand[0]} loads` : `variants ${onDemand.join(", ")} load`} on demand with no way for the model to load it: no workflow skill names it in toolNamespaces and the tool set has no ${LOAD_NAMESPACE_TOOL}; expected one of those, or the namespace in the variant's namespaces (sent from the start), unless the host loads it itself`,
      ),
    ];
  });
}
