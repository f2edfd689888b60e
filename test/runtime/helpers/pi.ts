/** Real Pi pieces for runtime tests: the faux provider, context capture and simple host tools. */
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider, type Context } from "@mariozechner/pi-ai";
import type { HostExecutors, ToolExecutor } from "../../../src/runtime/tools.js";

export type Faux = ReturnType<typeof registerFauxProvider>;
export { fauxAssistantMessage, fauxToolCall, registerFauxProvider };

/** What the model saw on one call (tools keep only their names and schemas). */
export interface SeenContext {
  systemPrompt: string | undefined;
  messages: Context["messages"];
  tools: { name: string; parameters: unknown }[];
}

export function snapshot(context: Context): SeenContext {
  return {
    systemPrompt: context.systemPrompt,
    messages: JSON.parse(JSON.stringify(context.messages)) as Context["messages"],
    tools: (context.tools ?? []).map((tool) => ({ name: tool.name, parameters: tool.parameters })),
  };
}

/** A faux step that records the context, then answers with `reply`. */
export function seeing(seen: SeenContext[], reply: ReturnType<typeof fauxAssistantMessage>) {
  return (context: Context) => {
    seen.push(snapshot(context));
    return reply;
  };
}

export function toolUse(...calls: ReturnType<typeof fauxToolCall>[]) {
  return fauxAssistantMessage(calls, { stopReason: "toolUse" });
}

/** The model-visible text of one converted message. */
export function textOf(message: Context["messages"][number] | undefined): string {
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
