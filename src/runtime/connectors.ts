/**
 * Connectors: tool namespaces a host registers on a live session (a
 * workspace's Notion, Drive, Slack). A registration is checked at the
 * boundary by the compiler's own tool and namespace rules
 * (src/protocol/tool-rules.ts); an accepted one joins the session's catalog
 * and loads like a compiled namespace. Pi-free: the controller keeps them
 * durable and announces them, the adapter serves their tools.
 */
import type { ToolSchemaArtifact } from "../protocol/dist-manifest.js";
import {
  checkToolDefinition,
  duplicateToolNameMessage,
  MAX_TOOLS_PER_NAMESPACE,
  NAMESPACE_NAME_MAX_LENGTH,
  NAMESPACE_NAME_PATTERN_SOURCE,
  namespaceDescriptionProblem,
  objectProblems,
  problem,
  stringProblems,
  tooManyToolsMessage,
  toolNamePrefixMessage,
  type ToolRuleProblem,
} from "../protocol/tool-rules.js";
import type { ConnectorDefinition } from "./execution-state.js";
import { RUNTIME_TOOL_NAMES, ToolSetupError, type HostExecutors } from "./tools.js";

export type { ConnectorDefinition };

/** A registration: the definition and an executor for each of its tools. */
export interface ConnectorRegistration extends ConnectorDefinition {
  executors: HostExecutors;
}

/** A finding at registration: one of the compiler's tool rules, or a name already in the session's catalog. */
export type ConnectorProblem = ToolRuleProblem | { ruleId: "connector/name-taken"; severity: "error"; path: "/name"; message: string };

/** A registration refused at the boundary: nothing was registered. `problems` holds every finding, errors first. */
export class ConnectorRejectedError extends Error {
  override readonly name = "ConnectorRejectedError";
  constructor(
    readonly connector: string,
    readonly problems: readonly ConnectorProblem[],
  ) {
    const first = problems.find((found) => found.severity === "error") ?? problems[0];
    super(`Connector ${JSON.stringify(connector)} refused${first === undefined ? "" : `: ${first.ruleId} at ${first.path === "" ? "/" : first.path}: ${first.message}`}`);
  }
}

/** A connector name the session does not hold. */
export class UnknownConnectorError extends Error {
  override readonly name = "UnknownConnectorError";
  constructor(
    readonly connector: string,
    readonly registered: readonly string[],
  ) {
    super(`Unexpected connector ${JSON.stringify(connector)}, expected one of the registered connectors: ${registered.length === 0 ? "(none)" : registered.join(", ")}`);
  }
}

/**
 * Connectors are announced with a `workspace_update` injection: a project
 * whose artifacts do not define that kind could never tell the model, so
 * registration is refused.
 */
export class ConnectorsNotAnnouncedError extends Error {
  override readonly name = "ConnectorsNotAnnouncedError";
  constructor() {
    super("Unexpected connector for a project without the workspace_update injection kind, expected it in prompts/injections.yaml (the model learns of connectors through it)");
  }
}

/** What a registration or a removal did. */
export interface ConnectorChange {
  connector: string;
  /** Whether its tools are in the tool list now. */
  loaded: boolean;
  /** Findings of rules that warn (a long namespace, a tool name without the prefix): registered all the same. */
  warnings: readonly ConnectorProblem[];
  /** The id of the workspace_update injection that tells the model. */
  injectionId: string;
}

/** A stored connector a restart could not bring back; the rest of the session goes on without it. */
export interface DroppedConnector {
  connector: string;
  /** `refused`: it no longer passes the boundary check; `gone`: the host supplies no executors for it any more. */
  reason: "refused" | "gone";
  message: string;
  problems: readonly ConnectorProblem[];
}

/** What a session's creation did with the connectors its store held. */
export interface ConnectorRestore {
  restored: string[];
  dropped: DroppedConnector[];
}

/** The names a connector may not take: the catalog's namespaces and every tool name in the session, each with its owner. */
export interface TakenNames {
  namespaces: ReadonlyMap<string, string>;
  tools: ReadonlyMap<string, string>;
}

const REGISTRATION_KEYS = ["name", "description", "tools"];

/**
 * The boundary check of a connector's definition (without its executors): the
 * namespace and tool rules as the compiler applies them, and names taken in
 * the session. Returns the definition (a detached copy) when no finding is an
 * error, and every finding.
 */
export function checkConnector(value: unknown, taken: TakenNames): { definition?: ConnectorDefinition; problems: ConnectorProblem[] } {
  const invalid = (path: string, message: string) => problem("namespace/invalid", path, message);
  const { record, problems: shape } = objectProblems(value, REGISTRATION_KEYS, "the namespace", invalid);
  if (record === undefined) return { problems: shape };
  const problems: ConnectorProblem[] = [...shape];
  problems.push(...stringProblems(record, "name", { maxLength: NAMESPACE_NAME_MAX_LENGTH, pattern: NAMESPACE_NAME_PATTERN_SOURCE }, invalid));
  problems.push(...stringProblems(record, "description", {}, invalid));
  const name = record["name"];
  const description = record["description"];
  const tools = record["tools"];
  if ("tools" in record) {
    if (!Array.isArray(tools)) problems.push(invalid("/tools", "Unexpected value at `tools`: it must be array"));
    else if (tools.length === 0) problems.push(invalid("/tools", "Unexpected value at `tools`: it must NOT have fewer than 1 items"));
  }
  if (problems.length > 0 || typeof name !== "string" || typeof description !== "string" || !Array.isArray(tools)) return { problems };

  const owner = taken.namespaces.get(name);
  if (owner !== undefined) problems.push({ ruleId: "connector/name-taken", severity: "error", path: "/name", message: `Unexpected connector name \`${name}\`, already ${owner}; expected a name no namespace of this session has` });
  const describedProblem = namespaceDescriptionProblem(description);
  if (describedProblem !== undefined) problems.push(problem(describedProblem.ruleId, "/description", describedProblem.message));
  const toolProblems = tools.flatMap((tool, index) => checkToolDefinition(tool, `/tools/${index}`));
  problems.push(...toolProblems);
  if (toolProblems.length > 0) return { problems: errorsFirst(problems) };

  const definitions = (tools as ToolSchemaArtifact[]).map((tool) => ({ name: tool.name, description: tool.description, parameters: structuredClone(tool.parameters) }));
  if (definitions.length > MAX_TOOLS_PER_NAMESPACE) problems.push(problem("namespace/too-many-tools", "/tools", tooManyToolsMessage(name, definitions.length)));
  const owners = new Map(taken.tools);
  definitions.forEach((tool, index) => {
    if (!tool.name.startsWith(`${name}_`)) problems.push(problem("namespace/tool-name-prefix", `/tools/${index}/name`, toolNamePrefixMessage(name, tool.name)));
    const first = owners.get(tool.name);
    if (first !== undefined) problems.push(problem("namespace/tool-name-duplicate", `/tools/${index}/name`, duplicateToolNameMessage(tool.name, name, first)));
    else owners.set(tool.name, `namespace \`${name}\``);
  });
  const sorted = errorsFirst(problems);
  return sorted.some((found) => found.severity === "error") ? { problems: sorted } : { definition: { name, description, tools: definitions }, problems: sorted };
}

/** One executor per tool of the connector and nothing else: a host mistake, refused like one at session creation. */
export function checkConnectorExecutors(definition: ConnectorDefinition, given: HostExecutors | undefined): asserts given is HostExecutors {
  const names = definition.tools.map((tool) => tool.name);
  const executors: HostExecutors = typeof given === "object" && given !== null && !Array.isArray(given) ? given : {};
  const missing = names.filter((name) => typeof executors[name] !== "function");
  if (missing.length > 0) {
    throw new ToolSetupError(`Unexpected missing executor for ${quoted(missing)}, expected the host to supply one per tool of the connector "${definition.name}"`, missing);
  }
  const unknown = Object.keys(executors).filter((name) => !names.includes(name));
  if (unknown.length > 0) throw new ToolSetupError(`Unexpected executor for ${quoted(unknown)}, expected only the tools of the connector "${definition.name}"`, unknown);
}

/** Names the runtime's own tools keep, whether or not tools.json declares them. */
export const RUNTIME_TOOL_OWNER = "the runtime's tools";

export function runtimeToolOwners(): [string, string][] {
  return RUNTIME_TOOL_NAMES.map((name) => [name, RUNTIME_TOOL_OWNER]);
}

// ---- what the model reads ---------------------------------------------------------------------

/** At most this many tool names in an announcement (an injection's summary is bounded). */
const LISTED_TOOLS = 20;

export function toolNamesText(definition: ConnectorDefinition): string {
  const names = definition.tools.map((tool) => tool.name);
  return names.length <= LISTED_TOOLS ? names.join(", ") : `${names.slice(0, LISTED_TOOLS).join(", ")} and ${names.length - LISTED_TOOLS} more`;
}

export function registeredSummary(definition: ConnectorDefinition, loaded: boolean, loadTool: string): string {
  return loaded
    ? `Connector "${definition.name}" was registered and its tools are in your tool list from now on: ${toolNamesText(definition)}. ${definition.description}`
    : `Connector "${definition.name}" was registered: ${definition.description} Its tools (${toolNamesText(definition)}) load when you call ${loadTool} with the name "${definition.name}".`;
}

export function removedSummary(definition: ConnectorDefinition): string {
  return `Connector "${definition.name}" was removed: ${toolNamesText(definition)} are no longer in your tool list, and a call to one of them fails.`;
}

export function droppedSummary(definition: ConnectorDefinition): string {
  return `Connector "${definition.name}" could not be restored and is no longer available: ${toolNamesText(definition)} are gone from your tool list.`;
}

/** The tool error for a call to a tool whose connector left the session. */
export function removedToolMessage(tool: string, connector: string): string {
  return `Tool "${tool}" is no longer available: the connector "${connector}" was removed from this session.`;
}

/** The anchor's lines for the registered connectors. */
export function connectorLines(connectors: readonly ConnectorDefinition[], isLoaded: (name: string) => boolean, loadTool: string): string[] {
  return connectors.map((connector) => `- ${connector.name}: ${connector.description} (${isLoaded(connector.name) ? "loaded" : `load with ${loadTool}`}; tools: ${toolNamesText(connector)})`);
}

function errorsFirst<P extends { severity: "error" | "warning" }>(problems: readonly P[]): P[] {
  return [...problems.filter((found) => found.severity === "error"), ...problems.filter((found) => found.severity !== "error")];
}

function quoted(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(", ");
}
