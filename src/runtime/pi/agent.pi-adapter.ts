/**
 * The low-level path: a pi-agent-core `Agent` whose system prompt is exactly
 * the variant's bytes, whose tools are tools.json's in its order (then the
 * namespaces the variant sends from the start), and whose every model call
 * is made from a transcript the runtime prepared before it recorded anything.
 */
import type { Agent, AgentMessage, StreamFn, ThinkingLevel } from "@earendil-works/pi-agent-core";
import type { Api, Model } from "@earendil-works/pi-ai";
import type { SessionProtocolController } from "../controller.js";
import type { ConnectorRestore } from "../connectors.js";
import type { PromptCacheOptions } from "../prompt-cache.js";
import { checkSessionOptions, openController, resolveController, sessionTools, type ConnectorRestorer, type ControllerSource } from "../session-tools.js";
import { resolveToolLoading, type ToolLoadingPolicy } from "./tool-loading.pi-adapter.js";
import type { HostExecutors } from "../tools.js";
import { agentTransport } from "./delivery.pi-adapter.js";
import { PiAgent, toToolDeclaration } from "./packages.pi-adapter.js";
import { convertGammaMessages, pinVariantTranscript } from "./transcript.pi-adapter.js";
import { applyCachePlan, bindController, toAgentTool } from "./wiring.pi-adapter.js";

/**
 * A model call's stream function (pi-agent-core's `StreamFn`): called with
 * the model, the call's transcript and its options; Pi's own
 * `Models.streamSimple` is one.
 */
export type GammaStreamFn = StreamFn;

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
  /**
   * Ends the session here: aborts the agent's run (no model call goes out
   * after it), detaches the runtime's listener, refuses every later change
   * (SessionDisposedError) and closes the store once the writes made before it settled.
   */
  dispose(): void;
}

/**
 * A Gamma agent on a store that answers at once (memory, a file). A missing
 * host executor throws here; a store that waits needs {@link openGammaAgent}.
 */
export function createGammaAgent(options: GammaAgentOptions): GammaAgent {
  checkSessionOptions(options, "createGammaAgent");
  return gammaAgent(resolveController(options), options);
}

/**
 * A Gamma agent on any store, a database's included: the session's state is
 * loaded, and a new session's first snapshot is durable, before it returns.
 */
export async function openGammaAgent(options: GammaAgentOptions): Promise<GammaAgent> {
  checkSessionOptions(options, "openGammaAgent");
  return gammaAgent(await openController(options), options);
}

function gammaAgent(controller: SessionProtocolController, options: GammaAgentOptions): GammaAgent {
  const tools = sessionTools(controller, { ...options, toolLoading: resolveToolLoading(options.toolLoading, options.model) });
  const systemPrompt = controller.systemPrompt;
  // What a new session on this build declares at its head; a transcript another build stored is sent with these.
  const headNames = new Set(controller.newSessionToolSchemas().map((tool) => tool.name));
  const headTools = tools.start.filter((tool) => headNames.has(tool.name)).map((tool) => toToolDeclaration(toAgentTool(tool)));
  // Reopened on a stored transcript: pending events it already holds are in the context, not sent again.
  if (options.messages !== undefined) controller.noteTranscript(options.messages);
  const agent = new PiAgent({
    // Pi seeds the leading system message (the variant and tools.json's tools) unless `messages` starts with one.
    initialState: {
      systemPrompt,
      model: options.model,
      tools: tools.start.map(toAgentTool),
      ...(options.messages === undefined ? {} : { messages: options.messages }),
      thinkingLevel: options.thinkingLevel ?? defaultThinkingLevel(options.model),
    },
    // Called once per model call, on the whole transcript. The transcript the call sends is made first
    // (variant pinned, untrusted text neutralised, one anchor), then what it delivers leaves the pending set,
    // and the call waits until that is durable: a refused write ends the run and nothing is sent.
    // A disposed session sends nothing: checked before anything is recorded and again once the store caught up.
    // A call refused after what it carries left the pending set (an abort during the wait) puts it back.
    convertToLlm: async (messages) => {
      controller.refuseModelCallWhenDisposed();
      agent.signal?.throwIfAborted();
      const transcript = pinVariantTranscript(convertGammaMessages(messages), systemPrompt, headTools);
      controller.confirmModelContext(messages);
      try {
        await controller.waitForStore(agent.signal);
        controller.refuseModelCallWhenDisposed();
        // An aborted run sends nothing, even when the wait it was in ended before the abort was seen.
        agent.signal?.throwIfAborted();
      } catch (error) {
        controller.modelCallRefused();
        throw error;
      }
      controller.modelCallGoes();
      return transcript;
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
  const unsubscribe = bindController(agent, controller, agentTransport(agent), "with-each-run");
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
      agent.abort();
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
