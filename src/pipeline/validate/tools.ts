import { createDiagnostic, FILE_START, type Diagnostic, type Range } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../stage-data.js";
import type { ToolSchemaArtifact } from "../../protocol/dist-manifest.js";
import { KNOWLEDGE_TOOL, REQUIRED_RUNTIME_TOOLS, RUNTIME_TOOL_PARAMETERS } from "../../protocol/runtime-tools.js";
import { refCycle } from "../../protocol/tool-rules.js";
import { parseJsonSource, rangeAt, type PositionedSource } from "../parse/positioned-source.js";
import { schemaDiagnostics } from "./schema-diagnostics.js";
import type { Reuse } from "../session/build-session.js";
import { buildSchemaValidator, checkParametersSchema, parametersProblemPath } from "./schemas.js";

import { TOOL_ORDER_FILE, TOOLS_DIR } from "../discover/source-paths.js";

export { TOOL_ORDER_FILE, TOOLS_DIR };
/** The tool whose `name` parameter becomes an enum of the catalog's skill names. */
export const SKILL_TOOL = "skill";

export interface ToolSources {
  /** Every `schemas/tools/*.json` except order.json, sorted by path. */
  files: SourceFile[];
  order: SourceFile | undefined;
  /** Files there that the reader refused (each has its own finding): their tools have a file, just not a readable one. */
  refused?: ReadonlySet<string>;
}

/**
 * The stable tool set in its declared order. Key order inside each entry is
 * fixed (name, description, parameters); inside `parameters` the author's key
 * order is kept, because property order is the order models fill arguments in.
 */
export function resolveTools(
  sources: ToolSources,
  skillNames: readonly string[],
  /** Per-file results by path and content hash, reused across watch rebuilds: compiling a schema is slow. */
  reuse: Reuse<ToolFileResult> = (_key, compute) => compute(),
  /** Parameter schemas already accepted for exactly these bytes (check reads them from dist/); others are compiled to check them. */
  accepted: (tool: ToolSchemaArtifact) => boolean = () => false,
): { tools: ToolSchemaArtifact[]; diagnostics: Diagnostic[] } {
  const { byName, fileOf, diagnostics } = resolveToolFiles(sources.files, reuse, accepted);
  if (!sources.order) {
    diagnostics.push(createDiagnostic("source/missing-file", TOOL_ORDER_FILE, FILE_START, "Unexpected missing tool order, expected a JSON list of tool names in schemas/tools/order.json"));
    return { tools: [], diagnostics };
  }
  const order = parseJsonSource(sources.order);
  if (!("document" in order)) return { tools: [], diagnostics: [...diagnostics, order] };
  if (!Array.isArray(order.value) || !order.value.every((item) => typeof item === "string")) {
    diagnostics.push(createDiagnostic("tool/order-unknown", order.file, rangeAt(order, []), "Unexpected tool order, expected a JSON list of tool names"));
    return { tools: [], diagnostics };
  }
  const tools = orderTools({ order, at: [], names: order.value as string[], files: sources.files, byName, dir: TOOLS_DIR, orderName: TOOL_ORDER_FILE, ...(sources.refused === undefined ? {} : { refused: sources.refused }) }, diagnostics);
  const skillTool = tools.find((tool) => tool.name === SKILL_TOOL);
  if (skillTool) {
    const withEnum = addSkillEnum(skillTool, skillNames);
    if (withEnum) tools[tools.indexOf(skillTool)] = withEnum;
    else {
      diagnostics.push(createDiagnostic("tool/skill-name-parameter", fileOf.get(SKILL_TOOL) ?? TOOL_ORDER_FILE, parameterRange(sources.files, fileOf.get(SKILL_TOOL), "name"), "Unexpected `skill` tool without a string `name` parameter, expected `parameters.properties.name` with type string"));
    }
  }
  // The knowledge tool's id is a plain string, since the host registers live notes the build never sees.
  const knowledgeTool = tools.find((tool) => tool.name === KNOWLEDGE_TOOL);
  if (knowledgeTool && !hasFreeStringParameter(knowledgeTool, "knowledgeId")) {
    diagnostics.push(
      createDiagnostic(
        "tool/knowledge-id-parameter",
        fileOf.get(KNOWLEDGE_TOOL) ?? TOOL_ORDER_FILE,
        parameterRange(sources.files, fileOf.get(KNOWLEDGE_TOOL), "knowledgeId"),
        "Unexpected `read_workspace_rule` tool without a plain string `knowledgeId` parameter, expected `parameters.properties.knowledgeId` with type string and no enum (live notes exist too)",
      ),
    );
  }
  diagnostics.push(...runtimeParameterDiagnostics(tools, fileOf, sources.files));
  return { tools, diagnostics };
}

/**
 * Where a tool's parameter is written in its file, as deep as the path
 * exists (the parameter, else `properties`, else `parameters`); the file is
 * parsed again for this, which only a finding needs.
 */
function parameterRange(files: readonly SourceFile[], path: string | undefined, parameter: string): Range {
  const file = files.find((candidate) => candidate.path === path);
  const located = file === undefined ? undefined : parseJsonSource(file);
  return located !== undefined && "document" in located ? rangeAt(located, ["parameters", "properties", parameter]) : FILE_START;
}

/** Each parameter the runtime reads from a tool it serves, declared with its type and required (see RUNTIME_TOOL_PARAMETERS). */
function runtimeParameterDiagnostics(tools: readonly ToolSchemaArtifact[], fileOf: ReadonlyMap<string, string>, files: readonly SourceFile[]): Diagnostic[] {
  return RUNTIME_TOOL_PARAMETERS.flatMap(({ tool: name, parameter, type, why }) => {
    const tool = tools.find((candidate) => candidate.name === name);
    if (!tool) return [];
    const properties = tool.parameters["properties"];
    const schema = typeof properties === "object" && properties !== null ? (properties as Record<string, unknown>)[parameter] : undefined;
    const typed = typeof schema === "object" && schema !== null && (schema as Record<string, unknown>)["type"] === type;
    const required = tool.parameters["required"];
    if (typed && Array.isArray(required) && required.includes(parameter)) return [];
    return [
      createDiagnostic(
        "tool/runtime-tool-parameters",
        fileOf.get(name) ?? TOOL_ORDER_FILE,
        parameterRange(files, fileOf.get(name), parameter),
        `Unexpected \`${name}\` tool without a required ${type} \`${parameter}\` parameter, expected \`parameters.properties.${parameter}\` with type ${type}, listed in \`required\` (the runtime reads it: ${why})`,
      ),
    ];
  });
}

/**
 * Every tool name the stable set declares: listed in the order or given a
 * file (the runtime serves its own tools from there, never from a namespace).
 * A name with a file or a listing that fails its own rules counts as declared,
 * so its finding is not repeated as a missing tool.
 */
export function declaredToolNames(sources: ToolSources): ReadonlySet<string> {
  const declared = new Set(sources.files.map((file) => baseName(file.path)));
  const order = sources.order ? parseJsonSource(sources.order) : undefined;
  if (order && "document" in order && Array.isArray(order.value)) {
    for (const name of order.value) if (typeof name === "string") declared.add(name);
  }
  return declared;
}

/**
 * The runtime tools a session cannot start without (the runtime's own list),
 * each one the project declares nowhere: at the tool order, where it goes.
 */
export function runtimeToolDiagnostics(order: SourceFile | undefined, declared: ReadonlySet<string>, namespaceOf: ReadonlyMap<string, string>): Diagnostic[] {
  const absent = REQUIRED_RUNTIME_TOOLS.filter((name) => !declared.has(name));
  if (!order || absent.length === 0) return [];
  const located = parseJsonSource(order);
  if (!("document" in located)) return [];
  return absent.map((name) => {
    const namespace = namespaceOf.get(name);
    const found = namespace === undefined ? `tool set without \`${name}\`` : `\`${name}\` in tool namespace \`${namespace}\``;
    return createDiagnostic(
      "tool/runtime-tool-missing",
      order.path,
      rangeAt(located, []),
      `Unexpected ${found}, expected ${TOOLS_DIR}/${name}.json listed in ${TOOL_ORDER_FILE} (the runtime implements \`${name}\` in the stable set and starts no session without it there)`,
    );
  });
}

/** Every tool file through the per-file rules; results reused by path and bytes. */
export function resolveToolFiles(
  files: readonly SourceFile[],
  reuse: Reuse<ToolFileResult>,
  accepted: (tool: ToolSchemaArtifact) => boolean,
): { byName: Map<string, ToolSchemaArtifact>; fileOf: Map<string, string>; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const byName = new Map<string, ToolSchemaArtifact>();
  const fileOf = new Map<string, string>();
  for (const file of files) {
    const key = `${file.path}\u0000${file.contentHash}`;
    const result = reuse(key, (): ToolFileResult => {
      const found: Diagnostic[] = [];
      const resolved = resolveToolFile(file, found, accepted);
      return resolved ? { tool: resolved, diagnostics: found } : { diagnostics: found };
    });
    diagnostics.push(...result.diagnostics);
    const tool = result.tool;
    if (tool) {
      byName.set(tool.name, tool);
      fileOf.set(tool.name, file.path);
    }
  }
  return { byName, fileOf, diagnostics };
}

/** A declared tool order (order.json, or a namespace's `tools` list) and the tool files it orders. */
export interface ToolOrder {
  order: PositionedSource;
  /** Where the list is inside the order file. */
  at: readonly (string | number)[];
  names: readonly string[];
  files: readonly SourceFile[];
  /** The tools whose files passed every per-file rule, by name. */
  byName: ReadonlyMap<string, ToolSchemaArtifact>;
  /** The folder the tool files are in, and how the messages name the list. */
  dir: string;
  orderName: string;
  /** Files the reader refused, each with its own finding: a tool listed with one of them is not missing a file. */
  refused?: ReadonlySet<string>;
}

/** The tools in declared order; every name listed once, every file listed, every listed name with a file. */
export function orderTools({ order, at, names, files, byName, dir, orderName, refused }: ToolOrder, diagnostics: Diagnostic[]): ToolSchemaArtifact[] {
  const tools: ToolSchemaArtifact[] = [];
  const listed = new Set<string>();
  names.forEach((name, index) => {
    if (listed.has(name)) {
      diagnostics.push(createDiagnostic("tool/order-duplicate", order.file, rangeAt(order, [...at, index]), `Unexpected second \`${name}\`, expected each tool once`));
      return;
    }
    listed.add(name);
    const tool = byName.get(name);
    if (tool) tools.push(tool);
    else if (!files.some((file) => file.path === `${dir}/${name}.json`) && refused?.has(`${dir}/${name}.json`) !== true) {
      diagnostics.push(createDiagnostic("tool/order-unknown", order.file, rangeAt(order, [...at, index]), `Unexpected tool \`${name}\`, expected a tool with a file ${dir}/${name}.json`));
    }
  });
  for (const file of files) {
    const name = baseName(file.path);
    if (!listed.has(name)) {
      diagnostics.push(createDiagnostic("tool/order-missing", file.path, FILE_START, `Unexpected tool \`${name}\` missing from ${orderName}, expected every tool in the declared order`));
    }
  }
  return tools;
}

function hasFreeStringParameter(tool: ToolSchemaArtifact, name: string): boolean {
  const properties = tool.parameters["properties"];
  if (typeof properties !== "object" || properties === null) return false;
  const parameter = (properties as Record<string, unknown>)[name];
  if (typeof parameter !== "object" || parameter === null) return false;
  const schema = parameter as Record<string, unknown>;
  return schema["type"] === "string" && !("enum" in schema) && !("const" in schema);
}

/** What one tool file gives on its own; it depends on nothing but the file's path and bytes. */
export interface ToolFileResult {
  tool?: ToolSchemaArtifact;
  diagnostics: Diagnostic[];
}

/** One tool file through every per-file tool rule: the schema, the file name, the parameters. */
function resolveToolFile(file: SourceFile, diagnostics: Diagnostic[], accepted: (tool: ToolSchemaArtifact) => boolean): ToolSchemaArtifact | undefined {
  const located = parseJsonSource(file);
  if (!("document" in located)) {
    diagnostics.push(located);
    return undefined;
  }
  const validate = buildSchemaValidator("tool");
  if (!validate(located.value)) {
    diagnostics.push(...schemaDiagnostics("tool/invalid", located, validate.errors, "the tool", "tool"));
    return undefined;
  }
  const tool = located.value as ToolSchemaArtifact;
  const expected = baseName(file.path);
  if (tool.name !== expected) {
    diagnostics.push(createDiagnostic("tool/name-mismatch", file.path, rangeAt(located, ["name"]), `Unexpected name \`${tool.name}\`, expected \`${expected}\` (the file name)`));
    return undefined;
  }
  // A $ref cycle of schemas that only refer onward is named before the compiler would follow it forever.
  const cycle = accepted(tool) ? undefined : refCycle(tool.parameters);
  if (cycle !== undefined) {
    diagnostics.push(parametersDiagnostic(located, cycle.message, { path: cycle.path, key: false }));
    return undefined;
  }
  const problem = accepted(tool) ? undefined : checkParametersSchema(tool.parameters);
  if (problem !== undefined) {
    diagnostics.push(parametersDiagnostic(located, problem, parametersProblemPath(tool.parameters, problem)));
    return undefined;
  }
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}

/** At the place the problem names when it can be found, else at the whole `parameters`. */
function parametersDiagnostic(located: PositionedSource, problem: string, where: { path: ReadonlyArray<string | number>; key: boolean } = { path: [], key: false }): Diagnostic {
  return createDiagnostic("tool/invalid-parameters", located.file, rangeAt(located, ["parameters", ...where.path], where.key), `Unexpected parameters schema: ${problem.split("\n")[0] ?? problem}`);
}

function addSkillEnum(tool: ToolSchemaArtifact, skillNames: readonly string[]): ToolSchemaArtifact | undefined {
  const properties = tool.parameters["properties"];
  if (typeof properties !== "object" || properties === null) return undefined;
  const name = (properties as Record<string, unknown>)["name"];
  if (typeof name !== "object" || name === null || (name as Record<string, unknown>)["type"] !== "string") return undefined;
  const sorted = [...skillNames].sort();
  const withEnum = { ...(name as Record<string, unknown>), enum: sorted };
  return { ...tool, parameters: { ...tool.parameters, properties: { ...(properties as Record<string, unknown>), name: withEnum } } };
}

function baseName(path: string): string {
  return (path.split("/").pop() ?? path).replace(/\.json$/, "");
}
