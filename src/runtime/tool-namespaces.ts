/**
 * The session's tool namespaces and connectors: which namespaces the session
 * can load (the compiled ones, then the connectors a host registered), which
 * are loaded, and the changes that load them or register and remove
 * connectors. Pi-free: the state owner keeps the loaded set and the
 * connectors durable; a ToolLoader (the adapter's) puts the tools in front of
 * the model.
 */
import type { ToolSchemaArtifact, VariantName } from "../protocol/dist-manifest.js";
import type { LoadedArtifacts } from "./artifacts.js";
import {
  checkConnector,
  checkConnectorExecutors,
  ConnectorRejectedError,
  ConnectorsNotAnnouncedError,
  droppedSummary,
  registeredSummary,
  removedSummary,
  runtimeToolOwners,
  UnknownConnectorError,
  type ConnectorChange,
  type ConnectorDefinition,
  type ConnectorProblem,
  type ConnectorRegistration,
} from "./connectors.js";
import type { LoadedNamespace, NamespaceLoadSource } from "./execution-state.js";
import type { RuntimeInjection } from "./injections/types.js";
import { LOAD_NAMESPACE_TOOL, loadedNamespacesText, NamespaceToolError, sessionCatalog, unknownNamespaceMessage, type SessionNamespace } from "./namespaces.js";
import type { SessionStateOwner } from "./state/owner.js";
import type { HostExecutors, ToolOutcome } from "./tools.js";
import type { ProtocolEvent } from "./yield.js";

/**
 * How the adapter puts a namespace's tools in front of the model (Pi's tool
 * list on an Agent or an AgentSession). The session decides what is loaded;
 * the loader only applies it.
 */
export interface ToolLoader {
  /** Why the namespace cannot load in this session (e.g. the host supplies no executors for it); undefined when it can. */
  refusal(namespace: SessionNamespace): string | undefined;
  load(namespace: SessionNamespace): void;
  /** Serves a connector's tools (not in the tool list until it loads). */
  serve(connector: ConnectorDefinition, executors: HostExecutors): void;
  /** Takes a connector's tools out of the tool list at once and stops serving them. */
  withdraw(connector: ConnectorDefinition): void;
  /** Whether a connector joins the tool list as it registers (the "start" policy, or no load_tool_namespace in the session). */
  readonly loadsConnectorsAtOnce: boolean;
}

/** What the namespaces need from the rest of the session. */
export interface NamespaceHost {
  readonly artifacts: LoadedArtifacts;
  readonly variant: VariantName;
  readonly owner: SessionStateOwner;
  emit(event: ProtocolEvent): void;
  /** Routes an announcement through the session's injections. */
  announce(update: RuntimeInjection): void;
  now(): number;
}

export class SessionToolNamespaces {
  /** Set by the adapter: applies namespace loads to Pi's tool list. */
  loader: ToolLoader | undefined;

  constructor(private readonly host: NamespaceHost) {}

  /** Every namespace this session can load: the compiled ones by name, then the registered connectors in registration order. */
  get catalog(): SessionNamespace[] {
    return [...sessionCatalog(this.host.artifacts.namespaces), ...this.connectors];
  }

  /** The namespaces loaded during the session, in load order (the variant's start namespaces are not listed). */
  get loaded(): readonly LoadedNamespace[] {
    return this.host.owner.state.loadedNamespaces ?? [];
  }

  /** The connectors registered on this session, in registration order. */
  get connectors(): readonly ConnectorDefinition[] {
    return this.host.owner.state.connectors ?? [];
  }

  /** Whether the namespace's tools are in the tool list: sent from the start, or loaded since. */
  isLoaded(name: string): boolean {
    return this.startNames().includes(name) || this.loaded.some((namespace) => namespace.name === name);
  }

  /**
   * The tools a session of this variant starts with: tools.json's, then the
   * tools of each namespace the variant sends from the start, in the
   * manifest's order (the order of the cache plan's blocks). A restored
   * session starts with what it had loaded, in load order, so its tool list
   * is the one its transcript declares.
   */
  startToolSchemas(): ToolSchemaArtifact[] {
    const catalog = this.catalog;
    const toolsOf = (name: string): readonly ToolSchemaArtifact[] => catalog.find((namespace) => namespace.name === name)?.tools ?? [];
    const names = [...this.startNames(), ...this.loaded.map((namespace) => namespace.name)];
    return [...this.host.artifacts.tools, ...names.flatMap(toolsOf)];
  }

  /** The tools a new session of this variant starts with: tools.json's, then the start namespaces'. */
  newSessionToolSchemas(): ToolSchemaArtifact[] {
    const catalog = this.catalog;
    return [...this.host.artifacts.tools, ...this.startNames().flatMap((name) => catalog.find((namespace) => namespace.name === name)?.tools ?? [])];
  }

  /** The host loads namespaces by name; idempotent. NamespaceToolError for a name the catalog does not hold or one that cannot load. */
  loadForHost(names: readonly string[]): SessionNamespace[] {
    const catalog = this.catalog;
    const wanted = names.map((name) => {
      const found = catalog.find((namespace) => namespace.name === name);
      if (found === undefined) throw new NamespaceToolError(unknownNamespaceMessage(name, catalog));
      return found;
    });
    return this.load(wanted, { loadedBy: "host" }, "");
  }

  /** `load_tool_namespace({ name })`: exact name from the catalog; a loaded one is confirmed, not loaded twice. */
  loadTool(params: Readonly<Record<string, unknown>>, toolCallId: string): ToolOutcome {
    const name = typeof params["name"] === "string" ? params["name"] : "";
    const catalog = this.catalog;
    const namespace = catalog.find((candidate) => candidate.name === name);
    if (namespace === undefined) throw new NamespaceToolError(unknownNamespaceMessage(name, catalog));
    if (this.isLoaded(name)) {
      return { content: [{ type: "text", text: `Tool namespace "${name}" is already in your tool list: ${namespace.tools.map((tool) => tool.name).join(", ")}.` }], details: { namespace: name, alreadyLoaded: true } };
    }
    const refusal = this.loader?.refusal(namespace);
    if (refusal !== undefined) throw new NamespaceToolError(`Tool namespace "${name}" cannot load in this session: ${refusal}.`);
    this.load([namespace], { loadedBy: "tool" }, toolCallId);
    return { content: [{ type: "text", text: loadedNamespacesText([namespace], "by name") }], details: { namespace: name, alreadyLoaded: false } };
  }

  /** The namespaces newly active workflow skills declare, loaded in declaration order; the text for the result that activated them. */
  loadForSkills(skillNames: readonly string[], toolCallId: string): string | undefined {
    const catalog = this.catalog;
    const lines: string[] = [];
    for (const skillName of skillNames) {
      const skill = this.host.artifacts.skills.get(skillName);
      if (skill?.type !== "workflow") continue;
      for (const name of skill.toolNamespaces) {
        const namespace = catalog.find((candidate) => candidate.name === name);
        if (namespace === undefined || this.isLoaded(name)) continue;
        const refusal = this.loader?.refusal(namespace);
        if (refusal !== undefined) {
          lines.push(`Tool namespace "${name}" that ${skillName} needs could not load: ${refusal}. Tell the user which step cannot run.`);
          continue;
        }
        this.load([namespace], { loadedBy: "skill", skill: skillName }, toolCallId);
        lines.push(loadedNamespacesText([namespace], `for ${skillName}`));
      }
    }
    return lines.length === 0 ? undefined : lines.join("\n");
  }

  /** The connector a tool belongs to, if any. */
  connectorOfTool(tool: string): ConnectorDefinition | undefined {
    return this.connectors.find((connector) => connector.tools.some((candidate) => candidate.name === tool));
  }

  /**
   * The boundary check of a connector against this session: the compiler's
   * tool and namespace rules, and the names the catalog and the tool list
   * hold (`except` leaves one registered connector out, for a restore).
   */
  checkConnector(value: unknown, except?: string): { definition?: ConnectorDefinition; problems: ConnectorProblem[] } {
    const namespaces = new Map<string, string>();
    const tools = new Map<string, string>([...runtimeToolOwners(), ...this.host.artifacts.tools.map((tool): [string, string] => [tool.name, "the stable tool set"])]);
    for (const namespace of this.catalog) {
      if (namespace.name === except) continue;
      const compiled = this.host.artifacts.namespaces.has(namespace.name);
      namespaces.set(namespace.name, compiled ? "a compiled namespace" : "a registered connector");
      for (const tool of namespace.tools) if (!tools.has(tool.name)) tools.set(tool.name, `${compiled ? "namespace" : "connector"} \`${namespace.name}\``);
    }
    return checkConnector(value, { namespaces, tools });
  }

  /** See SessionProtocolController.registerConnector. */
  register(registration: ConnectorRegistration): ConnectorChange {
    if (!this.announcesConnectors()) throw new ConnectorsNotAnnouncedError();
    // A registration that is not an object is refused by the boundary check like any other bad one.
    const record = typeof registration === "object" && registration !== null && !Array.isArray(registration) ? registration : undefined;
    const { executors, ...data }: Partial<ConnectorRegistration> = record ?? {};
    const { definition, problems } = this.checkConnector(record === undefined ? registration : data);
    if (definition === undefined) throw new ConnectorRejectedError(typeof data.name === "string" ? data.name : "", problems);
    checkConnectorExecutors(definition, executors);
    this.host.owner.change({ op: "connectorAdded", connector: definition });
    this.loader?.serve(definition, executors);
    const loads = this.loader?.loadsConnectorsAtOnce ?? false;
    if (loads) this.load([definition], { loadedBy: "host" }, "");
    this.host.emit({ type: "connector_registered", connector: definition.name, loaded: loads });
    const injectionId = this.announce(definition, "connector_registered", registeredSummary(definition, loads, LOAD_NAMESPACE_TOOL));
    return { connector: definition.name, loaded: loads, warnings: problems, injectionId };
  }

  /** See SessionProtocolController.removeConnector. */
  remove(name: string): ConnectorChange {
    const definition = this.connectors.find((connector) => connector.name === name);
    if (definition === undefined) throw new UnknownConnectorError(name, this.connectors.map((connector) => connector.name));
    this.host.owner.change({ op: "connectorRemoved", name });
    this.loader?.withdraw(definition);
    this.host.emit({ type: "connector_removed", connector: name });
    const injectionId = this.announce(definition, "connector_removed", removedSummary(definition));
    return { connector: name, loaded: false, warnings: [], injectionId };
  }

  /** A stored connector a restart cannot bring back leaves the session, and the model is told. */
  drop(name: string): void {
    const definition = this.connectors.find((connector) => connector.name === name);
    if (definition === undefined) return;
    this.host.owner.change({ op: "connectorRemoved", name });
    this.host.emit({ type: "connector_removed", connector: name });
    if (this.announcesConnectors()) this.announce(definition, "connector_unavailable", droppedSummary(definition));
  }

  private load(namespaces: readonly SessionNamespace[], how: { loadedBy: NamespaceLoadSource; skill?: string }, toolCallId: string): SessionNamespace[] {
    const fresh = namespaces.filter((namespace, index) => !this.isLoaded(namespace.name) && namespaces.indexOf(namespace) === index);
    if (fresh.length === 0) return [];
    for (const namespace of fresh) {
      const refusal = this.loader?.refusal(namespace);
      if (refusal !== undefined) throw new NamespaceToolError(`Tool namespace "${namespace.name}" cannot load in this session: ${refusal}.`);
    }
    // Durable first: a refused write loads nothing.
    this.host.owner.change({ op: "namespaces", add: fresh.map((namespace) => ({ name: namespace.name, ...how })) });
    for (const namespace of fresh) this.loader?.load(namespace);
    this.host.emit({ type: "namespaces_loaded", names: fresh.map((namespace) => namespace.name), loadedBy: how.loadedBy, toolCallId });
    return fresh;
  }

  private startNames(): readonly string[] {
    return this.host.artifacts.manifest.variants[this.host.variant]?.namespaces ?? [];
  }

  private announcesConnectors(): boolean {
    return this.host.artifacts.injectionKinds.some((kind) => kind.kind === "workspace_update");
  }

  /** "Available resources changed": a workspace_update through the session's injections, whose subject is the connector. */
  private announce(connector: ConnectorDefinition, change: string, summary: string): string {
    const id = `connector.${connector.name}.${this.host.owner.revision}`;
    const delivery = this.host.artifacts.injectionKinds.find((kind) => kind.kind === "workspace_update")?.delivery ?? "steer";
    this.host.announce({
      id,
      kind: "workspace_update",
      occurredAt: new Date(this.host.now()).toISOString(),
      source: "workspace",
      delivery,
      requiresDecision: false,
      summary,
      subject: { ref: `connector:${connector.name}` },
      details: { change },
    });
    return id;
  }
}
