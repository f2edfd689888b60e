/**
 * What a scripted model sees of a model call, as the compiler library's types
 * describe it: the fields of pi-ai's messages and tools that evaluations read,
 * written out here so the library's public types name no Pi package (Pi is an
 * optional peer; a TypeScript project that uses only the compiler has none).
 * pi-ai's own values fit these types as they are.
 */

/** A part of a message's content: text, thinking, an image or a tool call. */
export type ModelContentPart =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> };

/** One message a model call carries, by role. */
export type ModelMessage =
  | { role: "system"; content: string | ModelContentPart[] }
  | { role: "user"; content: string | ModelContentPart[] }
  | { role: "assistant"; content: ModelContentPart[] }
  | { role: "toolResult"; toolCallId: string; toolName: string; content: ModelContentPart[]; isError: boolean };

/** A tool the call declares: its name, description and JSON Schema parameters. */
export interface ModelTool {
  name: string;
  description: string;
  parameters: object;
}

/**
 * What a model call sends: the prompt and tools the leading system message
 * declares, then every later message in order (later system messages, which
 * carry tool changes, included).
 */
export interface ModelCallContext {
  systemPrompt: string;
  tools: ModelTool[];
  messages: ModelMessage[];
}
