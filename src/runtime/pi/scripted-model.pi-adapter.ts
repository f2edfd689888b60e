/**
 * A model that plays a script, and host tools that answer with stubs: the
 * runtime without an API key or a network, for tests and first runs. The
 * model is pi-ai's faux provider (a real Pi model, streamed like any other),
 * answering each call with the script's next reply; the tools answer every
 * call with a short text. pi-ai's compatibility entry (where the faux
 * provider's global registration lives) loads on first use.
 */
import type { Api, Model, Provider } from "@earendil-works/pi-ai";
import { expectObject } from "../../protocol/arguments.js";
import type { LoadedArtifacts } from "../artifacts.js";
import type { JsonValue } from "../execution-state.js";
import { RUNTIME_TOOL_NAMES, type HostExecutors, type ToolExecutor } from "../tools.js";

/** One tool call of a scripted reply. */
export interface ScriptedToolCall {
  name: string;
  arguments?: { [key: string]: JsonValue };
}

/** What the model answers to one call: a text (the run ends there), or tool calls made in one batch (with an optional text before them). */
export type ScriptedReply = string | { text?: string; toolCalls: readonly ScriptedToolCall[] };

export interface ScriptedModel {
  /** The model to pass as `model` (pi-ai's faux provider). */
  model: Model<Api>;
  /** The provider, for a pi-coding-agent ModelRuntime (`registerNativeProvider`) when the model runs in an AgentSession. */
  provider: Provider;
  /** Model calls answered so far. */
  readonly calls: number;
  /** Removes the faux provider from pi-ai's registry. */
  dispose(): void;
}

export interface ScriptedModelOptions {
  /** The provider id the model reports (default "scripted"). */
  provider?: string;
  /** The model id (default "scripted-1"). */
  modelId?: string;
}

/**
 * A model that answers call n with `replies[n]`. Tool calls get the ids
 * `call_1`, `call_2`, … in order, so a run prints the same every time. A call
 * past the end of the script is answered with an error (the run stops there,
 * as it would on a provider's error), naming the call and the script's length.
 */
export async function scriptedModel(replies: readonly ScriptedReply[], options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const [pi, compat] = await Promise.all([import("@earendil-works/pi-ai"), import("@earendil-works/pi-ai/compat")]);
  const faux = compat.registerFauxProvider({ provider: options.provider ?? "scripted", models: [{ id: options.modelId ?? "scripted-1" }] });
  let calls = 0;
  let toolCalls = 0;
  const answer = () => {
    const reply = replies[calls];
    calls += 1;
    if (reply === undefined) {
      return pi.fauxAssistantMessage([], { stopReason: "error", errorMessage: `the scripted model has no reply for call ${calls} (the script has ${replies.length})`, timestamp: 0 });
    }
    if (typeof reply === "string") return pi.fauxAssistantMessage(reply, { stopReason: "stop", timestamp: 0 });
    const content = [
      ...(reply.text === undefined ? [] : [pi.fauxText(reply.text)]),
      ...reply.toolCalls.map((call) => pi.fauxToolCall(call.name, call.arguments ?? {}, { id: `call_${++toolCalls}` })),
    ];
    return pi.fauxAssistantMessage(content, { stopReason: "toolUse", timestamp: 0 });
  };
  // One response factory per possible call, the last answering past the end of the script.
  faux.setResponses(Array.from({ length: replies.length + 1 }, () => answer));
  const model = faux.getModel() as Model<Api>;
  const provider = pi.createProvider({
    id: model.provider,
    auth: { apiKey: { name: "Scripted model key", resolve: async ({ credential }) => (credential?.key === undefined ? undefined : { auth: { apiKey: credential.key } }) } },
    models: faux.models,
    api: { stream: compat.streamSimple, streamSimple: compat.streamSimple },
  }) as Provider;
  return {
    model,
    provider,
    get calls() {
      return calls;
    },
    dispose: () => faux.unregister(),
  };
}

/** How a stub answers one call. */
export type StubAnswer = string | ((params: Record<string, unknown>) => string);

export interface StubExecutorOptions {
  /** Answers by tool name; a tool without one answers "<tool>: done". */
  answers?: Readonly<Record<string, StubAnswer>>;
  /** Called with every call, in order (to print or record it). */
  onCall?: (tool: string, params: Record<string, unknown>) => void;
}

/**
 * An executor for every tool of `artifacts` the runtime does not implement
 * (the stable tool set's host tools and every tool namespace's), each
 * answering with text and nothing else: what `createGammaAgent` and
 * `createGammaSession` need as `executors` to run without a host.
 */
export function stubExecutors(artifacts: LoadedArtifacts, options: StubExecutorOptions = {}): HostExecutors {
  expectObject(artifacts as unknown, "artifacts", "the loaded artifacts, from loadArtifacts({ distDir })");
  expectObject(options as unknown, "stubExecutors options", "an object such as { answers, onCall }");
  const runtime: readonly string[] = RUNTIME_TOOL_NAMES;
  const names = [...artifacts.tools.map((tool) => tool.name), ...[...artifacts.namespaces.values()].flatMap((namespace) => namespace.tools.map((tool) => tool.name))].filter((name) => !runtime.includes(name));
  const stub = (name: string): ToolExecutor => async (_toolCallId, params) => {
    options.onCall?.(name, params);
    const answer = options.answers?.[name];
    const text = answer === undefined ? `${name}: done` : typeof answer === "string" ? answer : answer(params);
    return { content: [{ type: "text", text }] };
  };
  return Object.fromEntries(names.map((name) => [name, stub(name)]));
}
