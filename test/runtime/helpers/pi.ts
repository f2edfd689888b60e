/** Real Pi pieces for runtime tests: the faux provider, context capture and simple host tools. */
import { createProvider, fauxAssistantMessage, fauxToolCall as piFauxToolCall, getCurrentSystemPrompt, getCurrentTools, type Message, type Provider, type TranscriptContext } from "@earendil-works/pi-ai";
import { registerFauxProvider as registerGlobalFaux, streamSimple } from "@earendil-works/pi-ai/compat";
import type { HostExecutors, ToolExecutor } from "../../../src/runtime/tools.js";

/**
 * pi-ai's faux provider, reachable both ways a model call goes out: pi-ai's
 * global stream function (the low-level Agent's default) and, through
 * `provider`, a pi-coding-agent ModelRuntime (an AgentSession). The
 * provider asks for a key like a real one: a runtime without one refuses the call.
 */
export type Faux = ReturnType<typeof registerGlobalFaux> & { provider: Provider };
export { fauxAssistantMessage };

/** pi-ai's fauxToolCall for arguments built from the runtime's own types (JSON values, typed as their interfaces). */
export function fauxToolCall(name: string, args: object, options?: { id?: string }): ReturnType<typeof piFauxToolCall> {
  return piFauxToolCall(name, args as Parameters<typeof piFauxToolCall>[1], options);
}

export function registerFauxProvider(): Faux {
  const faux = registerGlobalFaux();
  const model = faux.getModel();
  const provider = createProvider({
    id: model.provider,
    auth: {
      apiKey: {
        name: "Faux key",
        resolve: async ({ credential }) => (credential?.key === undefined ? undefined : { auth: { apiKey: credential.key } }),
      },
    },
    models: faux.models,
    api: { stream: streamSimple, streamSimple },
  });
  return Object.assign(faux, { provider });
}

/** What the model saw on one call: the prompt and tools the transcript's leading system message declares, then every later message. */
export interface SeenContext {
  systemPrompt: string | undefined;
  messages: Message[];
  tools: { name: string; parameters: unknown }[];
}

export function snapshot(context: TranscriptContext): SeenContext {
  const [head, ...rest] = context.messages;
  const leading = head?.role === "system" ? [head] : [];
  return {
    systemPrompt: leading.length === 0 ? undefined : getCurrentSystemPrompt(leading),
    messages: JSON.parse(JSON.stringify(leading.length === 0 ? context.messages : rest)) as Message[],
    tools: getCurrentTools(leading).map((tool) => ({ name: tool.name, parameters: tool.parameters })),
  };
}

/** A faux step that records the context, then answers with `reply`. */
export function seeing(seen: SeenContext[], reply: ReturnType<typeof fauxAssistantMessage>) {
  return (context: TranscriptContext) => {
    seen.push(snapshot(context));
    return reply;
  };
}

export function toolUse(...calls: ReturnType<typeof fauxToolCall>[]) {
  return fauxAssistantMessage(calls, { stopReason: "toolUse" });
}

/** The model-visible text of one converted message. */
export function textOf(message: Message | undefined): string {
  if (message === undefined) return "";
  if (message.role === "assistant") return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  const content = message.content;
  return typeof content === "string" ? content : content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** Host tools that record their calls and answer with plain text (by default the embedded default's host tools). */
export function recordingExecutors(calls: string[] = [], names: readonly string[] = ["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file"]): HostExecutors {
  const tool = (name: string): ToolExecutor => async (_id, params) => {
    calls.push(name);
    return { content: [{ type: "text", text: `${name} ok ${JSON.stringify(params)}` }] };
  };
  return Object.fromEntries(names.map((name) => [name, tool(name)]));
}
