/**
 * Cassettes: a run's model replies as recorded, one JSON file per run
 * (`<scenario folder>/cassettes/<scenario>/<run>.json`), replayed through
 * pi-ai's faux provider so CI evaluates without a key or a network.
 *
 * Each recorded call keeps the fingerprint of the context it was made on:
 * sha256 over the digests of the system prompt and the tools, and the messages, with the parts
 * that vary between identical runs left out (timestamps, usage, provider
 * metadata, signatures). A replay whose context differs at some call is
 * stale (the prompt, tools, scenario or runtime changed since recording),
 * and it is reported at that call instead of answering with a reply meant
 * for another question.
 */
import { messageOf } from "../protocol/error-message.js";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { canonicalJson, sortKeysDeep } from "../pipeline/emit/canonical-json.js";
import { readRegularFile } from "../protocol/regular-file.js";
import { jsonSyntaxErrorAt } from "../pipeline/parse/json-error-offset.js";
import type { ModelContext, ModelReply, ScriptedReply } from "./pi-models.js";

export const CASSETTE_FORMAT = "gamma-prompt/eval-cassette@1";

export interface CassetteCall {
  /** sha256 of the call's normalised context. */
  context: string;
  reply: ScriptedReply;
}

export interface Cassette {
  format: typeof CASSETTE_FORMAT;
  scenario: string;
  run: number;
  /** `provider/id` of the model that answered. */
  model: string;
  /** The static prefix's cache key of the dist/ it was recorded on. */
  cacheKey: string;
  calls: CassetteCall[];
}

/**
 * The fingerprint of what a model call carries, stable between identical
 * runs: the prompt and tools of the transcript's leading system message,
 * then every later message (a later system message with its tool changes
 * included). The prompt and the tools are the same on every call of a
 * run, so their digests are kept; object keys are sorted (a provider's
 * reply and its cassette copy may order them differently).
 */
export function contextFingerprint(context: ModelContext): string {
  const messages = context.messages.map((message) => {
    switch (message.role) {
      case "user":
        return { role: "user", content: typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content };
      case "assistant":
        return { role: "assistant", content: replyContent(message.content) };
      case "toolResult":
        return { role: "toolResult", toolCallId: message.toolCallId, toolName: message.toolName, isError: message.isError, content: message.content };
      case "system":
        // A later system message of the transcript: added instructions and tool changes, where they happen.
        return {
          role: "system",
          content: typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content,
          sections: message.sections ?? {},
          toolsAdded: (message.toolsAdded ?? []).map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
          toolsRemoved: (message.toolsRemoved ?? []).map((tool) => tool.name),
        };
    }
  });
  return sha256(`${promptDigest(context.systemPrompt ?? "")}\n${toolsDigest(context.tools ?? [])}\n${JSON.stringify(sortKeysDeep(messages))}`);
}

const promptDigests = new Map<string, string>();
const toolDigests = new WeakMap<object, string>();

function promptDigest(systemPrompt: string): string {
  let digest = promptDigests.get(systemPrompt);
  if (digest === undefined) {
    digest = sha256(systemPrompt);
    if (promptDigests.size > 64) promptDigests.clear();
    promptDigests.set(systemPrompt, digest);
  }
  return digest;
}

function toolsDigest(tools: NonNullable<ModelContext["tools"]>): string {
  let digest = toolDigests.get(tools);
  if (digest === undefined) {
    digest = sha256(JSON.stringify(sortKeysDeep(tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })))));
    toolDigests.set(tools, digest);
  }
  return digest;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The reply as a cassette keeps it: content (without provider signatures) and how it stopped. */
export function cassetteReply(reply: ModelReply): ScriptedReply {
  return {
    content: replyContent(reply.content) as unknown as ScriptedReply["content"],
    stopReason: reply.stopReason,
    ...(reply.errorMessage === undefined ? {} : { errorMessage: reply.errorMessage }),
    ...(reply.stopReason === "error" && modelStopped(reply) ? { rawStopReason: reply.rawStopReason } : {}),
  };
}

function replyContent(content: ModelReply["content"]): Array<Record<string, unknown>> {
  return content.map((part) => {
    switch (part.type) {
      case "text":
        return { type: "text", text: part.text };
      case "thinking":
        return { type: "thinking", thinking: part.thinking };
      case "toolCall":
        return { type: "toolCall", id: part.id, name: part.name, arguments: part.arguments };
    }
  });
}

/**
 * A reply that is a failed call, not the model's answer: a provider or connection error, or an aborted
 * request. An `error` stop the model made is its answer: a refusal, a safety or content filter (pi-ai maps
 * them to `error` and keeps the provider's reason, as `refusal`, `sensitive`, `content_filter`, `SAFETY`).
 * Counted as no reply, a prompt that makes the model refuse would leave every such run out of the pass rate.
 */
export function isFailedReply(reply: Pick<ScriptedReply, "stopReason" | "rawStopReason">): boolean {
  return reply.stopReason === "aborted" || (reply.stopReason === "error" && !modelStopped(reply));
}

/**
 * The providers' stop reasons for content the model would not give: Anthropic's `refusal` and `sensitive`,
 * OpenAI's `content_filter` (Chat Completions; Responses as `incomplete.content_filter`), Bedrock's
 * `guardrail_intervened` and `content_filtered`, Google's safety and recitation stops. A failed or cancelled
 * response, or one cut by the network, is the provider's failure, not the model's answer.
 */
const MODEL_STOPS: ReadonlySet<string> = new Set(["refusal", "sensitive", "content_filter", "content_filtered", "guardrail_intervened", "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"]);

/** Whether an `error` stop was the model's own: the provider ended the stream for what the model wrote. */
function modelStopped(reply: Pick<ScriptedReply, "rawStopReason">): boolean {
  return typeof reply.rawStopReason === "string" && MODEL_STOPS.has(reply.rawStopReason.slice(reply.rawStopReason.lastIndexOf(".") + 1));
}

/** Why a cassette cannot stand for a run: the first call it holds that is a failed call (written by an earlier version, or by hand). */
export function failedCallProblem(cassette: Cassette): string | undefined {
  const index = cassette.calls.findIndex((call) => isFailedReply(call.reply));
  if (index === -1) return undefined;
  const reply = cassette.calls[index]?.reply;
  return `model call ${index + 1} is recorded as a failed call (${reply?.stopReason}${reply?.errorMessage === undefined ? "" : `: ${reply.errorMessage}`}), not as the model's reply`;
}

/** The cassette files of one scenario, by run number (1, 2, …). */
export function cassettePath(cassetteDir: string, run: number): string {
  return join(cassetteDir, `${run}.json`);
}

/**
 * Replaces a scenario's cassettes with these as one step: the new set is
 * written whole into a staging folder beside the scenario's folder (same
 * filesystem), which then takes the old folder's place by rename. A failure
 * while staging leaves the old cassettes as they were; a process killed
 * between the two renames leaves them whole in the `.<scenario>.old-…` folder,
 * where the next replay or recording takes them back from.
 */
export function writeCassettes(cassetteDir: string, cassettes: readonly Cassette[]): void {
  const parent = dirname(cassetteDir);
  mkdirSync(parent, { recursive: true });
  restoreInterruptedSwap(cassetteDir);
  const suffix = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const staging = join(parent, `.${basename(cassetteDir)}.new-${suffix}`);
  const old = join(parent, `.${basename(cassetteDir)}.old-${suffix}`);
  try {
    mkdirSync(staging);
    for (const cassette of cassettes) writeFileSync(cassettePath(staging, cassette.run), canonicalJson(cassette));
    // Whatever else the folder holds (notes beside the cassettes) stays.
    for (const name of existingEntries(cassetteDir)) if (!/^\d+\.json$/.test(name)) cpSync(join(cassetteDir, name), join(staging, name), { recursive: true });
    let kept = false;
    try {
      renameSync(cassetteDir, old);
      kept = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    try {
      renameSync(staging, cassetteDir);
    } catch (error) {
      if (kept) renameSync(old, cassetteDir);
      throw error;
    }
    if (kept) rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Why a recording could not replace the cassettes in `cassetteDir`, found
 * before the first model call (a run is paid for): the folder beside it is
 * made if need be, and a staging folder made and removed there, as the
 * write does. Undefined when it can.
 */
export function cassetteWriteProblem(cassetteDir: string): string | undefined {
  const parent = dirname(cassetteDir);
  const probe = join(parent, `.${basename(cassetteDir)}.probe-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    mkdirSync(parent, { recursive: true });
    mkdirSync(probe);
    rmSync(probe, { recursive: true, force: true });
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? messageOf(error);
  }
}

/**
 * A scenario whose folder is gone while a `.<scenario>.old-…` folder beside it
 * holds its cassettes: a recording was killed between its two renames. The
 * old set is put back (the newest one, should there be several).
 */
export function restoreInterruptedSwap(cassetteDir: string): void {
  if (existsSync(cassetteDir)) return;
  const prefix = `.${basename(cassetteDir)}.old-`;
  const parent = dirname(cassetteDir);
  const left = existingEntries(parent)
    .filter((name) => name.startsWith(prefix))
    .map((name) => ({ path: join(parent, name), modified: statSync(join(parent, name)).mtimeMs }))
    .sort((a, b) => b.modified - a.modified || (a.path < b.path ? 1 : -1));
  if (left[0] !== undefined) renameSync(left[0].path, cassetteDir);
}

function existingEntries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

export type CassetteRead = { kind: "cassette"; cassette: Cassette } | { kind: "missing" } | { kind: "invalid"; problem: string };

/** Reads one cassette; anything that is not a cassette of this format is `invalid` with the reason. */
export function readCassette(path: string): CassetteRead {
  const read = readRegularFile(path, { maxBytes: 64 * 1024 * 1024 });
  if (read.kind === "missing") return { kind: "missing" };
  if (read.kind !== "file") return { kind: "invalid", problem: read.kind === "not-a-file" ? `a ${read.what}, not a file` : read.kind === "too-large" ? `${read.size} bytes` : read.code };
  const text = read.bytes.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: "invalid", problem: `not JSON (${jsonSyntaxErrorAt(text, error)})` };
  }
  const cassette = value as Partial<Cassette> | null;
  if (typeof cassette !== "object" || cassette === null || cassette.format !== CASSETTE_FORMAT) return { kind: "invalid", problem: `expected "format": "${CASSETTE_FORMAT}"` };
  if (typeof cassette.model !== "string" || !cassette.model.includes("/") || typeof cassette.cacheKey !== "string" || !Array.isArray(cassette.calls)) {
    return { kind: "invalid", problem: "expected model, cacheKey and calls" };
  }
  for (const call of cassette.calls as unknown[]) {
    const entry = call as Partial<CassetteCall> | null;
    if (typeof entry !== "object" || entry === null || typeof entry.context !== "string" || typeof entry.reply !== "object" || entry.reply === null || !Array.isArray(entry.reply.content)) {
      return { kind: "invalid", problem: "expected every call to have a context fingerprint and a reply with content" };
    }
  }
  return { kind: "cassette", cassette: cassette as Cassette };
}
