/**
 * The one module that talks to Pi (`@earendil-works/pi-*` 1.x). Everything
 * else in the runtime is Pi-free; this file turns the controller and tool set
 * into a pi-agent-core `Agent` (the low-level path) or a pi-coding-agent
 * `AgentSession`.
 *
 * Pi 1.x carries the system prompt and the tool declarations in the
 * transcript: a leading `role: "system"` message, and later system messages
 * that add instructions, patch named sections or change tools. The runtime
 * pins the leading one to the variant's bytes on every model call (see
 * {@link pinVariantTranscript}) and keeps every later one in place.
 *
 * pi-coding-agent takes close to a second to import, so it is loaded only
 * when a session is created; pi-ai's compatibility entry (its model catalog,
 * environment keys and global stream function) only when a call needs it.
 */
import type { Agent, AgentMessage, AgentTool, AgentToolResult, FinishTurn, StreamFn, ThinkingLevel } from "@earendil-works/pi-agent-core";
import type { Api, AssistantMessage, Message, Model, SystemMessage, Tool, TranscriptContext } from "@earendil-works/pi-ai";
import type { AgentSession, ExtensionAPI, ModelRuntime, SessionManager, SettingsManager } from "@earendil-works/pi-coding-agent";
import type { VariantName } from "../protocol/dist-manifest.js";
import type { LoadedArtifacts } from "./artifacts.js";
import { SessionProtocolController, type ControllerOptions, type ToolLoader } from "./controller.js";
import { LOAD_NAMESPACE_TOOL, NamespaceToolError, type SessionNamespace } from "./namespaces.js";
import { checkConnectorExecutors, ConnectorRejectedError, removedToolMessage, type ConnectorDefinition, type ConnectorRestore, type DroppedConnector } from "./connectors.js";
import type { InjectionTransport } from "./injections/dispatcher.js";
import { prepareMessagesForModel } from "./injections/transport.js";
import { ANCHOR_CUSTOM_TYPE, HOST_SKILL_CUSTOM_TYPE, dropStaleAnchors, isGammaCustomMessage, type GammaCustomMessage } from "./messages.js";
import { systemBlocks } from "./cache-plan.js";
import { checkPromptCacheOptions, promptCacheKeys, shapeProviderPayload, type CacheWarming, type PromptCacheOptions } from "./prompt-cache.js";
import { SESSION_ENTRY_TYPE } from "./audit/readers.js";
import { assembleTools, type HostExecutors, type RuntimeTool, type ToolExecutor, type ToolOutcome } from "./tools.js";
import type { ToolCallSummary } from "./yield.js";
import { requirePiPackages } from "../protocol/pi-requirement.js";

// Pi is an optional peer. A static import of a missing package fails while
// Node links the module graph, before any code runs, with a resolution error
// that names neither the peers nor their version; so the packages are
// checked first and loaded here, and importing the runtime without them
// throws one PiNotInstalledError (code GAMMA_PROMPT_PI_NOT_INSTALLED).
requirePiPackages((specifier) => import.meta.resolve(specifier));
const { Agent: PiAgent } = await import("@earendil-works/pi-agent-core");
const { createInitialSystemMessage, getCurrentSystemPrompt, getCurrentTools, getInitialSystemMessage, toToolDeclaration } = await import("@earendil-works/pi-ai");

export type { AgentMessage, Agent };

/**
 * A model call's stream function (pi-agent-core's `StreamFn`): called with
 * the model, the call's transcript and its options; Pi's own
 * `Models.streamSimple` is one.
 */
export type GammaStreamFn = StreamFn;

/** Either an existing controller, or what it takes to create one. */
export type ControllerSource =
  | { controller: SessionProtocolController }
  | ({ artifacts: LoadedArtifacts; variant: VariantName } & Pick<ControllerOptions, "store" | "onProtocolEvent" | "audit" | "sessionLog" | "knowledge" | "invocation">);

/**
 * When a session's tool namespaces join its tool list: `"late"` (the default)
 * when a workflow that needs one becomes active or the model loads one by
 * name; `"start"` every namespace the host serves from the first call. A
 * function decides per model, e.g. from {@link toolAdditionsInPlace}.
 */
export type ToolLoadingPolicy = "late" | "start" | ((model: Model<Api>) => "late" | "start");

export type GammaAgentOptions = ControllerSource & {
  model: Model<Api>;
  executors: HostExecutors;
  /** When namespaces load (default "late"). */
  toolLoading?: ToolLoadingPolicy;
  /** The executors of each connector the store holds (a restart); undefined for one that is gone. */
  restoreConnector?: ConnectorRestorer;
  /** A transcript to continue (e.g. the host's stored messages). */
  messages?: AgentMessage[];
  /** Default on both paths: {@link defaultThinkingLevel}. */
  thinkingLevel?: ThinkingLevel;
  /** How requests carry the compiled cache plan (breakpoints, lifetimes, OpenAI cache key). */
  promptCache?: PromptCacheOptions;
  getApiKey?: (provider: string) => Promise<string | undefined> | string | undefined;
  /** Default: pi-ai's global `streamSimple` (its built-in providers, keys from `getApiKey` or the environment). */
  streamFn?: GammaStreamFn;
  sessionId?: string;
};

export interface GammaAgent {
  agent: Agent;
  controller: SessionProtocolController;
  /** The connectors the store held: restored, or dropped and why. */
  connectors: ConnectorRestore;
  /** Detaches the runtime's listener from the agent. */
  dispose(): void;
}

/**
 * A pi-agent-core Agent whose system prompt is exactly the variant's bytes and
 * whose tools are tools.json in its order, then the namespaces the variant
 * sends from the start. A missing host executor throws here.
 */
export function createGammaAgent(options: GammaAgentOptions): GammaAgent {
  const controller = resolveController(options);
  const tools = sessionTools(controller, options);
  const systemPrompt = controller.systemPrompt;
  const agent = new PiAgent({
    // Pi seeds the leading system message (the variant and tools.json's tools) unless `messages` starts with one.
    initialState: {
      systemPrompt,
      model: options.model,
      tools: tools.start.map(toAgentTool),
      ...(options.messages === undefined ? {} : { messages: options.messages }),
      thinkingLevel: options.thinkingLevel ?? defaultThinkingLevel(options.model),
    },
    // Called once per model call, on the whole transcript: what the call carries is no longer pending.
    convertToLlm: (messages) => {
      controller.injections.confirmModelContext(messages);
      return pinVariantTranscript(convertGammaMessages(messages), systemPrompt);
    },
    // The design: steering enters before the next model call, all of it (one
    // call for every event due at a batch end, not one call per event).
    steeringMode: "all",
    followUpMode: "all",
    ...(options.getApiKey === undefined ? {} : { getApiKey: options.getApiKey }),
    streamFn: options.streamFn ?? globalStreamFn,
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
  });
  applyCachePlan(agent, controller, options.promptCache ?? {});
  const unsubscribe = bindController(agent, controller);
  controller.transport = agentTransport(agent);
  tools.attach({
    add: (added) => {
      agent.state.tools = [...agent.state.tools, ...added.map(toAgentTool)];
    },
    declare: () => {},
    remove: (names) => {
      agent.state.tools = agent.state.tools.filter((tool) => !names.includes(tool.name));
    },
  });
  // A run works on a snapshot of the tools: a namespace loaded by a tool call reaches the run's next model call
  // through the next turn's context, where Pi declares the difference as a system message (`toolsAdded`).
  const previousPrepare = agent.prepareNextTurnWithContext;
  agent.prepareNextTurnWithContext = async (turn, signal) => {
    const earlier = previousPrepare === undefined ? undefined : await previousPrepare(turn, signal);
    const context = earlier?.context ?? turn.context;
    return { ...earlier, context: { ...context, tools: agent.state.tools.slice() } };
  };
  return {
    agent,
    controller,
    connectors: tools.connectors,
    dispose: () => {
      unsubscribe();
      controller.close();
    },
  };
}

/**
 * The thinking level both paths use unless the host sets one: "medium" (Pi's
 * coding-agent default) on a model that reasons, "off" on one that does not.
 * Without it the low-level Agent would send thinking disabled and
 * AgentSession enabled, and the two would never share a cache entry.
 */
export function defaultThinkingLevel(model: Model<Api>): ThinkingLevel {
  return model.reasoning ? "medium" : "off";
}

/**
 * pi-ai's global stream function, loaded on the first call: pi-ai 1.x keeps
 * its catalog-wide `streamSimple` (environment keys included) in its
 * compatibility entry, which an agent with its own `streamFn` never loads.
 */
const globalStreamFn: StreamFn = async (model, context, options) => {
  const { streamSimple } = await import("@earendil-works/pi-ai/compat");
  return streamSimple(model, context, options);
};

/**
 * The low-level converter: system messages (the prompt and tool changes),
 * user, assistant and tool results pass; a custom message becomes a user
 * message (Pi's default would drop it); only the newest state anchor is
 * kept; anything else is not for the model.
 */
export function convertGammaMessages(messages: AgentMessage[]): Message[] {
  return dropStaleAnchors(neutraliseUntrusted(messages)).flatMap((message): Message[] => {
    switch (message.role) {
      case "system":
      case "user":
      case "assistant":
      case "toolResult":
        return [message];
      case "custom":
        return [
          {
            role: "user",
            content: typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content,
            timestamp: message.timestamp,
          },
        ];
      default:
        return [];
    }
  });
}

/**
 * The transcript a model call sends, with the variant's exact bytes as its
 * prompt: the leading system message becomes `{ content: systemPrompt }` with
 * the tools it declares (Pi's named sections, such as pi-coding-agent's
 * working directory, are what the variant replaces); every later system
 * message stays where it is, tool changes and added instructions included,
 * minus section patches to the prompt it replaced (one left empty goes).
 * Deterministic: the same transcript gives the same request, which
 * Anthropic's message threads and every prefix cache need.
 */
export function pinVariantTranscript<M extends { role: string }>(messages: readonly M[], systemPrompt: string): (M | SystemMessage)[] {
  const head = getInitialSystemMessage(messages);
  const pinned: SystemMessage = {
    role: "system",
    content: systemPrompt,
    ...(head?.toolsAdded !== undefined && head.toolsAdded.length > 0 ? { toolsAdded: head.toolsAdded } : {}),
    timestamp: head?.timestamp ?? 0,
  };
  const rest = (head === undefined ? messages : messages.slice(1)).flatMap((message): (M | SystemMessage)[] => {
    if (message.role !== "system") return [message];
    const { sections: _replaced, ...update } = message as unknown as SystemMessage;
    const hasContent = typeof update.content === "string" ? update.content !== "" : update.content.length > 0;
    return hasContent || (update.toolsAdded?.length ?? 0) > 0 || (update.toolsRemoved?.length ?? 0) > 0 ? [update] : [];
  });
  return [pinned, ...rest];
}

/**
 * After a server-side compaction or a reload on the low-level path: the
 * agent's context becomes `messages` (default: its current transcript) minus
 * older anchors, plus one fresh anchor. A transcript without its leading
 * system message (a host's stored conversation) gets the agent's, so the
 * prompt and tools stay declared at the head. The agent must be idle.
 */
export function restoreAgentContext(agent: Agent, controller: SessionProtocolController, messages?: AgentMessage[]): void {
  if (agent.state.isStreaming) throw new Error("Unexpected restore during a run, expected an idle agent");
  const restored = controller.restoreContext(messages ?? agent.state.messages);
  const head =
    getInitialSystemMessage(agent.state.messages) ?? createInitialSystemMessage(controller.systemPrompt, agent.state.tools.map((tool) => toToolDeclaration(tool)));
  agent.state.messages = restored[0]?.role === "system" || head === undefined ? restored : [head, ...restored];
}

// ---- delivery: the functions the injections module uses -----------------------------------

/** Queue a trusted custom message to enter before the agent's next model call. */
export function steerAgent(agent: Agent, message: GammaCustomMessage): void {
  agent.steer(message);
}

/** Queue a trusted custom message for when the agent's run would otherwise stop. */
export function followUpAgent(agent: Agent, message: GammaCustomMessage): void {
  agent.followUp(message);
}

export type SessionDelivery = "steer" | "followUp" | "nextTurn";

/**
 * AgentSession.sendCustomMessage. A pending injection sent as `nextTurn` is
 * marked queued so the session's own next-turn delivery does not send it
 * again. (The prompt needs no pinning here: every model call of the session
 * goes through the extension's `context_with_system` hook.)
 */
export async function sendSessionMessage(
  session: AgentSession,
  controller: SessionProtocolController,
  message: GammaCustomMessage,
  options: { deliverAs?: SessionDelivery; triggerTurn?: boolean } = {},
): Promise<void> {
  const injectionId = message.details.injectionId;
  if (options.deliverAs === "nextTurn" && injectionId !== undefined) controller.injections.markQueued([injectionId], "next_turn");
  await session.sendCustomMessage(customPayload(message), {
    ...(options.deliverAs === undefined ? {} : { deliverAs: options.deliverAs }),
    ...(options.triggerTurn === undefined ? {} : { triggerTurn: options.triggerTurn }),
  });
}

// ---- pi-coding-agent -------------------------------------------------------------------------

export type GammaSessionOptions = ControllerSource & {
  model: Model<Api>;
  executors: HostExecutors;
  /** When namespaces load (default "late"). */
  toolLoading?: ToolLoadingPolicy;
  /** The executors of each connector the store holds (a restart); undefined for one that is gone. */
  restoreConnector?: ConnectorRestorer;
  cwd: string;
  sessionManager: SessionManager;
  /** Pi's agent folder for its settings and packages; a folder without them is fine. */
  agentDir: string;
  settingsManager?: SettingsManager;
  /** Pi's models and credentials; default: the one Pi creates from `agentDir`. */
  modelRuntime?: ModelRuntime;
  /** Default on both paths: {@link defaultThinkingLevel}. */
  thinkingLevel?: ThinkingLevel;
  /** How requests carry the compiled cache plan (breakpoints, lifetimes, OpenAI cache key). */
  promptCache?: PromptCacheOptions;
};

export interface GammaSession {
  session: AgentSession;
  controller: SessionProtocolController;
  /** The connectors the store held: restored, or dropped and why. */
  connectors: ConnectorRestore;
  dispose(): void;
}

/**
 * An AgentSession on the exact variant prompt: the Gamma extension registers
 * the tools, replaces Pi's assembled prompt on every request (no second
 * skills block, no working directory), keeps one anchor in context and
 * re-anchors after compaction. A resumed session gets a fresh anchor at once.
 */
export async function createGammaSession(options: GammaSessionOptions): Promise<GammaSession> {
  const pi = await import("@earendil-works/pi-coding-agent");
  const controller = resolveController(options);
  const tools = sessionTools(controller, options);
  const settingsManager = options.settingsManager ?? pi.SettingsManager.inMemory();
  let extension: ExtensionAPI | undefined;
  const inner = new pi.DefaultResourceLoader({
    cwd: options.cwd,
    agentDir: options.agentDir,
    settingsManager,
    extensionFactories: [
      (api) => {
        extension = api;
        gammaExtension(api, controller, tools, options.promptCache?.cacheWarming ?? "off");
      },
    ],
    noExtensions: true,
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
    systemPrompt: controller.systemPrompt,
    appendSystemPrompt: [],
  });
  await inner.reload();
  const resourceLoader: import("@earendil-works/pi-coding-agent").ResourceLoader = {
    getExtensions: () => inner.getExtensions(),
    getSkills: () => ({ skills: [], diagnostics: [] }),
    getPrompts: () => ({ prompts: [], diagnostics: [] }),
    getThemes: () => ({ themes: [], diagnostics: [] }),
    getAgentsFiles: () => ({ agentsFiles: [] }),
    getSystemPrompt: () => controller.systemPrompt,
    getSystemPromptSource: () => undefined,
    getAppendSystemPrompt: () => [],
    getAppendSystemPromptSources: () => [],
    extendResources: () => {},
    reload: (reloadOptions) => inner.reload(reloadOptions),
  };
  const { session } = await pi.createAgentSession({
    cwd: options.cwd,
    agentDir: options.agentDir,
    model: options.model,
    resourceLoader,
    sessionManager: options.sessionManager,
    settingsManager,
    // No allowlist: the Gamma extension registers every tool, the loadable ones inactive, and activates them as they load.
    noTools: "builtin",
    ...(options.modelRuntime === undefined ? {} : { modelRuntime: options.modelRuntime }),
    thinkingLevel: options.thinkingLevel ?? defaultThinkingLevel(options.model),
  });
  const agent = session.agent;
  // As on the low-level path; set on the agent, not through setSteeringMode, which would change the user's Pi settings.
  agent.steeringMode = "all";
  agent.followUpMode = "all";
  applyCachePlan(agent, controller, options.promptCache ?? {});
  const unsubscribe = bindController(agent, controller);
  controller.transport = sessionTransport(session, controller);
  // Every loadable tool is registered, inactive, by the extension: a load activates it.
  tools.attach({
    add: (added) => session.setActiveToolsByName([...session.getActiveToolNames(), ...added.map((tool) => tool.name)]),
    // A connector's tools register inactive, like the loadable ones the extension registered at start.
    declare: (declared) => {
      for (const tool of declared) extension?.registerTool(piToolDefinition(tool, false));
    },
    remove: (names) => session.setActiveToolsByName(session.getActiveToolNames().filter((name) => !names.includes(name))),
  });
  if (!options.sessionManager.getEntries().some((entry) => entry.type === "custom" && entry.customType === SESSION_ENTRY_TYPE)) {
    // Pi's session file keeps Pi's prompt sections, not the variant's bytes: record the variant so `gamma-prompt audit` knows the preloaded skills.
    options.sessionManager.appendCustomEntry(SESSION_ENTRY_TYPE, { variant: controller.variant });
  }
  if (agent.state.messages.length > 0) {
    // Resumed from disk: the stored anchor may be stale; state comes from the controller.
    await sendSessionMessage(session, controller, controller.anchorMessage());
  }
  return {
    session,
    controller,
    connectors: tools.connectors,
    dispose: () => {
      unsubscribe();
      session.dispose();
      controller.close();
    },
  };
}

/**
 * Every model call, on both paths, carries the compiled cache plan. The plan
 * is applied through the agent's `onPayload` (pi-ai's hook on the final
 * provider payload), after any hook already there (an extension's
 * before_provider_request), so the cache layout is what reaches the wire. Pi
 * passes the same options to its cache-warming requests, which are shaped
 * alike.
 */
function applyCachePlan(agent: Agent, controller: SessionProtocolController, cache: PromptCacheOptions): void {
  checkPromptCacheOptions(cache);
  const systemPrompt = controller.systemPrompt;
  const blocks = systemBlocks(controller.artifacts.cachePlan, controller.variant, systemPrompt);
  const promptCacheKey = (cache.promptCacheKey ?? promptCacheKeys.perSession)({
    variant: controller.variant,
    sessionKey: controller.sessionKey,
    prefixCacheKey: controller.artifacts.manifest.staticPrefix.cacheKey,
  });
  const previous = agent.onPayload;
  agent.onPayload = async (payload, payloadModel) => {
    const earlier = await previous?.(payload, payloadModel);
    const explicitPromptCacheMode = (payloadModel.compat as { supportsExplicitPromptCacheMode?: boolean } | undefined)?.supportsExplicitPromptCacheMode === true;
    return shapeProviderPayload(earlier ?? payload, { api: payloadModel.api, modelId: payloadModel.id, explicitPromptCacheMode, systemPrompt, blocks, promptCacheKey, options: cache });
  };
}

function gammaExtension(api: ExtensionAPI, controller: SessionProtocolController, tools: SessionTools, cacheWarming: CacheWarming): void {
  // The start tools in the cache plan's order, active; the tools of namespaces that may load later, inactive.
  for (const tool of tools.start) api.registerTool(piToolDefinition(tool, true));
  for (const tool of tools.loadable()) api.registerTool(piToolDefinition(tool, false));
  // Next-turn delivery. `input` is the last hook before prompt() drains Pi's
  // next-turn list right after the user's message (before_agent_start comes
  // after the drain and adds at most one message). The injections stay pending
  // until a model call uses them; a prompt that is only queued into a running
  // agent leaves them for the next one.
  api.on("input", (event, context) => {
    if (!context.isIdle()) return;
    // Knowledge hints for this turn go first, right after the user's message.
    const hints = controller.knowledge.hintsForTurn(event.text);
    if (hints !== undefined) api.sendMessage(customPayload(hints), { deliverAs: "nextTurn" });
    for (const injection of controller.injections.queueForNextTurn()) api.sendMessage(customPayload(injection.message), { deliverAs: "nextTurn" });
  });
  // Runs once per model call (triggered turns, retries, continue() and the requests after a compaction or
  // reload included), on the whole transcript the call is about to use. Pi's `context` hook sees no system
  // messages and a changed list from it collapses them into one head; this one owns them, so the variant
  // replaces the head's prompt and every later system message (a tool change) stays in place.
  // No before_agent_start { systemPrompt }: a forced prompt would collapse them too.
  api.on("context_with_system", (event) => {
    controller.injections.confirmModelContext(event.messages);
    return { messages: pinVariantTranscript(dropStaleAnchors(neutraliseUntrusted(event.messages)), controller.systemPrompt) as AgentMessage[] };
  });
  api.on("session_compact", () => api.sendMessage(customPayload(controller.anchorMessage())));
  // Pi's cache warming sends paid refresh requests after a run; the host opts in (PromptCacheOptions.cacheWarming).
  if (cacheWarming === "off") api.on("cache_warming_decision", () => ({ action: "stop" }));
}

/** The fields Pi's sendCustomMessage/sendMessage take; Pi stamps its own timestamp. */
function customPayload(message: GammaCustomMessage): Pick<GammaCustomMessage, "customType" | "content" | "display" | "details"> {
  return { customType: message.customType, content: message.content, display: message.display, details: message.details };
}

// ---- tool namespaces ------------------------------------------------------------------------

/** How the model takes a tool added mid-session, from pi-ai's model data. */
export function toolAdditionsInPlace(model: Model<Api>): boolean {
  const compat = (model.compat ?? {}) as { supportsMidConvoSystemMessages?: boolean; supportsMidConvoToolChanges?: boolean; supportsAdditionalTools?: boolean };
  if (compat.supportsMidConvoSystemMessages !== true) return false;
  switch (model.api) {
    case "anthropic-messages":
      return compat.supportsMidConvoToolChanges === true;
    case "openai-responses":
    case "azure-openai-responses":
    case "openai-codex-responses":
      return compat.supportsAdditionalTools === true;
    default:
      return false;
  }
}

/** Pi's side of a namespace load or a connector's removal: the Agent's or the session's tool list. */
interface PiToolList {
  add(tools: readonly RuntimeTool[]): void;
  /** Tools a connector brings, not in the list yet (an AgentSession registers them inactive). */
  declare(tools: readonly RuntimeTool[]): void;
  remove(names: readonly string[]): void;
}

/** Every tool a session can give Pi: the start tools, and the tools of each namespace it may load, by namespace. */
interface SessionTools {
  start: readonly RuntimeTool[];
  /** The tools of namespaces not loaded yet that the host serves. */
  loadable(): RuntimeTool[];
  attach(list: PiToolList): void;
  /** What became of the connectors the store held. */
  connectors: ConnectorRestore;
}

/** How the host brings a stored connector back after a restart: its executors, or undefined when it is gone. */
export type ConnectorRestorer = (connector: ConnectorDefinition) => HostExecutors | undefined;

/**
 * The tools of a session and the controller's loader. A namespace loads when
 * the host supplied an executor for each of its tools. Connectors the store
 * holds are checked again and served with the executors `restoreConnector`
 * gives; one that fails either leaves the session and is reported. With the
 * "start" policy for this model, every namespace the host serves is loaded
 * before the first call.
 */
function sessionTools(
  controller: SessionProtocolController,
  options: { model: Model<Api>; executors: HostExecutors; toolLoading?: ToolLoadingPolicy; restoreConnector?: ConnectorRestorer },
): SessionTools {
  const guard = (tool: string, params: Readonly<Record<string, unknown>>, toolCallId: string) => controller.checkToolCall(tool, params, toolCallId);
  const compiled = controller.namespaceCatalog.filter((namespace) => controller.artifacts.namespaces.has(namespace.name));
  const built = assembleTools({
    schemas: controller.startToolSchemas().filter((schema) => controller.connectorOfTool(schema.name) === undefined),
    runtime: controller.runtimeExecutors(),
    executors: options.executors,
    guard,
    loadable: compiled.map((namespace) => ({ namespace: namespace.name, tools: namespace.tools })),
  });
  const served = new Map<string, RuntimeTool>();
  for (const tool of built) served.set(tool.name, tool);
  let list: PiToolList | undefined;
  const policy = typeof options.toolLoading === "function" ? options.toolLoading(options.model) : (options.toolLoading ?? "late");
  const loader: ToolLoader = {
    refusal: (namespace: SessionNamespace) => {
      const missing = namespace.tools.filter((tool) => !served.has(tool.name)).map((tool) => tool.name);
      return missing.length === 0 ? undefined : `the host supplies no executor for ${missing.join(", ")}`;
    },
    load: (namespace) => list?.add(namespace.tools.flatMap((tool) => served.get(tool.name) ?? [])),
    serve: (connector, executors) => {
      const tools = connector.tools.map((schema) => {
        const run = executors[schema.name] as ToolExecutor;
        const tool: RuntimeTool = {
          ...schema,
          // A batch runs on the tools it started with: a tool removed since is refused here, not run.
          execute: async (toolCallId, params, signal) => {
            if (served.get(schema.name) !== tool) throw new NamespaceToolError(removedToolMessage(schema.name, connector.name));
            guard(schema.name, params, toolCallId);
            return run(toolCallId, params, signal);
          },
        };
        return tool;
      });
      for (const tool of tools) served.set(tool.name, tool);
      list?.declare(tools);
    },
    withdraw: (connector) => {
      const names = connector.tools.map((tool) => tool.name);
      for (const name of names) served.delete(name);
      list?.remove(names);
    },
    loadsConnectorsAtOnce: policy === "start" || !controller.artifacts.tools.some((tool) => tool.name === LOAD_NAMESPACE_TOOL),
  };
  controller.toolLoader = loader;
  const connectors = restoreConnectors(controller, loader, options.restoreConnector);
  if (policy === "start") {
    const servedNamespaces = controller.namespaceCatalog.filter((namespace) => loader.refusal(namespace) === undefined).map((namespace) => namespace.name);
    controller.loadNamespacesForHost(servedNamespaces);
  }
  const startNames = new Set(controller.startToolSchemas().map((tool) => tool.name));
  return {
    start: controller.startToolSchemas().flatMap((schema) => served.get(schema.name) ?? []),
    loadable: () => [...served.values()].filter((tool) => !startNames.has(tool.name)),
    attach: (piList) => {
      list = piList;
    },
    connectors,
  };
}

/** Each stored connector checked again at the boundary and given the host's executors; the others leave the session. */
function restoreConnectors(controller: SessionProtocolController, loader: ToolLoader, restore: ConnectorRestorer | undefined): ConnectorRestore {
  const report: ConnectorRestore = { restored: [], dropped: [] };
  for (const connector of [...controller.connectors]) {
    const errors = controller.checkConnector(connector, connector.name).problems.filter((found) => found.severity === "error");
    let dropped: DroppedConnector | undefined;
    if (errors.length > 0) dropped = { connector: connector.name, reason: "refused", message: new ConnectorRejectedError(connector.name, errors).message, problems: errors };
    else {
      const executors = restore?.(connector);
      try {
        if (executors === undefined) throw new Error(`the host supplies no executors for it any more`);
        checkConnectorExecutors(connector, executors);
        loader.serve(connector, executors);
      } catch (error) {
        dropped = { connector: connector.name, reason: "gone", message: `Connector ${JSON.stringify(connector.name)} not restored: ${error instanceof Error ? error.message : String(error)}`, problems: [] };
      }
    }
    if (dropped === undefined) report.restored.push(connector.name);
    else {
      report.dropped.push(dropped);
      controller.dropConnector(connector.name);
    }
  }
  return report;
}

function piToolDefinition(tool: RuntimeTool, active: boolean): Parameters<ExtensionAPI["registerTool"]>[0] {
  return {
    name: tool.name,
    label: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    ...(active ? {} : { defaultActive: false }),
    execute: async (toolCallId, params, signal) => toAgentResult(await tool.execute(toolCallId, params as Record<string, unknown>, signal)),
  };
}

// ---- shared wiring -------------------------------------------------------------------------

const RUNTIME_CUSTOM_TYPES: ReadonlySet<string> = new Set([ANCHOR_CUSTOM_TYPE, HOST_SKILL_CUSTOM_TYPE]);
/** The `skill` tool returns compiled, verified skill bodies; every other tool result is host output. */
const TRUSTED_TOOL_NAMES: ReadonlySet<string> = new Set(["skill"]);

/**
 * Reserved tags in any untrusted channel (user text, host tool results,
 * summaries, custom messages the runtime did not write) cannot pose as the platform's.
 */
function neutraliseUntrusted(messages: AgentMessage[]): AgentMessage[] {
  return prepareMessagesForModel(messages, { trustedCustomTypes: RUNTIME_CUSTOM_TYPES, trustedToolNames: TRUSTED_TOOL_NAMES });
}

/**
 * The tool call ids whose results are in the agent's context. Pi appends to
 * one messages array, so only new messages are read; a replaced array (a
 * restored or compacted context) is read again from the start.
 */
function toolCallIdsProbe(agent: Agent): () => ReadonlySet<string> {
  let seenArray: readonly AgentMessage[] | undefined;
  let read = 0;
  let ids = new Set<string>();
  return () => {
    const messages = agent.state.messages;
    if (messages !== seenArray || messages.length < read) {
      seenArray = messages;
      read = 0;
      ids = new Set();
    }
    for (; read < messages.length; read++) {
      const message = messages[read];
      if (message?.role === "toolResult") ids.add(message.toolCallId);
    }
    return ids;
  };
}

function resolveController(source: ControllerSource): SessionProtocolController {
  if ("controller" in source) return source.controller;
  return new SessionProtocolController({
    artifacts: source.artifacts,
    variant: source.variant,
    ...(source.store === undefined ? {} : { store: source.store }),
    ...(source.onProtocolEvent === undefined ? {} : { onProtocolEvent: source.onProtocolEvent }),
    ...(source.audit === undefined ? {} : { audit: source.audit }),
    ...(source.sessionLog === undefined ? {} : { sessionLog: source.sessionLog }),
    ...(source.knowledge === undefined ? {} : { knowledge: source.knowledge }),
    ...(source.invocation === undefined ? {} : { invocation: source.invocation }),
  });
}

/**
 * Run tracking, delivery bookkeeping and the yield contract. Pi ends a run on
 * `terminate` only when every result of the batch sets it, and queued steering
 * still triggers another model call; so a yielding batch terminates as a whole
 * and the agent's `finishTurn` answers `{ action: "end" }`, which ends the run
 * before any queue is polled (it runs before `turn_end`). On a session it
 * wraps the session's own `finishTurn`.
 */
function bindController(agent: Agent, controller: SessionProtocolController): () => void {
  const previousAfter = agent.afterToolCall;
  agent.afterToolCall = async (context, signal) => {
    const result = previousAfter === undefined ? undefined : await previousAfter(context, signal);
    if (!controller.terminateForBatch(toolCallsOf(context.assistantMessage))) return result;
    return { ...result, terminate: true };
  };
  const previousFinish = agent.finishTurn;
  const finishTurn: FinishTurn = async (turn, signal) => (controller.shouldStopAfterTurn() ? { action: "end" } : ((await previousFinish?.(turn, signal)) ?? undefined));
  agent.finishTurn = finishTurn;
  controller.injections.contextProbe = toolCallIdsProbe(agent);
  return agent.subscribe((event) => {
    // Listeners are awaited before Pi polls its steering queue: due injections enter after the whole batch.
    if (event.type === "turn_end") {
      controller.injections.atBatchEnd();
      // New active skills or artifacts, or a changed note: hints steer in before the next model call.
      const hints = controller.shouldStopAfterTurn() ? undefined : controller.knowledge.atBatchEnd();
      if (hints !== undefined) controller.transport?.steer(hints);
    }
    if (event.type === "agent_end") controller.injections.afterRun();
    if (event.type === "agent_start") controller.run.begin();
    else if (event.type === "agent_end") controller.run.end();
    else if (event.type === "message_end") {
      const message = event.message;
      if (message.role === "custom" || message.role === "toolResult") controller.noteContextText(contentText(message.content));
      if (message.role === "assistant") controller.noteToolBatch(toolCallsOf(message));
      else if (isGammaCustomMessage(message) && message.details.injectionId !== undefined) {
        controller.injections.markInContext(message.details.injectionId);
      }
    }
  });
}

function contentText(content: string | ReadonlyArray<{ type: string; text?: string }>): string {
  return typeof content === "string" ? content : content.map((part) => (part.type === "text" ? (part.text ?? "") : "")).join("\n");
}

function toolCallsOf(message: AgentMessage): ToolCallSummary[] {
  if (message.role !== "assistant") return [];
  return message.content.flatMap((part) => (part.type === "toolCall" ? [{ id: part.id, name: part.name, arguments: part.arguments }] : []));
}

function toAgentTool(tool: RuntimeTool): AgentTool {
  return {
    name: tool.name,
    label: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    execute: async (toolCallId, params, signal) => toAgentResult(await tool.execute(toolCallId, params as Record<string, unknown>, signal)),
  };
}

function toAgentResult(outcome: ToolOutcome): AgentToolResult<unknown> {
  const result: AgentToolResult<unknown> = { content: outcome.content, details: outcome.details ?? {} };
  if (outcome.terminate === true) result.terminate = true;
  return result;
}

/**
 * The injection ids in Agent's steering and follow-up queues. Agent exposes
 * only `hasQueuedMessages()` and a peek at the next drain, so the queues are
 * read where 1.x keeps them;
 * if that shape is absent, an empty pair of queues still says "none", and
 * anything else is unknown.
 */
function queuedInjectionIds(agent: Agent): ReadonlySet<string> | undefined {
  const queues = agent as unknown as Record<"steeringQueue" | "followUpQueue", { messages?: unknown } | undefined>;
  const steering = queues.steeringQueue?.messages;
  const followUp = queues.followUpQueue?.messages;
  if (!Array.isArray(steering) || !Array.isArray(followUp)) return agent.hasQueuedMessages() ? undefined : new Set();
  const ids = new Set<string>();
  for (const message of [...steering, ...followUp] as AgentMessage[]) {
    if (isGammaCustomMessage(message) && message.details.injectionId !== undefined) ids.add(message.details.injectionId);
  }
  return ids;
}

function agentTransport(agent: Agent): InjectionTransport {
  return {
    isRunning: () => agent.state.isStreaming,
    steer: (message) => steerAgent(agent, message),
    followUp: (message) => followUpAgent(agent, message),
    startTurn: (messages) => agent.prompt(messages),
    queuedInjectionIds: () => queuedInjectionIds(agent),
  };
}

function sessionTransport(session: AgentSession, controller: SessionProtocolController): InjectionTransport {
  return {
    isRunning: () => session.isStreaming,
    steer: (message) => void sendSessionMessage(session, controller, message, { deliverAs: "steer" }),
    followUp: (message) => void sendSessionMessage(session, controller, message, { deliverAs: "followUp" }),
    // One run through the session (its run lifecycle, hooks and session file), the messages in their order:
    // Pi puts a triggering message first and the queued next-turn ones after it.
    startTurn: async (messages) => {
      const [first, ...rest] = messages;
      if (first === undefined) return;
      for (const message of rest) await session.sendCustomMessage(customPayload(message), { deliverAs: "nextTurn" });
      await session.sendCustomMessage(customPayload(first), { triggerTurn: true });
    },
    queuedInjectionIds: () => queuedInjectionIds(session.agent),
  };
}

// ---- evaluations: pi-ai's models and keys, observed calls, scripted replies -----------------

/**
 * What a model call sends, read from its transcript: the prompt and tools the
 * leading system message declares, then every later message in order (later
 * system messages, carrying tool changes, included).
 */
export interface ModelContext {
  systemPrompt: string;
  tools: Tool[];
  messages: Message[];
}

/** What a model call answers (pi-ai's type), for evaluations and their cassettes. */
export type { AssistantMessage as ModelReply, Model, Api, StreamFn };

/** A call's transcript as the evaluations see it. */
export function modelContextOf(context: TranscriptContext): ModelContext {
  const head = getInitialSystemMessage(context.messages);
  const leading = head === undefined ? [] : [head];
  return {
    systemPrompt: getCurrentSystemPrompt(leading),
    tools: getCurrentTools(leading),
    messages: head === undefined ? context.messages : context.messages.slice(1),
  };
}

/** pi-ai's model catalog and its environment-key lookup (its compatibility entry), loaded on first use. */
export interface ModelCatalog {
  providers(): string[];
  modelIds(provider: string): string[];
  find(provider: string, id: string): Model<Api> | undefined;
  /** The key pi-ai would use for `provider`, from the environment (pi-ai's `getEnvApiKey`). */
  envApiKey(provider: string): string | undefined;
}

export async function modelCatalog(): Promise<ModelCatalog> {
  const pi = await import("@earendil-works/pi-ai/compat");
  const providers = (): string[] => [...pi.getProviders()].sort();
  const modelIds = (provider: string): string[] =>
    providers().includes(provider) ? pi.getModels(provider as Parameters<typeof pi.getModels>[0]).map((model) => model.id).sort() : [];
  return {
    providers,
    modelIds,
    find: (provider, id) => (modelIds(provider).includes(id) ? (pi.getModel(provider as never, id as never) as Model<Api>) : undefined),
    envApiKey: (provider) => pi.getEnvApiKey(provider),
  };
}

export interface ModelCallObserver {
  /** A call starts on this context (called synchronously); a returned string refuses the call with that error. */
  onCall(index: number, context: ModelContext): string | undefined;
  /** The call's final reply. */
  onReply(index: number, reply: AssistantMessage): void;
}

/**
 * pi-ai's `streamSimple`, observed: every model call on an agent made with
 * this stream function is reported with the exact context it carries and
 * the reply it got, whichever provider answers.
 */
export async function observedStreamFn(observer: ModelCallObserver): Promise<StreamFn> {
  const { streamSimple } = await import("@earendil-works/pi-ai/compat");
  let calls = 0;
  return (model, context, options) => {
    const index = calls++;
    const refusal = observer.onCall(index, modelContextOf(context));
    // A throwing stream function becomes an assistant message with stopReason "error": the run ends there.
    if (refusal !== undefined) throw new Error(refusal);
    const stream = streamSimple(model, context, options);
    void stream.result().then((reply) => observer.onReply(index, reply));
    return stream;
  };
}

/** A reply a scripted model gives: assistant content and how it stopped. */
export interface ScriptedReply {
  content: AssistantMessage["content"];
  stopReason: AssistantMessage["stopReason"];
  errorMessage?: string;
}

/**
 * A model answered by a script, on pi-ai's faux provider (no key, no
 * network): `respond` gets each call's context and returns the reply. The
 * provider and model id are the ones the results name. Unregister it after use.
 */
export async function registerScriptedModel(options: {
  provider: string;
  modelId: string;
  maxCalls: number;
  respond: (context: ModelContext, index: number) => ScriptedReply | Promise<ScriptedReply>;
}): Promise<{ model: Model<Api>; unregister(): void }> {
  const pi = await import("@earendil-works/pi-ai/compat");
  // One chunk per block: streaming deltas only cost time here.
  const faux = pi.registerFauxProvider({ provider: options.provider, models: [{ id: options.modelId }], tokenSize: { min: 1_000_000, max: 1_000_000 } });
  const step = async (context: TranscriptContext, _options: unknown, state: { callCount: number }) => {
    const reply = await options.respond(modelContextOf(context), state.callCount - 1);
    return pi.fauxAssistantMessage(reply.content, { stopReason: reply.stopReason, timestamp: 0, ...(reply.errorMessage === undefined ? {} : { errorMessage: reply.errorMessage }) });
  };
  faux.setResponses(Array.from({ length: options.maxCalls + 1 }, () => step));
  return { model: faux.getModel() as Model<Api>, unregister: () => faux.unregister() };
}
