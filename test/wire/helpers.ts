/**
 * Drives the real runtime, on either path, through pi-ai's real provider
 * clients pointed at the loopback server: a multi-turn run with tool calls,
 * a progress message, a steered injection, a message_user yield, and a
 * next-turn injection with the user's following prompt.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createProvider, type Api, type Model, type Provider } from "@earendil-works/pi-ai";
import { getModel, getModels, streamSimple } from "@earendil-works/pi-ai/compat";
import { ModelRuntime, SessionManager } from "@earendil-works/pi-coding-agent";
import type { LoadedArtifacts } from "../../src/runtime/artifacts.js";
import type { SessionProtocolController } from "../../src/runtime/controller.js";
import { createGammaAgent, createGammaSession } from "../../src/runtime/pi-adapter.js";
import type { PromptCacheOptions } from "../../src/runtime/prompt-cache.js";
import type { StateStore } from "../../src/runtime/state.js";
import { event } from "../injections/helpers/fixtures.js";
import { tempDir } from "../runtime/helpers/dist.js";
import { recordingExecutors } from "../runtime/helpers/pi.js";
import type { ScriptedTurn, WireProtocol, WireServer } from "./server.js";

export type RuntimePath = "agent" | "session";

export const FAKE_KEY = "sk-wire-test";

/** A real pi-ai model definition (by default Claude Sonnet 4.5 or GPT-5) with its base URL moved to the loopback server. */
export function wireModel(protocol: WireProtocol, server: WireServer, modelId?: string): Model<Api> {
  if (protocol === "anthropic-messages") return { ...getModel("anthropic", (modelId ?? "claude-sonnet-4-5") as "claude-sonnet-4-5"), baseUrl: server.url };
  const gpt = getModel("openai", (modelId ?? "gpt-5") as "gpt-5");
  return { ...gpt, api: protocol, baseUrl: `${server.url}/v1` } as Model<Api>;
}

/**
 * The session path's provider for `model.provider`: pi-ai's real clients chosen by `model.api`, as on the
 * low-level path (the ModelRuntime's own OpenAI provider speaks Responses only, whatever `api` the model says).
 */
function loopbackProvider(id: string): Provider {
  return createProvider({
    id,
    auth: { apiKey: { name: "Loopback key", resolve: async ({ credential }) => (credential?.key === undefined ? undefined : { auth: { apiKey: credential.key } }) } },
    models: getModels(id as Parameters<typeof getModels>[0]),
    api: { stream: streamSimple, streamSimple },
  });
}

/** The Pi half of createGammaSession's options for a model on the loopback server: a temp cwd, a keyed ModelRuntime, an in-memory session. */
export async function loopbackSessionSetup(model: Model<Api>) {
  const cwd = tempDir("gamma-wire-");
  const agentDir = join(cwd, ".pi-agent");
  mkdirSync(agentDir);
  const modelRuntime = await ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false });
  modelRuntime.registerNativeProvider(loopbackProvider(model.provider));
  await modelRuntime.setRuntimeApiKey(model.provider, FAKE_KEY);
  return { cwd, agentDir, sessionManager: SessionManager.inMemory(cwd), modelRuntime };
}

/** The model's answers for the run below: four model calls over two user turns. */
export const SCRIPT: ScriptedTurn[] = [
  {
    text: "Loading the workflow.",
    toolCalls: [
      { name: "skill", arguments: { name: "gml-editing" } },
      { name: "message_user", arguments: { message: "On it.", blockOnUser: false } },
    ],
  },
  { toolCalls: [{ name: "read", arguments: { path: "q3/brief.xml" } }] },
  { toolCalls: [{ name: "message_user", arguments: { message: "Which audience?", blockOnUser: true } }] },
  { text: "Done: the quiz card is in." },
];

export interface RunOptions {
  path: RuntimePath;
  protocol: WireProtocol;
  server: WireServer;
  artifacts: LoadedArtifacts;
  variant: string;
  store?: StateStore;
  promptCache?: PromptCacheOptions;
  /** Only the first model call (e.g. the first request of a new session). */
  firstCallOnly?: boolean;
  /** pi-ai's model id; default {@link wireModel}'s. */
  modelId?: string;
  /** pi-ai's model settings over the model's own (`compat`). */
  compat?: Record<string, unknown>;
}

export interface RunResult {
  controller: SessionProtocolController;
  dispose(): void;
}

export async function runConversation(options: RunOptions): Promise<RunResult> {
  const { server } = options;
  server.script(options.firstCallOnly ? [{ text: "Hello." }] : SCRIPT);
  let controller: SessionProtocolController | undefined;
  const executors = {
    ...recordingExecutors(),
    // The user saves the brief while the agent reads it: a steered injection after this batch.
    read: async () => {
      controller?.routeUpdate(event({ id: "evt_brief_saved", occurredAt: "2026-03-01T10:00:00Z", kind: "artifact_update", delivery: "steer", summary: "The user saved brief.xml.", subject: { path: "q3/brief.xml", revision: "r2" }, origin: { actor: "user" } }));
      return { content: [{ type: "text" as const, text: "<brief>r1</brief>" }] };
    },
  };
  const wired = wireModel(options.protocol, server, options.modelId);
  const model = options.compat === undefined ? wired : ({ ...wired, compat: { ...(wired.compat as object | undefined), ...options.compat } } as typeof wired);
  const common = {
    artifacts: options.artifacts,
    variant: options.variant as never,
    model,
    executors,
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.promptCache === undefined ? {} : { promptCache: options.promptCache }),
  };
  const clientView = () => event({ id: "evt_card_view", occurredAt: "2026-03-01T10:01:00Z", kind: "client_view", delivery: "next_turn", summary: "The user opened card 4.", subject: { ref: "gamma:card:4" } });
  if (options.path === "agent") {
    const gamma = createGammaAgent({ ...common, getApiKey: () => FAKE_KEY });
    controller = gamma.controller;
    await gamma.agent.prompt(controller.buildTurnMessages({ text: "Make the deck shorter." }));
    if (!options.firstCallOnly) {
      controller.routeUpdate(clientView());
      await gamma.agent.prompt(controller.buildTurnMessages({ text: "Add a quiz card." }));
    }
    return { controller, dispose: gamma.dispose };
  }
  const gamma = await createGammaSession({ ...common, ...(await loopbackSessionSetup(model)) });
  controller = gamma.controller;
  await gamma.session.prompt("Make the deck shorter.");
  if (!options.firstCallOnly) {
    controller.routeUpdate(clientView());
    await gamma.session.prompt("Add a quiz card.");
  }
  return { controller, dispose: gamma.dispose };
}

/** A deep copy without any `cache_control` mark (they move to the newest message on every call). */
export function withoutMarks(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMarks);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).filter(([key]) => key !== "cache_control").map(([key, inner]) => [key, withoutMarks(inner)]));
  }
  return value;
}

/** Where an Anthropic request carries `cache_control`, as paths like `tools[9]`, `system[1]`, `messages[4].content[0]`. */
export function breakpointPaths(body: Record<string, unknown>): string[] {
  const paths: string[] = [];
  const scan = (list: unknown, name: string) => {
    (Array.isArray(list) ? list : []).forEach((item: Record<string, unknown>, index) => {
      if (item["cache_control"] !== undefined) paths.push(`${name}[${index}]`);
      if (Array.isArray(item["content"])) scan(item["content"], `${name}[${index}].content`);
    });
  };
  scan(body["tools"], "tools");
  scan(body["system"], "system");
  scan(body["messages"], "messages");
  return paths;
}
