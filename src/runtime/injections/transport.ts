/**
 * Trusted transport. A platform event travels as a Pi custom message whose
 * private `details` say it is trusted; the runtime's converter turns it into
 * a user-role message for the provider (Pi never sends `details`). Plain user
 * text is never parsed into one of these: trust comes only from the object
 * the runtime built, and reserved tags inside user text are neutralised
 * before the model sees them.
 */
import type { InjectionKindArtifact } from "../../protocol/dist-manifest.js";
import { neutraliseReservedTags } from "./neutralise.js";
import { renderInjection } from "./render.js";
import type { RuntimeInjection, TrustedInjectionDetails, TrustedInjectionMessage, TrustedInjectionType } from "./types.js";
import { INJECTION_KINDS } from "./types.js";
import { isRecord } from "../../protocol/records.js";
import { createTrustedMessage, GAMMA_CUSTOM_TYPE_PREFIX, isRuntimeCustomMessage, KNOWLEDGE_HINTS_KIND } from "../messages.js";
import { isImagePart, isPlainTextPart, readablePartText } from "./content-parts.js";

export const INJECTION_CUSTOM_TYPE_PREFIX = GAMMA_CUSTOM_TYPE_PREFIX;

const TRUSTED_TYPES: ReadonlySet<string> = new Set<TrustedInjectionType>([...INJECTION_KINDS, KNOWLEDGE_HINTS_KIND]);

export interface TrustedMessageOptions {
  /** The message timestamp (Pi orders nothing by it); defaults to the clock. */
  timestamp?: number;
}

export function createTrustedInjectionMessage(
  injection: RuntimeInjection,
  kinds: readonly InjectionKindArtifact[],
  options: TrustedMessageOptions = {},
): TrustedInjectionMessage {
  const details: Omit<TrustedInjectionDetails, "trusted"> = {
    gammaInjection: true,
    injectionType: injection.kind,
    injectionId: injection.id,
    occurredAt: injection.occurredAt,
    ...(injection.dedupeKey === undefined ? {} : { dedupeKey: injection.dedupeKey }),
  };
  const message = createTrustedMessage({
    kind: injection.kind,
    content: renderInjection(injection, kinds),
    details,
    ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
  });
  // createTrustedMessage writes `gamma.<kind>`, `display: false` and these details with `trusted: true`: the narrower type holds.
  return message as TrustedInjectionMessage;
}

/** True only for a message the runtime built with createTrustedInjectionMessage (or restored from its session). */
export function isTrustedInjectionMessage(message: unknown): message is TrustedInjectionMessage {
  if (!isRecord(message) || message["role"] !== "custom" || typeof message["content"] !== "string") return false;
  const details = message["details"];
  if (!isRecord(details) || details["trusted"] !== true || details["gammaInjection"] !== true) return false;
  const type = details["injectionType"];
  return typeof type === "string" && TRUSTED_TYPES.has(type) && message["customType"] === `${INJECTION_CUSTOM_TYPE_PREFIX}${type}`;
}

export interface PrepareOptions {
  /**
   * Custom message types the runtime itself writes (e.g. its context anchor);
   * a message of one of them passes unchanged only when it also carries the
   * runtime's trusted `details` (as injections must): anything that can pick
   * a custom type (an extension's sendMessage, a host relaying messages) could
   * pick these. Any other custom message is treated like user text.
   */
  trustedCustomTypes?: ReadonlySet<string>;
  /**
   * Tool results the runtime itself writes from trusted material (a skill
   * tool result carrying compiled skill bodies). It decides per message, not
   * per tool name: Pi's own errors for a tool (a failed validation that echoes
   * the model's arguments) carry that tool's name too. Every other tool result
   * comes from a host executor (a file read, a shell run, a subagent's output,
   * a fetched page) or echoes the model, and is treated like user text.
   */
  isTrustedToolResult?: (message: Readonly<Record<string, unknown>>) => boolean;
}

/**
 * The step the runtime's converter runs before mapping messages for the
 * provider: every untrusted channel (user text, host tool results, summaries,
 * `!command` runs, custom messages the runtime did not write) with reserved
 * tags neutralised; trusted injections and the runtime's own messages untouched.
 * Returns the same array when nothing changed; never mutates its input.
 */
export function prepareMessagesForModel<M extends { role: string }>(messages: M[], options: PrepareOptions = {}): M[] {
  let changed = false;
  const prepared = messages.map((message) => {
    const next = prepareMessage(message, options);
    if (next !== message) changed = true;
    return next;
  });
  return changed ? prepared : messages;
}

/**
 * pi-coding-agent's own roles that its converter turns into user text. A
 * compaction or branch summary is written from raw user text (the summariser
 * never sees this step), and a `!command` is the user's own input and output.
 */
const USER_TEXT_FIELDS: ReadonlyMap<string, readonly string[]> = new Map([
  ["compactionSummary", ["summary"]],
  ["branchSummary", ["summary"]],
  ["bashExecution", ["command", "output"]],
]);

function prepareMessage<M extends { role: string }>(message: M, options: PrepareOptions): M {
  if (message.role === "user") return withNeutralisedContent(message);
  if (message.role === "toolResult") {
    if (options.isTrustedToolResult?.(message as unknown as Record<string, unknown>) === true) return message;
    return withNeutralisedContent(message);
  }
  const fields = USER_TEXT_FIELDS.get(message.role);
  if (fields !== undefined) return withNeutralisedFields(message, fields);
  if (message.role !== "custom") return message;
  if (isTrustedInjectionMessage(message)) return message;
  const customType = (message as { customType?: unknown }).customType;
  if (typeof customType === "string" && options.trustedCustomTypes?.has(customType) && isRuntimeCustomMessage(message)) return message;
  return withNeutralisedContent(message);
}

function withNeutralisedContent<M extends { role: string }>(message: M): M {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") {
    const text = neutraliseReservedTags(content);
    return text === content ? message : { ...message, content: text };
  }
  if (!Array.isArray(content)) return message;
  let changed = false;
  const parts = content.map((part: unknown) => {
    if (isImagePart(part)) return part;
    if (!isPlainTextPart(part)) {
      // Fail closed: a part the provider might send as text goes as plain, neutralised text.
      changed = true;
      return { type: "text", text: neutraliseReservedTags(readablePartText(part)) };
    }
    const text = neutraliseReservedTags(part.text);
    if (text === part.text) return part;
    changed = true;
    return { ...part, text };
  });
  return changed ? { ...message, content: parts } : message;
}

function withNeutralisedFields<M extends { role: string }>(message: M, fields: readonly string[]): M {
  const record = message as unknown as Record<string, unknown>;
  let next: Record<string, unknown> | undefined;
  for (const field of fields) {
    const value = record[field];
    if (typeof value !== "string") continue;
    const text = neutraliseReservedTags(value);
    if (text !== value) (next ??= { ...record })[field] = text;
  }
  return next === undefined ? message : (next as unknown as M);
}

