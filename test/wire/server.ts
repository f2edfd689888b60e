/**
 * A provider on loopback for wire tests: answers the streaming formats of
 * anthropic-messages, openai-completions and openai-responses from a script of
 * turns, and records every request exactly as pi-ai's real clients sent it.
 * For Anthropic it also keeps a prompt cache by the documented rules
 * (breakpoints, 20-block look-back, a minimum length), so the usage it reports
 * says what a request would have read from the cache.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

export interface ScriptedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface ScriptedTurn {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** The model declines (OpenAI Responses only): the response ends incomplete, its reason the content filter. */
  refused?: boolean;
}

export type WireProtocol = "anthropic-messages" | "openai-completions" | "openai-responses";

export interface RecordedRequest {
  protocol: WireProtocol;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** What the emulated Anthropic cache read and wrote for this request (Anthropic only). */
  cache?: { read: number; written: number; input: number };
}

export interface WireServer {
  /** Root URL; Anthropic models take it as is, OpenAI models with `/v1`. */
  url: string;
  requests: RecordedRequest[];
  /** Replaces the turns still to be answered. */
  script(turns: ScriptedTurn[]): void;
  /** Called with each request before it is answered (e.g. to route an injection mid-run). */
  onRequest?: (request: RecordedRequest) => void;
  close(): Promise<void>;
}

/** Anthropic's minimum cacheable prompt for Sonnet 4.5 (tokens). */
const ANTHROPIC_MINIMUM = 1024;
const LOOKBACK_BLOCKS = 20;

export async function startWireServer(): Promise<WireServer> {
  let turns: ScriptedTurn[] = [];
  let callCounter = 0;
  const anthropicCache = new Set<string>();
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      // Without the query (Anthropic beta requests add `?beta=true`).
      const url = (req.url ?? "").split("?")[0] ?? "";
      const protocol: WireProtocol = url.endsWith("/messages") ? "anthropic-messages" : url.endsWith("/chat/completions") ? "openai-completions" : "openai-responses";
      const recorded: RecordedRequest = { protocol, headers: req.headers, body };
      if (protocol === "anthropic-messages") recorded.cache = anthropicCacheUse(body, anthropicCache);
      requests.push(recorded);
      wire.onRequest?.(recorded);
      const turn = turns.shift() ?? { text: "(no scripted turn left)" };
      const calls = (turn.toolCalls ?? []).map((call) => ({ ...call, id: `call_${++callCounter}` }));
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      if (protocol === "anthropic-messages") answerAnthropic(res, turn.text, calls, recorded.cache);
      else if (protocol === "openai-completions") answerCompletions(res, turn.text, calls);
      else answerResponses(res, turn.text, calls, turn.refused === true);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const wire: WireServer = {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (next) => {
      turns = [...next];
      callCounter = 0;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return wire;
}

type Call = ScriptedToolCall & { id: string };

function sse(res: ServerResponse, event: string | undefined, data: unknown): void {
  res.write(`${event === undefined ? "" : `event: ${event}\n`}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
}

function answerAnthropic(res: ServerResponse, text: string | undefined, calls: Call[], cache: RecordedRequest["cache"]): void {
  const usage = { input_tokens: cache?.input ?? 10, output_tokens: 1, cache_read_input_tokens: cache?.read ?? 0, cache_creation_input_tokens: cache?.written ?? 0 };
  sse(res, "message_start", { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage } });
  let index = 0;
  if (text !== undefined) {
    sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
    sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text } });
    sse(res, "content_block_stop", { type: "content_block_stop", index });
    index++;
  }
  for (const call of calls) {
    sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } });
    sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(call.arguments) } });
    sse(res, "content_block_stop", { type: "content_block_stop", index });
    index++;
  }
  sse(res, "message_delta", { type: "message_delta", delta: { stop_reason: calls.length > 0 ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } });
  sse(res, "message_stop", { type: "message_stop" });
  res.end();
}

function answerCompletions(res: ServerResponse, text: string | undefined, calls: Call[]): void {
  const chunk = (delta: Record<string, unknown>, finish: string | null, usage?: Record<string, unknown>) =>
    sse(res, undefined, { id: "chatcmpl_1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) });
  chunk({ role: "assistant", content: text ?? "" }, null);
  calls.forEach((call, index) => chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } }] }, null));
  chunk({}, calls.length > 0 ? "tool_calls" : "stop", { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 0 } });
  sse(res, undefined, "[DONE]");
  res.end();
}

function answerResponses(res: ServerResponse, text: string | undefined, calls: Call[], refused = false): void {
  const event = (type: string, data: Record<string, unknown>) => sse(res, type, { type, ...data });
  event("response.created", { response: { id: "resp_1", status: "in_progress", output: [] } });
  let output = 0;
  if (text !== undefined) {
    const item = { type: "message", id: "msg_1", role: "assistant", status: "in_progress", content: [] as unknown[] };
    event("response.output_item.added", { output_index: output, item });
    event("response.content_part.added", { item_id: "msg_1", output_index: output, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
    event("response.output_text.delta", { item_id: "msg_1", output_index: output, content_index: 0, delta: text });
    event("response.output_item.done", { output_index: output, item: { ...item, status: "completed", content: [{ type: "output_text", text, annotations: [] }] } });
    output++;
  }
  for (const call of calls) {
    const item = { type: "function_call", id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: "" };
    const args = JSON.stringify(call.arguments);
    event("response.output_item.added", { output_index: output, item });
    event("response.function_call_arguments.delta", { item_id: item.id, output_index: output, delta: args });
    event("response.function_call_arguments.done", { item_id: item.id, output_index: output, arguments: args });
    event("response.output_item.done", { output_index: output, item: { ...item, arguments: args, status: "completed" } });
    output++;
  }
  const usage = { input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 0 } };
  if (refused) event("response.incomplete", { response: { id: "resp_1", status: "incomplete", incomplete_details: { reason: "content_filter" }, usage } });
  else event("response.completed", { response: { id: "resp_1", status: "completed", usage } });
  res.end();
}

/**
 * The blocks of an Anthropic request in cache order (each tool, each system
 * block, each message content block), hashed cumulatively without their
 * cache_control marks. A breakpoint writes the prefix ending at its block; a
 * read finds the longest cached prefix ending at a block boundary at most 20
 * blocks before a breakpoint.
 */
function anthropicCacheUse(body: Record<string, unknown>, cache: Set<string>): { read: number; written: number; input: number } {
  const blocks: Array<{ json: string; tokens: number; breakpoint: boolean }> = [];
  const add = (block: unknown) => {
    const { cache_control: mark, ...rest } = block as Record<string, unknown>;
    blocks.push({ json: JSON.stringify(rest), tokens: anthropicBlockTokens(rest), breakpoint: mark !== undefined });
  };
  for (const tool of (body["tools"] as unknown[] | undefined) ?? []) add(tool);
  for (const block of (body["system"] as unknown[] | undefined) ?? []) add(block);
  for (const message of (body["messages"] as Array<{ role: string; content: unknown }> | undefined) ?? []) {
    const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : (message.content as unknown[]);
    for (const part of content) add({ role: message.role, ...(part as Record<string, unknown>) });
  }
  const hashes: string[] = [];
  const tokens: number[] = [];
  let state = createHash("sha256");
  let total = 0;
  for (const block of blocks) {
    state = state.copy().update(block.json);
    hashes.push(state.copy().digest("hex"));
    total += block.tokens;
    tokens.push(total);
  }
  let readAt = -1;
  const breakpoints = blocks.flatMap((block, index) => (block.breakpoint ? [index] : []));
  for (const at of breakpoints) {
    for (let index = at; index >= Math.max(0, at - LOOKBACK_BLOCKS + 1); index--) {
      if (cache.has(hashes[index] ?? "")) {
        readAt = Math.max(readAt, index);
        break;
      }
    }
  }
  let lastWrite = readAt;
  for (const at of breakpoints) {
    if ((tokens[at] ?? 0) < ANTHROPIC_MINIMUM) continue;
    cache.add(hashes[at] ?? "");
    lastWrite = Math.max(lastWrite, at);
  }
  const read = readAt < 0 ? 0 : (tokens[readAt] ?? 0);
  const writtenUpTo = lastWrite < 0 ? 0 : (tokens[lastWrite] ?? 0);
  return { read, written: writtenUpTo - read, input: total - writtenUpTo };
}

/** The tokens the emulated cache counts for one block (without its mark): text as its text, anything else (tools, tool calls) as its JSON. */
export function anthropicBlockTokens(block: Record<string, unknown>): number {
  const { cache_control: _mark, ...rest } = block;
  return countTokens(typeof rest["text"] === "string" ? rest["text"] : JSON.stringify(rest));
}
