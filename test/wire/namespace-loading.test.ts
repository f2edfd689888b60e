import { afterEach, describe, expect, it } from "vitest";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { createGammaAgent, createGammaSession, toolAdditionsInPlace } from "../../src/runtime/pi-adapter.js";
import type { ConnectorDefinition } from "../../src/runtime/connectors.js";
import { docPage } from "../helpers/docs.js";
import { repoDist } from "../runtime/helpers/dist.js";
import { recordingExecutors } from "../runtime/helpers/pi.js";
import { breakpointPaths, FAKE_KEY, loopbackSessionSetup, wireModel, withoutMarks, type RuntimePath } from "./helpers.js";
import { anthropicBlockTokens, startWireServer, type RecordedRequest, type ScriptedTurn, type WireProtocol, type WireServer } from "./server.js";

// A session that loads the embedded default's `drive` namespace after its
// second model call (the drive-files workflow becomes active), through
// pi-ai 1.x's real clients against the loopback server: every request is
// append-only, the tools arrive in each protocol's native form, and the
// emulated Anthropic cache reads everything before the load point.

const artifacts = loadArtifacts({ distDir: repoDist });
const DRIVE_TOOLS = ["drive_search", "drive_list_folder", "drive_get_file", "drive_download"];
const STABLE = artifacts.tools.map((tool) => tool.name);

const NOTION_TOOLS = ["notion_search", "notion_get_page"];
/** The connector the tool namespaces guide registers. */
const NOTION_CONNECTOR = JSON.parse(docPage("docs/guide/tool-namespaces.md").blockStartingWith('{\n  "name": "notion"', "json")) as ConnectorDefinition;

const SCRIPT: ScriptedTurn[] = [
  { toolCalls: [{ name: "message_user", arguments: { message: "Looking for the file.", blockOnUser: false } }] },
  { toolCalls: [{ name: "skill", arguments: { name: "drive-files" } }] },
  { toolCalls: [{ name: "drive_search", arguments: { query: "board deck" } }] },
  { text: "Found the board deck." },
];

const servers: WireServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** One session on a fresh server (a cold emulated cache): the script above, all four requests as sent. */
async function loadAfterSecondCall(path: RuntimePath, protocol: WireProtocol, modelId: string): Promise<RecordedRequest[]> {
  const server = await startWireServer();
  servers.push(server);
  server.script(SCRIPT);
  const model = wireModel(protocol, server, modelId);
  const executors = recordingExecutors([], ["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file", ...DRIVE_TOOLS]);
  const common = { artifacts, variant: "base" as const, model, executors, knowledge: { maxHints: 0 } };
  if (path === "agent") {
    const gamma = createGammaAgent({ ...common, getApiKey: () => FAKE_KEY });
    await gamma.agent.prompt("Use the board deck from my Google Drive.");
    gamma.dispose();
  } else {
    const gamma = await createGammaSession({ ...common, ...(await loopbackSessionSetup(model)) });
    await gamma.session.prompt("Use the board deck from my Google Drive.");
    gamma.dispose();
  }
  expect(server.requests).toHaveLength(4);
  return server.requests;
}

function history(request: RecordedRequest): unknown[] {
  return (withoutMarks(request.body[request.protocol === "openai-responses" ? "input" : "messages"]) as unknown[]) ?? [];
}

/** Each request's conversation starts with the whole previous one; tools and system bytes never change. */
function expectAppendOnly(requests: readonly RecordedRequest[]): void {
  for (let index = 1; index < requests.length; index++) {
    const before = history(requests[index - 1] as RecordedRequest);
    const after = history(requests[index] as RecordedRequest);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.length).toBeGreaterThan(before.length);
    expect(JSON.stringify(requests[index]?.body["tools"])).toBe(JSON.stringify(requests[0]?.body["tools"]));
    expect(JSON.stringify(requests[index]?.body["system"])).toBe(JSON.stringify(requests[0]?.body["system"]));
  }
}

const names = (tools: unknown): string[] => (tools as Array<{ name: string }>).map((tool) => tool.name);

describe.each<RuntimePath>(["agent", "session"])("a namespace loaded after the second model call, on the %s path", (path) => {
  it("claude-sonnet-5-5 takes it in place: tool_addition blocks in a system message, append-only, and the next request reads everything before the load from the cache", async () => {
    const requests = await loadAfterSecondCall(path, "anthropic-messages", "claude-sonnet-5-5");
    expect(toolAdditionsInPlace(wireModel("anthropic-messages", servers[0] as WireServer, "claude-sonnet-5-5"))).toBe(true);
    for (const request of requests) expect(names(request.body["tools"])).toEqual([...STABLE, "__pi_deferred_placeholder__"]);
    expectAppendOnly(requests);
    const additions = (request: RecordedRequest) =>
      (request.body["messages"] as Array<{ role: string; content: Array<{ type: string; tool?: { definition?: { name: string } } }> }>)
        .flatMap((message) => (message.role === "system" ? message.content : []))
        .filter((block) => block.type === "tool_addition")
        .map((block) => block.tool?.definition?.name);
    expect(additions(requests[1] as RecordedRequest)).toEqual([]);
    expect(additions(requests[2] as RecordedRequest)).toEqual(DRIVE_TOOLS);
    expect(additions(requests[3] as RecordedRequest)).toEqual(DRIVE_TOOLS);
    // Request 2 cached everything it sent (up to its newest breakpoint); request 3, the first after the load, reads all of it.
    const before = requests[1]?.cache;
    const after = requests[2]?.cache;
    expect(before?.input).toBe(0);
    expect(after?.read).toBe((before?.read ?? 0) + (before?.written ?? 0));
    expect(after?.read).toBeGreaterThan(5000);
  });

  it("claude-sonnet-4-5 cannot: Pi sends the whole tool list again, and the request after the load reads only the tools before them", async () => {
    const requests = await loadAfterSecondCall(path, "anthropic-messages", "claude-sonnet-4-5");
    expect(toolAdditionsInPlace(wireModel("anthropic-messages", servers[0] as WireServer, "claude-sonnet-4-5"))).toBe(false);
    expect(names(requests[1]?.body["tools"])).toEqual(STABLE);
    expect(names(requests[2]?.body["tools"])).toEqual([...STABLE, ...DRIVE_TOOLS]);
    // The tools' breakpoint stays where the cache plan puts it, at the end of tools.json's tools, before and after the load.
    for (const request of requests) expect(breakpointPaths(request.body)[0]).toBe(`tools[${STABLE.length - 1}]`);
    const before = requests[1]?.cache;
    const after = requests[2]?.cache;
    const stableTokens = (requests[2]?.body["tools"] as Array<Record<string, unknown>>).slice(0, STABLE.length).reduce((sum, tool) => sum + anthropicBlockTokens(tool), 0);
    expect(after?.read).toBe(stableTokens);
    expect(after?.read).toBeLessThan((before?.read ?? 0) + (before?.written ?? 0));
    // The conversation itself stays append-only; only the tool list changed.
    expect(history(requests[2] as RecordedRequest).slice(0, history(requests[1] as RecordedRequest).length)).toEqual(history(requests[1] as RecordedRequest));
  });

  it("gpt-5.6-sol (Responses) takes it in place: one more additional_tools item, append-only, no top-level tools", async () => {
    const requests = await loadAfterSecondCall(path, "openai-responses", "gpt-5.6-sol");
    expect(toolAdditionsInPlace(wireModel("openai-responses", servers[0] as WireServer, "gpt-5.6-sol"))).toBe(true);
    expectAppendOnly(requests);
    const toolItems = (request: RecordedRequest) =>
      (history(request) as Array<Record<string, unknown>>).filter((item) => item["type"] === "additional_tools").map((item) => names(item["tools"]));
    for (const request of requests) expect(request.body["tools"]).toBeUndefined();
    expect(toolItems(requests[1] as RecordedRequest)).toEqual([STABLE]);
    expect(toolItems(requests[2] as RecordedRequest)).toEqual([STABLE, DRIVE_TOOLS]);
    expect(requests[2]?.body["prompt_cache_key"]).toBe(requests[0]?.body["prompt_cache_key"]);
  });
});

describe("a connector registered mid-run", () => {
  it("on claude-sonnet-5-5 only appends: its tools arrive as tool_addition blocks after the announcement, and the next request reads everything before from the cache", async () => {
    const server = await startWireServer();
    servers.push(server);
    server.script([{ toolCalls: [{ name: "read", arguments: { path: "notes.md" } }] }, { toolCalls: [{ name: "notion_search", arguments: { query: "Q3 plan" } }] }, { text: "Found the plan." }]);
    const model = wireModel("anthropic-messages", server, "claude-sonnet-5-5");
    const host = recordingExecutors([], ["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file"]);
    const notionCalls: string[] = [];
    const gamma = createGammaAgent({
      artifacts,
      variant: "base",
      model,
      knowledge: { maxHints: 0 },
      getApiKey: () => FAKE_KEY,
      executors: {
        ...host,
        // The host learns of the workspace's Notion while the run reads a file.
        read: async (id, params) => {
          gamma.controller.registerConnector({ ...NOTION_CONNECTOR, executors: recordingExecutors(notionCalls, NOTION_TOOLS) });
          return (host["read"] as NonNullable<(typeof host)["read"]>)(id, params);
        },
      },
    });
    await gamma.agent.prompt("Use my Notion notes for the Q3 deck.");
    gamma.dispose();
    const requests = server.requests;
    expect(requests).toHaveLength(3);
    // The embedded default declares no load_tool_namespace: the connector loads as it registers.
    expect(gamma.controller.loadedNamespaces).toEqual([{ name: "notion", loadedBy: "host" }]);
    for (const request of requests) expect(names(request.body["tools"])).toEqual([...STABLE, "__pi_deferred_placeholder__"]);
    expectAppendOnly(requests);
    const text = JSON.stringify(requests[1]?.body["messages"]);
    expect(text).toContain("Connector &quot;notion&quot; was registered and its tools are in your tool list from now on");
    const additions = (request: RecordedRequest) =>
      (request.body["messages"] as Array<{ role: string; content: Array<{ type: string; tool?: { definition?: { name: string } } }> }>)
        .flatMap((message) => (message.role === "system" ? message.content : []))
        .filter((block) => block.type === "tool_addition")
        .map((block) => block.tool?.definition?.name);
    expect(additions(requests[1] as RecordedRequest)).toEqual(NOTION_TOOLS);
    expect(notionCalls).toEqual(["notion_search"]);
    const before = requests[0]?.cache;
    const after = requests[1]?.cache;
    expect(after?.read).toBe((before?.read ?? 0) + (before?.written ?? 0));
    expect(after?.read).toBeGreaterThan(5000);
  });
});
