import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { systemBlocks } from "../../src/runtime/cache-plan.js";
import { promptCacheKeys } from "../../src/runtime/prompt-cache.js";
import { MemoryStateStore } from "../../src/runtime/state.js";
import { docPage } from "../helpers/docs.js";
import { repoDist } from "../runtime/helpers/dist.js";
import { breakpointPaths, runConversation, withoutMarks, type RuntimePath } from "./helpers.js";
import { startWireServer, type RecordedRequest, type WireProtocol, type WireServer } from "./server.js";

const artifacts = loadArtifacts({ distDir: repoDist });
const plan = artifacts.cachePlan;
const PATHS: RuntimePath[] = ["agent", "session"];
const OPENAI: WireProtocol[] = ["openai-completions", "openai-responses"];

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());

async function conversation(path: RuntimePath, protocol: WireProtocol, variant: string, extra: Partial<Parameters<typeof runConversation>[0]> = {}) {
  const from = server.requests.length;
  const run = await runConversation({ path, protocol, server, artifacts, variant, ...extra });
  run.dispose();
  return { controller: run.controller, requests: server.requests.slice(from) };
}

/** The conversation part of a request: Anthropic and Completions `messages`, Responses `input`. */
function history(request: RecordedRequest): unknown[] {
  return (withoutMarks(request.body[request.protocol === "openai-responses" ? "input" : "messages"]) as unknown[]) ?? [];
}

function expectAppendOnly(requests: RecordedRequest[]): void {
  for (let index = 1; index < requests.length; index++) {
    const before = history(requests[index - 1] as RecordedRequest);
    const after = history(requests[index] as RecordedRequest);
    expect(after.length).toBeGreaterThan(before.length);
    expect(after.slice(0, before.length)).toEqual(before);
    // Byte-identical tools and system on every call.
    expect(JSON.stringify(requests[index]?.body["tools"])).toBe(JSON.stringify(requests[0]?.body["tools"]));
    expect(JSON.stringify(requests[index]?.body["system"])).toBe(JSON.stringify(requests[0]?.body["system"]));
  }
}

describe.each(PATHS)("anthropic-messages on the %s path", (path) => {
  it.each(Object.keys(artifacts.manifest.variants))("sends %s's system prompt as the plan's blocks with breakpoints at tools, static prefix, variant tail and newest message", async (variant) => {
    const { requests } = await conversation(path, "anthropic-messages", variant);
    expect(requests).toHaveLength(4);
    const blocks = systemBlocks(plan, variant, artifacts.variants[variant] ?? "");
    for (const request of requests) {
      expect(request.body["system"]).toEqual(blocks.map((block) => ({ type: "text", text: block.text, cache_control: { type: "ephemeral" } })));
      const tools = request.body["tools"] as unknown[];
      const messages = request.body["messages"] as Array<{ content: unknown[] }>;
      const last = messages.length - 1;
      expect(breakpointPaths(request.body)).toEqual([
        `tools[${tools.length - 1}]`,
        ...blocks.map((_block, index) => `system[${index}]`),
        `messages[${last}].content[${(messages[last]?.content.length ?? 1) - 1}]`,
      ]);
      expect(breakpointPaths(request.body).length).toBeLessThanOrEqual(4);
    }
    expectAppendOnly(requests);
  });
});

describe.each(PATHS)("OpenAI protocols on the %s path", (path) => {
  it.each(OPENAI)("%s: the session's prompt_cache_key on every request, the variant's exact bytes as the system message, append-only", async (protocol) => {
    const store = new MemoryStateStore();
    const { controller, requests } = await conversation(path, protocol, "deck-generation", { store });
    expect(requests).toHaveLength(4);
    const key = promptCacheKeys.perSession({ variant: "deck-generation", sessionKey: controller.sessionKey, prefixCacheKey: artifacts.manifest.staticPrefix.cacheKey });
    expect(key.length).toBeLessThanOrEqual(64);
    for (const request of requests) {
      expect(request.body["prompt_cache_key"]).toBe(key);
      expect(request.body["prompt_cache_retention"]).toBeUndefined();
      expect(history(request)[0]).toEqual({ role: "developer", content: artifacts.variants["deck-generation"] });
    }
    expectAppendOnly(requests);
    // A restart restores the session from its store: the same key.
    const restored = await conversation(path, protocol, "deck-generation", { store, firstCallOnly: true });
    expect(restored.requests[0]?.body["prompt_cache_key"]).toBe(key);
  });
});

describe("the two paths", () => {
  it.each(["anthropic-messages", ...OPENAI] as WireProtocol[])("%s: send the same requests for the same host settings (thinking included)", async (protocol) => {
    const agent = await conversation("agent", protocol, "deck-generation");
    const session = await conversation("session", protocol, "deck-generation");
    const comparable = (request: RecordedRequest) => ({ ...request.body, prompt_cache_key: "(per session)" });
    expect(session.requests.map(comparable)).toEqual(agent.requests.map(comparable));
    if (protocol === "anthropic-messages") expect(agent.requests[0]?.body["thinking"]).toMatchObject({ type: "enabled" });
    else if (protocol === "openai-responses") expect(agent.requests[0]?.body["reasoning"]).toMatchObject({ effort: "medium" });
  });
});

describe("cache reuse across variants (emulated Anthropic cache)", () => {
  it("the first request of another variant reads tools + static prefix from the cache", async () => {
    const fresh = await startWireServer();
    try {
      await runConversation({ path: "agent", protocol: "anthropic-messages", server: fresh, artifacts, variant: "base", firstCallOnly: true }).then((run) => run.dispose());
      await runConversation({ path: "session", protocol: "anthropic-messages", server: fresh, artifacts, variant: "deck-generation", firstCallOnly: true }).then((run) => run.dispose());
      await runConversation({ path: "agent", protocol: "anthropic-messages", server: fresh, artifacts, variant: "import", firstCallOnly: true }).then((run) => run.dispose());
      const [base, deck, imported] = fresh.requests;
      expect(base?.cache?.read).toBe(0);
      for (const first of [deck, imported]) {
        // About 5.6k tokens: the tools and the whole static prefix (counted by the emulator on the wire JSON).
        expect(first?.cache?.read).toBeGreaterThan(5000);
        expect(first?.cache?.read).toBeLessThan(6000);
      }
    } finally {
      await fresh.close();
    }
  });
});

describe("host settings", () => {
  it("anthropic: 1h lifetime for the tools and the static prefix, 5m for the variant tail and the newest message", async () => {
    const { requests } = await conversation("agent", "anthropic-messages", "import", { firstCallOnly: true, promptCache: { anthropicTtl: { static: "1h" } } });
    const body = requests[0]?.body ?? {};
    const tools = body["tools"] as Array<Record<string, unknown>>;
    expect(tools.at(-1)?.["cache_control"]).toEqual({ type: "ephemeral", ttl: "1h" });
    expect((body["system"] as Array<Record<string, unknown>>).map((block) => block["cache_control"])).toEqual([{ type: "ephemeral", ttl: "1h" }, { type: "ephemeral" }]);
  });

  it("anthropic: the newest message's mark lives 5m whatever pi-ai's retention in the server's environment (PI_CACHE_RETENTION=long would make it 1h, after 5m marks)", async () => {
    const saved = process.env["PI_CACHE_RETENTION"];
    process.env["PI_CACHE_RETENTION"] = "long";
    try {
      for (const path of PATHS) {
        const { requests } = await conversation(path, "anthropic-messages", "import", { firstCallOnly: true });
        const body = requests[0]?.body ?? {};
        const messages = body["messages"] as Array<{ content: Array<Record<string, unknown>> }>;
        expect(messages.at(-1)?.content.at(-1)?.["cache_control"]).toEqual({ type: "ephemeral" });
        expect((body["system"] as Array<Record<string, unknown>>).map((block) => block["cache_control"])).toEqual([{ type: "ephemeral" }, { type: "ephemeral" }]);
      }
    } finally {
      if (saved === undefined) delete process.env["PI_CACHE_RETENTION"];
      else process.env["PI_CACHE_RETENTION"] = saved;
    }
  });

  it.each(OPENAI)("%s: no prompt_cache_key to a model whose pi-ai settings say the server refuses it (compat.promptCacheKeyMode: \"disabled\")", async (protocol) => {
    for (const path of PATHS) {
      const { requests } = await conversation(path, protocol, "import", { firstCallOnly: true, compat: { promptCacheKeyMode: "disabled" } });
      expect(requests[0]?.body).not.toHaveProperty("prompt_cache_key");
    }
  });

  it.each(OPENAI)("%s: long retention and explicit breakpoints at the plan's boundaries when the host asks", async (protocol) => {
    const { requests } = await conversation("session", protocol, "import", {
      firstCallOnly: true,
      promptCache: { longRetention: true, explicitBreakpoints: true, promptCacheKey: ({ variant }) => `host-${variant}` },
    });
    const body = requests[0]?.body ?? {};
    expect(body["prompt_cache_key"]).toBe("host-import");
    expect(body["prompt_cache_retention"]).toBe("24h");
    const type = protocol === "openai-responses" ? "input_text" : "text";
    const blocks = systemBlocks(plan, "import", artifacts.variants["import"] ?? "");
    expect(history(requests[0] as RecordedRequest)[0]).toEqual({
      role: "developer",
      content: blocks.map((block) => ({ type, text: block.text, prompt_cache_breakpoint: { mode: "explicit" } })),
    });
  });
});

// The caching guide shows the first request of a deck-generation session on each protocol, and the cache figure of
// a deck-generation session after a base one; this run produces both.
describe("the caching guide's first request of a deck-generation session", () => {
  const cachingGuide = docPage("docs/guide/caching-and-cost.md");
  it("is what the server receives, with long strings shortened and the tools but the last counted", async () => {
    const anthropic = await conversation("agent", "anthropic-messages", "deck-generation", { firstCallOnly: true });
    const openai = await conversation("agent", "openai-responses", "deck-generation", { firstCallOnly: true });
    const short = (value: unknown): unknown =>
      typeof value === "string" && value.length > 80
        ? `${value.slice(0, 40)}…(${Buffer.byteLength(value)} bytes)…${value.slice(-24)}`
        : Array.isArray(value)
          ? value.map(short)
          : typeof value === "object" && value !== null
            ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, short(inner)]))
            : value;
    /** The last tool with its description and schema elided; the others counted. */
    const tools = (list: Record<string, unknown>[]) => [
      `…${list.length - 1} tools…`,
      Object.fromEntries(Object.entries(list.at(-1) ?? {}).map(([key, inner]) => [key, ["description", "input_schema", "parameters"].includes(key) ? "…" : inner])),
    ];
    const pick = (body: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((key) => [key, key === "tools" ? tools(body[key] as Record<string, unknown>[]) : short(body[key])]));
    const shown = {
      "anthropic-messages": pick(anthropic.requests[0]?.body ?? {}, ["system", "tools", "messages", "thinking"]),
      "openai-responses": pick(openai.requests[0]?.body ?? {}, ["input", "prompt_cache_key", "tools", "reasoning"]),
    };
    // The key's last 16 hex digits come from the session's random key, so they differ from run to run.
    const sessionPart = (text: string) => text.replace(/("prompt_cache_key": "gp-[0-9a-f]{12}-)[0-9a-f]{16}"/, '$1…"');
    expect(sessionPart(cachingGuide.blockStartingWith('{\n  "anthropic-messages": {', "json"))).toBe(sessionPart(`${JSON.stringify(shown, null, 2)}\n`));

    const fresh = await startWireServer();
    for (const variant of ["base", "deck-generation"]) {
      await runConversation({ path: "agent", protocol: "anthropic-messages", server: fresh, artifacts, variant, firstCallOnly: true }).then((run) => run.dispose());
    }
    await fresh.close();
    const read = fresh.requests[1]?.cache?.read ?? 0;
    expect(cachingGuide.text).toContain(`the first request of a \`deck-generation\` session reads **${read.toLocaleString("en-US")} tokens** from`);
  });
});

// Models pi-ai 1.x gives newer request shapes: tool changes in place on Claude 5.x (a deferred placeholder as the
// last tool, later tools in system-role messages), tools as `additional_tools` input items and explicit
// prompt-cache options on GPT-5.6 and later.
describe.each(PATHS)("pi-ai 1.x payloads of newer models on the %s path", (path) => {
  it("claude-sonnet-5-5: the tools breakpoint stays on the last real tool, Pi's deferred placeholder after it; the plan's system blocks; append-only", async () => {
    const { requests } = await conversation(path, "anthropic-messages", "deck-generation", { modelId: "claude-sonnet-5-5" });
    expect(requests).toHaveLength(4);
    const blocks = systemBlocks(plan, "deck-generation", artifacts.variants["deck-generation"] ?? "");
    for (const request of requests) {
      const tools = request.body["tools"] as Array<Record<string, unknown>>;
      expect(tools.map((tool) => tool["name"])).toEqual([...artifacts.tools.map((tool) => tool.name), "__pi_deferred_placeholder__"]);
      expect(tools.at(-1)).toMatchObject({ defer_loading: true });
      expect(tools.at(-1)?.["cache_control"]).toBeUndefined();
      expect(request.body["system"]).toEqual(blocks.map((block) => ({ type: "text", text: block.text, cache_control: { type: "ephemeral" } })));
      // pi-ai 1.x sends system-role messages inside `messages` on these models (kept as Pi wrote them); the
      // newest breakpoint sits on the last content block there is.
      const messages = request.body["messages"] as Array<{ role: string; content: unknown[] }>;
      expect(messages.some((message) => message.role === "system")).toBe(true);
      const last = messages.findLastIndex((message) => message.content.length > 0);
      expect(breakpointPaths(request.body)).toEqual([
        `tools[${tools.length - 2}]`,
        ...blocks.map((_block, index) => `system[${index}]`),
        `messages[${last}].content[${(messages[last]?.content.length ?? 1) - 1}]`,
      ]);
    }
    expectAppendOnly(requests);
  });

  it("gpt-5.6-sol (Responses): tools as an additional_tools item, the variant's bytes as the developer message, the key on every request, retention as prompt_cache_options", async () => {
    const plain = await conversation(path, "openai-responses", "deck-generation", { modelId: "gpt-5.6-sol" });
    expect(plain.requests).toHaveLength(4);
    for (const request of plain.requests) {
      expect(request.body["tools"]).toBeUndefined();
      const [tools, developer] = history(request) as Array<Record<string, unknown>>;
      expect(tools).toMatchObject({ type: "additional_tools", role: "developer" });
      expect((tools?.["tools"] as Array<{ name: string }>).map((tool) => tool.name)).toEqual(artifacts.tools.map((tool) => tool.name));
      expect(developer).toEqual({ role: "developer", content: artifacts.variants["deck-generation"] });
      expect(request.body["prompt_cache_key"]).toMatch(/^gp-[0-9a-f]{12}-[0-9a-f]{16}$/);
      expect(request.body["prompt_cache_key"]).toBe(plain.requests[0]?.body["prompt_cache_key"]);
      expect(request.body["prompt_cache_retention"]).toBeUndefined();
      expect(request.body["prompt_cache_options"]).toBeUndefined();
    }
    expectAppendOnly(plain.requests);
    const long = await conversation(path, "openai-responses", "deck-generation", { modelId: "gpt-5.6-sol", firstCallOnly: true, promptCache: { longRetention: true } });
    expect(long.requests[0]?.body["prompt_cache_options"]).toEqual({ ttl: "30m" });
    expect(long.requests[0]?.body["prompt_cache_retention"]).toBeUndefined();
  });
});
