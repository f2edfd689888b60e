import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { loadArtifacts, type LoadedArtifacts } from "../../src/runtime/artifacts.js";
import { systemBlocks } from "../../src/runtime/cache-plan.js";
import { createGammaAgent, createGammaSession, type ToolLoadingPolicy } from "../../src/runtime/pi-adapter.js";
import { removeTempDirs, repoRoot } from "../build/helpers.js";
import { copyParts, tempDir } from "../helpers/temp-project.js";
import { recordingExecutors } from "../runtime/helpers/pi.js";
import { breakpointPaths, FAKE_KEY, loopbackSessionSetup, wireModel, type RuntimePath } from "./helpers.js";
import { anthropicBlockTokens, startWireServer, type RecordedRequest, type ScriptedTurn, type WireServer } from "./server.js";

// The embedded default whose `import` variant sends the `drive` namespace from the start: the cache plan puts
// the tools' breakpoint at the end of tools.json's tools and none on the namespace's, so a variant without the
// namespace shares the tools entry. Requests go through pi-ai 1.x's real Anthropic client to the loopback server.

afterAll(removeTempDirs);

const DRIVE_TOOLS = ["drive_search", "drive_list_folder", "drive_get_file", "drive_download"];
const HOST_TOOLS = ["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file"];
const PATHS: RuntimePath[] = ["agent", "session"];
/** Without and with Pi's deferred placeholder after the tools (tool changes in place). */
const MODELS = ["claude-sonnet-4-5", "claude-sonnet-5-5"];

let artifacts: LoadedArtifacts;
beforeAll(async () => {
  const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge"], join(await tempDir("namespace breakpoints"), "project"));
  await writeFile(join(root, "prompts/variants.yaml"), "variants:\n  base:\n    preload: []\n  deck-generation:\n    preload: [deck-generation]\n  import:\n    preload: [import]\n    namespaces: [drive]\n");
  expect((await build({ root, persistentCache: false })).ok).toBe(true);
  artifacts = loadArtifacts({ distDir: join(root, "dist") });
}, 120_000);

const servers: WireServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function freshServer(): Promise<WireServer> {
  const server = await startWireServer();
  servers.push(server);
  return server;
}

/** Two model calls of one session (a progress message, then the answer), or only the first; the requests it sent. */
async function run(server: WireServer, options: { path: RuntimePath; variant: string; modelId: string; toolLoading?: ToolLoadingPolicy; firstCallOnly?: boolean; apiKey?: string }): Promise<RecordedRequest[]> {
  const script: ScriptedTurn[] = options.firstCallOnly ? [{ text: "Hello." }] : [{ toolCalls: [{ name: "message_user", arguments: { message: "On it.", blockOnUser: false } }] }, { text: "Done." }];
  server.script(script);
  const from = server.requests.length;
  const model = wireModel("anthropic-messages", server, options.modelId);
  const common = {
    artifacts,
    variant: options.variant as never,
    model,
    executors: recordingExecutors([], [...HOST_TOOLS, ...DRIVE_TOOLS]),
    knowledge: { maxHints: 0 },
    ...(options.toolLoading === undefined ? {} : { toolLoading: options.toolLoading }),
  };
  if (options.path === "agent") {
    const gamma = createGammaAgent({ ...common, getApiKey: () => options.apiKey ?? FAKE_KEY });
    await gamma.agent.prompt("Import the board deck from my drive.");
    gamma.dispose();
  } else {
    const gamma = await createGammaSession({ ...common, ...(await loopbackSessionSetup(model)) });
    await gamma.session.prompt("Import the board deck from my drive.");
    gamma.dispose();
  }
  return server.requests.slice(from);
}

const names = (tools: unknown): string[] => (tools as Array<{ name: string }>).map((tool) => tool.name);

/** The tool indexes the plan puts a breakpoint after: the last tool of each tool block with `breakpoint: true`. */
function plannedToolBreakpoints(variant: string): number[] {
  const files = new Map<string, number>([[artifacts.manifest.tools.file, artifacts.tools.length]]);
  for (const namespace of artifacts.namespaces.values()) files.set(artifacts.manifest.namespaces?.[namespace.name]?.file ?? "", namespace.tools.length);
  const marks: number[] = [];
  let end = 0;
  for (const block of artifacts.cachePlan.variants[variant]?.blocks ?? []) {
    if (block.system !== undefined) continue;
    const count = files.get(block.source);
    if (count === undefined) throw new Error(`no tools for plan block ${block.source}`);
    end += count;
    if (block.breakpoint) marks.push(end - 1);
  }
  return marks;
}

/** Tools marks as the plan has them, then the plan's system blocks, then the newest message. */
function expectPlanBreakpoints(request: RecordedRequest, variant: string): void {
  const blocks = systemBlocks(artifacts.cachePlan, variant, artifacts.variants[variant] ?? "");
  const messages = request.body["messages"] as Array<{ content: unknown[] }>;
  const last = messages.findLastIndex((message) => message.content.length > 0);
  expect(breakpointPaths(request.body)).toEqual([
    ...plannedToolBreakpoints(variant).map((index) => `tools[${index}]`),
    ...blocks.flatMap((block, index) => (block.breakpoint ? [`system[${index}]`] : [])),
    `messages[${last}].content[${(messages[last]?.content.length ?? 1) - 1}]`,
  ]);
}

/** The tokens the emulated cache counts for the request's first `count` tools. */
function toolTokens(request: RecordedRequest, count: number): number {
  return (request.body["tools"] as Array<Record<string, unknown>>).slice(0, count).reduce((sum, tool) => sum + anthropicBlockTokens(tool), 0);
}

describe("the plan of a variant that sends a namespace from the start", () => {
  it("has the tools' breakpoint at the end of tools.json's tools and none on the namespace's", () => {
    expect(artifacts.cachePlan.variants["import"]?.blocks.map((block) => [block.name, block.breakpoint])).toEqual([
      ["tools", true],
      ["namespace-tools", false],
      ["static-prefix", true],
      ["variant-tail", true],
    ]);
    expect(plannedToolBreakpoints("import")).toEqual([artifacts.tools.length - 1]);
  });
});

describe.each(PATHS)("anthropic-messages on the %s path", (path) => {
  it.each(MODELS)("%s: every request of the import variant carries the plan's breakpoints, the tools' one on the last of tools.json's tools", async (modelId) => {
    const requests = await run(await freshServer(), { path, variant: "import", modelId });
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      const tools = names(request.body["tools"]);
      expect(tools.slice(0, artifacts.tools.length + DRIVE_TOOLS.length)).toEqual([...artifacts.tools.map((tool) => tool.name), ...DRIVE_TOOLS]);
      expectPlanBreakpoints(request, "import");
    }
  });

  it("a base session reads the tools entry an import session wrote, as cost's plan prices it", async () => {
    const server = await freshServer();
    const [imported] = await run(server, { path, variant: "import", modelId: "claude-sonnet-4-5", firstCallOnly: true });
    const [base] = await run(server, { path, variant: "base", modelId: "claude-sonnet-4-5", firstCallOnly: true });
    expect(imported?.cache?.read).toBe(0);
    const stableTools = toolTokens(base as RecordedRequest, artifacts.tools.length);
    expect(stableTools).toBeGreaterThan(1024);
    expect(base?.cache?.read).toBe(stableTools);
  });

  it('toolLoading "start": the served namespaces follow tools.json\'s tools without a breakpoint, and a later base session reads the tools entry', async () => {
    const server = await freshServer();
    const requests = await run(server, { path, variant: "base", modelId: "claude-sonnet-4-5", toolLoading: "start" });
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      expect(names(request.body["tools"])).toEqual([...artifacts.tools.map((tool) => tool.name), ...DRIVE_TOOLS]);
      expectPlanBreakpoints(request, "base");
    }
    const [late] = await run(server, { path, variant: "base", modelId: "claude-sonnet-4-5", firstCallOnly: true });
    expect(names(late?.body["tools"])).toEqual(artifacts.tools.map((tool) => tool.name));
    expect(late?.cache?.read).toBe(toolTokens(late as RecordedRequest, artifacts.tools.length));
  });
});

describe("Claude Code tool names", () => {
  it("an OAuth credential, which makes pi-ai send read, bash, write and edit as Read, Bash, Write and Edit, keeps the tools' breakpoint at the end of tools.json's tools", async () => {
    const [request] = await run(await freshServer(), { path: "agent", variant: "import", modelId: "claude-sonnet-4-5", firstCallOnly: true, apiKey: "sk-ant-oat01-wire-test" });
    const tools = names(request?.body["tools"]);
    expect(tools).toContain("Read");
    expect(tools.map((name) => name.toLowerCase())).toEqual([...artifacts.tools.map((tool) => tool.name), ...DRIVE_TOOLS]);
    expect(breakpointPaths(request?.body ?? {}).filter((at) => at.startsWith("tools"))).toEqual([`tools[${artifacts.tools.length - 1}]`]);
  });
});
