/**
 * The pi-coding-agent path: an AgentSession on the exact variant prompt. The
 * Gamma extension registers the tools, replaces Pi's assembled prompt on
 * every request (no second skills block, no working directory), keeps one
 * anchor in context and re-anchors after compaction. A resumed session whose
 * context holds no anchor gets one at once.
 */
import type { AgentSession, ExtensionAPI, ModelRuntime, SessionManager, SettingsManager } from "@earendil-works/pi-coding-agent";
import type { ThinkingLevel } from "@earendil-works/pi-agent-core";
import type { Api, Model, Tool } from "@earendil-works/pi-ai";
import { SESSION_ENTRY_TYPE } from "../audit/readers.js";
import type { ConnectorRestore } from "../connectors.js";
import type { SessionProtocolController } from "../controller.js";
import type { CacheWarming, PromptCacheOptions } from "../prompt-cache.js";
import { checkSessionOptions, openController, sessionTools, type ConnectorRestorer, type ControllerSource, type SessionTools } from "../session-tools.js";
import { resolveToolLoading, type ToolLoadingPolicy } from "./tool-loading.pi-adapter.js";
import type { HostExecutors } from "../tools.js";
import { defaultThinkingLevel } from "./agent.pi-adapter.js";
import { customPayload, sendSessionMessage, sessionTransport } from "./delivery.pi-adapter.js";
import { toToolDeclaration } from "./packages.pi-adapter.js";
import { neutraliseUntrusted, sessionModelTranscript } from "./transcript.pi-adapter.js";
import { neutraliseReservedTags } from "../injections/neutralise.js";
import { SessionDisposedError } from "../state/errors.js";
import { TurnNotSentError } from "../yield.js";
import { applyCachePlan, bindController, guardModelCalls, piToolDefinition } from "./wiring.pi-adapter.js";

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
  /**
   * Disposes the session (Pi aborts its run: no model call goes out after
   * it), refuses every later change (SessionDisposedError) and closes the
   * store once the writes made before it settled.
   */
  dispose(): void;
}

/** An AgentSession on the exact variant prompt, on any store (a store that waits is awaited while it opens). */
export async function createGammaSession(options: GammaSessionOptions): Promise<GammaSession> {
  checkSessionOptions(options, "createGammaSession");
  const pi = await import("@earendil-works/pi-coding-agent");
  const controller = await openController(options);
  const tools = sessionTools(controller, { ...options, toolLoading: resolveToolLoading(options.toolLoading, options.model) });
  const settingsManager = options.settingsManager ?? pi.SettingsManager.inMemory();
  let extension: ExtensionAPI | undefined;
  // What a new session on this build declares at its head (the start tools, active, in order); set once the session exists.
  const head: SessionHead = { tools: undefined };
  const inputFailures: InputFailures = { failed: undefined };
  const inner = new pi.DefaultResourceLoader({
    cwd: options.cwd,
    agentDir: options.agentDir,
    settingsManager,
    extensionFactories: [
      (api) => {
        extension = api;
        gammaExtension(api, controller, tools, options.promptCache?.cacheWarming ?? "off", inputFailures, head);
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
  refuseUnsentTurns(session, controller, inputFailures);
  const agent = session.agent;
  const headNames = new Set(controller.newSessionToolSchemas().map((tool) => tool.name));
  head.tools = agent.state.tools.filter((tool) => headNames.has(tool.name)).map((tool) => toToolDeclaration(tool));
  // As on the low-level path; set on the agent, not through setSteeringMode, which would change the user's Pi settings.
  agent.steeringMode = "all";
  agent.followUpMode = "all";
  applyCachePlan(agent, controller, options.promptCache ?? {});
  guardModelCalls(agent, controller);
  const unsubscribe = bindController(agent, controller, sessionTransport(session, controller), "when-settled");
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
    // The cache key names the build, so an audit against another dist/ is refused rather than passed.
    options.sessionManager.appendCustomEntry(SESSION_ENTRY_TYPE, { variant: controller.variant, cacheKey: controller.artifacts.manifest.staticPrefix.cacheKey });
  }
  if (agent.state.messages.length > 0) {
    // Resumed: pending events the transcript holds are in the context already. A context without an anchor
    // gets one that carries the state (and the pending events the transcript does not hold); one that holds
    // an anchor keeps it in place (see resumeAnchor).
    controller.noteTranscript(agent.state.messages);
    const anchor = controller.resumeAnchor(agent.state.messages);
    if (anchor !== undefined) await sendSessionMessage(session, controller, anchor);
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
 * An in-memory SessionManager built from session entries held outside the
 * file system (a database's rows, the header first), as Pi 1.x allows: the
 * session another server resumes.
 */
export async function sessionManagerFromEntries(cwd: string, entries: readonly unknown[]): Promise<SessionManager> {
  const pi = await import("@earendil-works/pi-coding-agent");
  return pi.SessionManager.inMemory(cwd, undefined, entries.length === 0 ? undefined : ([...entries] as import("@earendil-works/pi-coding-agent").FileEntry[]));
}

/** The failure of the input hook for the prompt under way: set by the hook, taken by that prompt's call. */
interface InputFailures {
  failed: TurnNotSentError | undefined;
}

/**
 * Pi catches an input hook's error, reports it on a channel of its own and
 * sends the prompt anyway; the hook answers "handled" instead, so nothing
 * goes out, and the prompt's call rejects here with the hook's failure.
 * A compaction the host asks for calls the model (its summariser): on a
 * disposed or stopped session it is refused as a prompt is, before Pi aborts
 * or prepares anything.
 */
function refuseUnsentTurns(session: AgentSession, controller: SessionProtocolController, failures: InputFailures): void {
  // Pi would end the run quietly when the model call is refused: a call on a disposed session is told, as on the Agent path.
  const refuseWhenDisposed = (attempted: string): void => {
    if (!controller.disposed) return;
    const refused = new SessionDisposedError(attempted);
    controller.reportError("disposed", refused);
    throw refused;
  };
  const compact = session.compact.bind(session);
  session.compact = async (...args: Parameters<AgentSession["compact"]>) => {
    refuseWhenDisposed("compact");
    if (controller.failure !== undefined) throw controller.failure;
    return compact(...args);
  };
  const prompt = session.prompt.bind(session);
  session.prompt = async (...args: Parameters<AgentSession["prompt"]>) => {
    refuseWhenDisposed("prompt");
    failures.failed = undefined;
    await prompt(...args);
    const failed = failures.failed;
    failures.failed = undefined;
    if (failed !== undefined) throw failed;
  };
}

/** The tools a new session on this build declares at the head of its transcript. */
interface SessionHead {
  tools: Tool[] | undefined;
}

function gammaExtension(api: ExtensionAPI, controller: SessionProtocolController, tools: SessionTools, cacheWarming: CacheWarming, inputFailures: InputFailures, head: SessionHead): void {
  // The start tools in the cache plan's order, active; the tools of namespaces that may load later, inactive.
  for (const tool of tools.start) api.registerTool(piToolDefinition(tool, true));
  for (const tool of tools.loadable()) api.registerTool(piToolDefinition(tool, false));
  // Next-turn delivery. `input` is the last hook before prompt() drains Pi's
  // next-turn list right after the user's message (before_agent_start comes
  // after the drain and adds at most one message). The injections stay pending
  // until a model call uses them; a prompt that is only queued into a running
  // agent leaves them for the next one.
  api.on("input", async (event, context) => {
    if (!context.isIdle()) return undefined;
    let messages: ReturnType<SessionProtocolController["nextTurnMessages"]>;
    try {
      // Made whole before any is handed to Pi: a failure leaves the pending events unsent, as they were.
      messages = controller.nextTurnMessages(event.text);
    } catch (error) {
      if (controller.failure !== undefined) return undefined;
      // Pi would send the prompt without them: it is not sent at all, and the host is told (here and by prompt()).
      inputFailures.failed = new TurnNotSentError(error);
      controller.reportError("input", inputFailures.failed);
      return { action: "handled" as const };
    }
    // Knowledge hints for this turn go first, right after the user's message, then the unsent injections.
    for (const message of messages) api.sendMessage(customPayload(message), { deliverAs: "nextTurn" });
    // A refused write stopped the session: the host is told, and no model call goes out (guardModelCalls).
    await controller.waitForStore().catch(() => undefined);
    return undefined;
  });
  // Runs once per model call (triggered turns, retries, continue() and the requests after a compaction or
  // reload included), on the whole transcript the call is about to use. Pi's `context` hook sees no system
  // messages and a changed list from it collapses them into one head; this one owns them, so the variant
  // replaces the head's prompt and every later system message (a tool change) stays in place.
  // No before_agent_start { systemPrompt }: a forced prompt would collapse them too.
  // Pi sends a handler's input unchanged when the handler throws, so the transcript is made before anything
  // that can fail; what the call delivers is recorded after, and a refused write stops the call in the guard.
  api.on("context_with_system", async (event, context) => {
    const messages = sessionModelTranscript(event.messages, controller.systemPrompt, head.tools);
    // Asked again after the wait: an abort can come during it.
    const aborted = (): boolean => context.signal?.aborted === true;
    controller.modelCallStarts();
    // An aborted run's call is refused by the guard: nothing it would carry leaves the pending set.
    if (aborted()) return { messages };
    try {
      controller.confirmModelContext(event.messages);
      await controller.waitForStore(context.signal);
    } catch (error) {
      // A refused write, a dispose or an abort: the guard stops the call. Anything else is reported; the call still carries the whole transcript.
      if (controller.failure === undefined && !controller.disposed && !aborted()) controller.reportError("context", error);
    }
    return { messages };
  });
  // Compaction's summariser is a model call of Pi's own (its own prompt, not the variant's): a stopped or
  // disposed session makes none (Pi's automatic compaction included), and it reads the transcript as the model
  // does, reserved tags neutralised in every untrusted channel. Pi builds its request from this preparation.
  api.on("session_before_compact", (event) => {
    if (controller.failure !== undefined || controller.disposed) return { cancel: true };
    const { preparation } = event;
    preparation.messagesToSummarize = neutraliseUntrusted(preparation.messagesToSummarize);
    preparation.turnPrefixMessages = neutraliseUntrusted(preparation.turnPrefixMessages);
    if (preparation.previousSummary !== undefined) preparation.previousSummary = neutraliseReservedTags(preparation.previousSummary);
    return undefined;
  });
  api.on("session_compact", () => api.sendMessage(customPayload(controller.anchorMessage())));
  // The user's turn ends when the session settles, after Pi's retries and recoveries (a retry keeps the turn's
  // required skills, and takes steered events from Pi's queue itself); a stopped session takes no change.
  api.on("agent_settled", () => {
    if (controller.failure === undefined && !controller.disposed) controller.endTurn();
  });
  // Pi's cache warming sends paid refresh requests after a run; the host opts in (PromptCacheOptions.cacheWarming).
  // A session whose store failed sends none.
  api.on("cache_warming_decision", () => (cacheWarming === "off" || controller.failure !== undefined ? { action: "stop" } : undefined));
}
