/**
 * Pi's models as the evaluations use them: what a model call carries (read
 * from its transcript), pi-ai's model catalog and environment keys, an
 * observed stream function, and a model answered by a script on pi-ai's faux
 * provider. Loaded only by `gamma-prompt eval`; pi-ai's compatibility entry is
 * imported on first use.
 */
import type { StreamFn } from "@earendil-works/pi-agent-core";
import type { Api, AssistantMessage, Message, Model, Tool, TranscriptContext } from "@earendil-works/pi-ai";
import { getCurrentSystemPrompt, getCurrentTools, getInitialSystemMessage } from "../runtime/pi/packages.pi-adapter.js";

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
  /** Taking the reply failed (`onReply` threw): the run is to report it. */
  onReplyError(index: number, error: unknown): void;
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
    stream
      .result()
      .then((reply) => observer.onReply(index, reply))
      .catch((error: unknown) => observer.onReplyError(index, error));
    return stream;
  };
}

/** A reply a scripted model gives: assistant content and how it stopped. */
export interface ScriptedReply {
  content: AssistantMessage["content"];
  stopReason: AssistantMessage["stopReason"];
  errorMessage?: string;
  /** The provider's own stop reason behind an `error` stop the model made (a refusal, a content filter). */
  rawStopReason?: string;
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
