/**
 * How a request carries the compiled cache plan, per provider protocol. Pi-free:
 * the adapter installs {@link shapeProviderPayload} as pi-ai's `onPayload` hook
 * on both paths, so every request (first calls, tool turns, Pi's retries)
 * goes out the same way.
 *
 * - anthropic-messages: the system prompt as one text block per plan block,
 *   `cache_control` at the end of the static prefix and of the variant tail,
 *   plus one at the end of the plan's `tools` block (the last of tools.json's
 *   tools: namespace tools after them, sent from the start or loaded since,
 *   and Pi's deferred placeholder, which pi-ai 1.x appends on models that take
 *   tool changes mid-conversation, carry none, so every variant writes and
 *   reads the same tools entry) and pi-ai's own on the newest message: at
 *   most 4. Later `system`-role messages (tool changes) stay in `messages` as
 *   Pi wrote them.
 * - openai-completions / openai-responses: `prompt_cache_key` on every request
 *   (the policy below), extended retention when asked (`prompt_cache_retention:
 *   "24h"`, or on models with explicit prompt-cache options, GPT-5.6 and later,
 *   `prompt_cache_options.ttl`), and explicit breakpoints at the plan's
 *   boundaries behind a host setting. Responses' `additional_tools` items
 *   (GPT-5.6 and later carry the tools in `input`) are left as Pi wrote them.
 *
 * Every rule reads only the payload and the model: the same transcript gives
 * the same bytes, which Anthropic's message threads (their hash covers the
 * shaped `system` and `tools`) and every prefix cache need.
 */
import { createHash } from "node:crypto";
import { MAX_BREAKPOINTS, type SystemBlock } from "./cache-plan.js";
import { isRecord } from "../protocol/records.js";

export type CacheTtl = "5m" | "1h";

export interface PromptCacheKeyInput {
  variant: string;
  /** Minted once per session and kept in its state store: the same after a restore. */
  sessionKey: string;
  /** The manifest's `staticPrefix.cacheKey` (prefix and tool schemas). */
  prefixCacheKey: string;
}

/** Returns the `prompt_cache_key` for a request, or undefined to send none. */
export type PromptCacheKeyPolicy = (input: PromptCacheKeyInput) => string | undefined;

export interface PromptCacheOptions {
  /**
   * Anthropic lifetimes. `static` covers the tools and the static prefix,
   * `variantTail` the variant's preloaded skills; the newest message keeps 5m.
   * Default 5m for both. A longer lifetime may not follow a shorter one.
   */
  anthropicTtl?: { static?: CacheTtl; variantTail?: CacheTtl };
  /** OpenAI `prompt_cache_key`; default {@link promptCacheKeys.perSession}. */
  promptCacheKey?: PromptCacheKeyPolicy;
  /**
   * Ask OpenAI for extended retention where the model supports it:
   * `prompt_cache_retention: "24h"`, or on a model with explicit prompt-cache
   * options (GPT-5.6 and later in pi-ai's catalog) `prompt_cache_options: { ttl }`
   * with {@link EXPLICIT_MODE_LONG_TTL}.
   */
  longRetention?: boolean;
  /** Models (by id) that accept `prompt_cache_retention`; default {@link supportsLongRetention}. */
  longRetentionModels?: (modelId: string) => boolean;
  /**
   * Mark the plan's boundaries with `prompt_cache_breakpoint` on OpenAI
   * requests (reported for GPT-5.6 and later). Off by default: models that do
   * not know the field may refuse it.
   */
  explicitBreakpoints?: boolean;
  /**
   * Pi's cache warming on a session (pi-coding-agent 1.x): refresh requests
   * Pi may send up to 30 minutes after a run so the next turn finds the
   * prefix warm. `"off"` (the default) vetoes every one; `"pi"` leaves the
   * decision to Pi's cost estimate and its `cacheWarming` setting. A warm
   * request carries the same pinned prompt and cache plan as a real one.
   * See `gamma-prompt cost` for what a refresh costs against a miss.
   */
  cacheWarming?: CacheWarming;
}

export type CacheWarming = "off" | "pi";

/** 16 hex digits of sha256: short, stable, and no raw session id on the wire. */
function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** The documented policies. Keys stay under 64 characters. */
export const promptCacheKeys = {
  /** One key per session (the default): a session's calls route together, whatever other sessions do. */
  perSession: ((input) => `gp-${input.prefixCacheKey.slice(0, 12)}-${digest(input.sessionKey)}`) satisfies PromptCacheKeyPolicy,
  /**
   * One key per variant and shard: sessions of a variant share `shards` keys,
   * so a new session may find the prefix warm; size `shards` so each key stays
   * under the provider's per-key request rate.
   */
  sharded(shards: number): PromptCacheKeyPolicy {
    if (!Number.isInteger(shards) || shards < 1) throw new RangeError(`Unexpected shard count ${shards}, expected a positive integer`);
    return (input) => {
      const shard = Number.parseInt(digest(input.sessionKey).slice(0, 8), 16) % shards;
      return `gp-${input.prefixCacheKey.slice(0, 12)}-${digest(input.variant).slice(0, 8)}-${shard}`;
    };
  },
  /** No key: routing by prefix alone. */
  none: (() => undefined) satisfies PromptCacheKeyPolicy,
};

/**
 * Whether the model's endpoint takes `prompt_cache_key`: every one but a
 * model whose pi-ai `compat.promptCacheKeyMode` is "disabled", the setting
 * pi-ai offers for compatible servers that refuse the field. (pi-ai's own
 * "auto" sends its key on Chat Completions to api.openai.com only; the
 * runtime's per-session key goes wherever the field is not refused, since it
 * is what routes a session's requests to the same cache.)
 */
export function acceptsPromptCacheKey(mode: string | undefined): boolean {
  return mode !== "disabled";
}

/** OpenAI models documented with extended (24h) prompt cache retention: GPT-4.1 and the GPT-5 family. */
export function supportsLongRetention(modelId: string): boolean {
  return /^(gpt-4\.1|gpt-5)/.test(modelId);
}

/** The extended lifetime pi-ai 1.x asks for on models with explicit prompt-cache options (its `cacheRetention: "long"`). */
export const EXPLICIT_MODE_LONG_TTL = "30m";

export interface PayloadContext {
  api: string;
  modelId: string;
  /** The model takes `prompt_cache_options` instead of `prompt_cache_retention` (pi-ai's `compat.supportsExplicitPromptCacheMode`). */
  explicitPromptCacheMode?: boolean;
  systemPrompt: string;
  blocks: readonly SystemBlock[];
  /** The names of tools.json's tools in order: the plan's `tools` block, whose end carries the tools' breakpoint. */
  stableTools: readonly string[];
  /** The key for this session (undefined: none). */
  promptCacheKey: string | undefined;
  options: PromptCacheOptions;
}

/** Checks host options once, when the agent is created. */
export function checkPromptCacheOptions(options: PromptCacheOptions): void {
  const ttl = options.anthropicTtl;
  if (ttl?.static === "5m" && ttl.variantTail === "1h") {
    throw new RangeError("Unexpected anthropicTtl with a 1h variant tail after a 5m static prefix, expected lifetimes that never grow along the prompt");
  }
}

export function shapeProviderPayload(payload: unknown, context: PayloadContext): unknown {
  if (!isRecord(payload)) return payload;
  switch (context.api) {
    case "anthropic-messages":
      return shapeAnthropic(payload, context);
    case "openai-completions":
    case "openai-responses":
    case "azure-openai-responses":
    case "openai-codex-responses":
      return shapeOpenAI(payload, context);
    default:
      return payload;
  }
}

type Json = Record<string, unknown>;

function cacheControl(ttl: CacheTtl): Json {
  return ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
}

function shapeAnthropic(payload: Json, context: PayloadContext): Json {
  const staticTtl = context.options.anthropicTtl?.static ?? "5m";
  const tailTtl = context.options.anthropicTtl?.variantTail ?? (staticTtl === "1h" ? "5m" : staticTtl);
  const system = payload["system"];
  if (Array.isArray(system)) {
    const at = system.findIndex((block) => isRecord(block) && block["type"] === "text" && block["text"] === context.systemPrompt);
    if (at >= 0) {
      const blocks = context.blocks.map((block): Json => ({
        type: "text",
        text: block.text,
        ...(block.breakpoint ? { cache_control: cacheControl(block.name === "variant-tail" ? tailTtl : staticTtl) } : {}),
      }));
      // Any other system block (an identity line some credentials require) keeps its text but not a breakpoint.
      const others = system.map((block) => (isRecord(block) ? withoutCacheControl(block) : block));
      payload["system"] = [...others.slice(0, at), ...blocks, ...others.slice(at + 1)];
    }
  }
  const tools = payload["tools"];
  if (Array.isArray(tools) && tools.length > 0) {
    const last = toolsBreakpoint(tools, context.stableTools);
    payload["tools"] = tools.map((tool, index) => (isRecord(tool) ? (index === last ? { ...withoutCacheControl(tool), cache_control: cacheControl(staticTtl) } : withoutCacheControl(tool)) : tool));
  }
  keepNewestMessageBreakpoint(payload);
  return payload;
}

/**
 * Where the tools' breakpoint goes: at the end of the plan's `tools` block,
 * the last of tools.json's tools when the request's tools begin with them in
 * order. The tools after them (namespaces sent from the start or loaded
 * since, Pi's deferred placeholder) stay in the cached prefix, covered by
 * the static prefix's breakpoint, so a variant without them reads the entry
 * a variant with them wrote, and the other way round. A list that does not
 * begin with tools.json's tools (changed by a hook before this one) is marked
 * on its last tool the model can call now; an empty stable set, on none.
 */
function toolsBreakpoint(tools: readonly unknown[], stableTools: readonly string[]): number {
  if (stableTools.length === 0) return -1;
  // Names compare without case: pi-ai sends some tools under Claude Code's spelling on OAuth credentials ("read" as "Read").
  const leading = stableTools.every((name, index) => {
    const tool = tools[index];
    return isRecord(tool) && typeof tool["name"] === "string" && tool["name"].toLowerCase() === name.toLowerCase();
  });
  if (leading) return stableTools.length - 1;
  return tools.findLastIndex((tool) => isRecord(tool) && tool["defer_loading"] !== true);
}

/**
 * pi-ai marks the newest user message. Within the 4-breakpoint limit that
 * mark stays, with a lifetime of 5 minutes whatever pi-ai's retention (its
 * `PI_CACHE_RETENTION` environment variable would make it 1h): it comes last,
 * and Anthropic refuses a longer lifetime after a shorter one, so a server's
 * environment never changes the request. Any older mark in the history goes.
 */
function keepNewestMessageBreakpoint(payload: Json): void {
  const messages = payload["messages"];
  if (!Array.isArray(messages)) return;
  let used = countBreakpoints(payload["tools"]) + countBreakpoints(payload["system"]);
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (!isRecord(message) || !Array.isArray(message["content"])) continue;
    message["content"] = message["content"].map((part: unknown) => {
      if (!isRecord(part) || part["cache_control"] === undefined) return part;
      if (used < MAX_BREAKPOINTS) {
        used++;
        return { ...part, cache_control: cacheControl("5m") };
      }
      return withoutCacheControl(part);
    });
  }
}

function countBreakpoints(list: unknown): number {
  return Array.isArray(list) ? list.filter((item) => isRecord(item) && item["cache_control"] !== undefined).length : 0;
}

function withoutCacheControl(block: Json): Json {
  if (block["cache_control"] === undefined) return block;
  const { cache_control: _dropped, ...rest } = block;
  return rest;
}

function shapeOpenAI(payload: Json, context: PayloadContext): Json {
  if (context.promptCacheKey === undefined) delete payload["prompt_cache_key"];
  else payload["prompt_cache_key"] = context.promptCacheKey;
  const longRetention = context.options.longRetention === true && (context.options.longRetentionModels ?? supportsLongRetention)(context.modelId);
  delete payload["prompt_cache_retention"];
  if (context.explicitPromptCacheMode === true) {
    // Pi's own `prompt_cache_options` (e.g. `{ mode: "explicit" }` for cacheRetention "none") stays unless a ttl is asked for.
    const options = isRecord(payload["prompt_cache_options"]) ? withoutKey(payload["prompt_cache_options"], "ttl") : {};
    const next = longRetention ? { ...options, ttl: EXPLICIT_MODE_LONG_TTL } : options;
    if (Object.keys(next).length > 0) payload["prompt_cache_options"] = next;
    else delete payload["prompt_cache_options"];
  } else if (longRetention) payload["prompt_cache_retention"] = "24h";
  if (context.options.explicitBreakpoints === true) markExplicitBreakpoints(payload, context);
  return payload;
}

/** The system message's text split at the plan's boundaries, each breakpoint block marked. */
function markExplicitBreakpoints(payload: Json, context: PayloadContext): void {
  const responses = context.api !== "openai-completions";
  const list = payload[responses ? "input" : "messages"];
  if (!Array.isArray(list)) return;
  const at = list.findIndex((item) => isRecord(item) && (item["role"] === "system" || item["role"] === "developer") && item["content"] === context.systemPrompt);
  const message = list[at] as Json | undefined;
  if (message === undefined) return;
  message["content"] = context.blocks.map((block) => ({
    type: responses ? "input_text" : "text",
    text: block.text,
    ...(block.breakpoint ? { prompt_cache_breakpoint: { mode: "explicit" } } : {}),
  }));
}

function withoutKey(record: Json, key: string): Json {
  return Object.fromEntries(Object.entries(record).filter(([name]) => name !== key));
}

