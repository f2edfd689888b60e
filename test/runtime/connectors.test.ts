import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager, SettingsManager } from "@earendil-works/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LoadedArtifacts } from "../../src/runtime/artifacts.js";
import { ConnectorRejectedError, UnknownConnectorError, type ConnectorDefinition, type ConnectorRegistration } from "../../src/runtime/connectors.js";
import { createGammaAgent, createGammaSession } from "../../src/runtime/pi-adapter.js";
import { FileStateStore } from "../../src/runtime/state.js";
import { ToolSetupError, type HostExecutors } from "../../src/runtime/tools.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { isTrustedInjectionMessage } from "../../src/runtime/injections/transport.js";
import { tempDir } from "../helpers/temp-project.js";
import { removeTempDirs } from "../build/helpers.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, toolUse } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";
import { buildNamespaceProject, namespaceGuide, replying, type Call } from "./helpers/namespace-project.js";

// Connectors registered and removed on a live session, on the real Agent and
// AgentSession with pi-ai's faux provider: the boundary check, the
// workspace_update the model reads, removal at once, compaction, reload and restart.

afterAll(removeTempDirs);

const pi = fauxPerTest();
const HOST_TOOLS = ["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file"];
const NOTION_TOOLS = ["notion_search", "notion_get_page"];

/** The registration the guide shows. */
const NOTION = JSON.parse(namespaceGuide.blockStartingWith('{\n  "name": "notion"', "json")) as ConnectorDefinition;

let artifacts: LoadedArtifacts;

beforeAll(async () => {
  artifacts = await buildNamespaceProject("connectors");
}, 60_000);

const stable = () => artifacts.tools.map((tool) => tool.name);
/** Text as an injection's body carries it (quotes escaped like every value inside a trusted tag). */
const inTag = (text: string) => text.replace(/"/g, "&quot;").replace(/'/g, "&apos;");
const notion = (calls: string[] = [], definition: ConnectorDefinition = NOTION): ConnectorRegistration => ({
  ...structuredClone(definition),
  executors: recordingExecutors(calls, definition.tools.map((tool) => tool.name)),
});

/** Host tools, with `read` doing what the host does while the run goes on (registering or removing a connector). */
function hostTools(onRead: () => void): HostExecutors {
  const executors = recordingExecutors([], HOST_TOOLS);
  return {
    ...executors,
    read: async (id, params) => {
      onRead();
      return (executors["read"] as NonNullable<HostExecutors["read"]>)(id, params);
    },
  };
}

describe("a connector registered and removed mid-run on the low-level Agent", () => {
  it("is announced as a trusted workspace_update, loads by name like a namespace, runs, and leaves the tool list at once when removed", async () => {
    const faux = pi.faux();
    const events: ProtocolEvent[] = [];
    const notionCalls: string[] = [];
    let reads = 0;
    const gamma = pi.disposeAfterTest(
      createGammaAgent({
        artifacts,
        variant: "base",
        model: faux.getModel(),
        executors: hostTools(() => {
          reads += 1;
          if (reads === 1) gamma.controller.registerConnector(notion(notionCalls));
          else gamma.controller.removeConnector("notion");
        }),
        onProtocolEvent: (event) => events.push(event),
        ...NO_KNOWLEDGE_HINTS,
      }),
    );
    const calls: Call[] = [];
    faux.setResponses([
      replying(calls, toolUse(fauxToolCall("read", { path: "brief.md" }))),
      replying(calls, toolUse(fauxToolCall("load_tool_namespace", { name: "notion" }))),
      replying(calls, toolUse(fauxToolCall("notion_search", { query: "Q3 plan" }))),
      replying(calls, toolUse(fauxToolCall("read", { path: "brief.md" }))),
      replying(calls, toolUse(fauxToolCall("notion_get_page", { pageId: "p1" }))),
      replying(calls, fauxAssistantMessage("The notes are gone; working from the brief.")),
    ]);
    await gamma.agent.prompt("Use my Notion notes for the Q3 deck");

    // The registration, steered in before the next model call: the announcement the guide quotes.
    const announcement = namespaceGuide.text.match(/^`(Connector "notion" was registered: [^`]+)`$/m)?.[1];
    expect(announcement).toBeDefined();
    expect(calls[0]?.tools).toEqual(stable());
    expect(calls[1]?.text).toContain(`change="connector_registered">\n${inTag(announcement ?? "")}\n</workspace_update>`);
    expect(calls[1]?.tools).toEqual(stable());
    const announced = gamma.agent.state.messages.filter((message) => message.role === "custom" && message.customType === "gamma.workspace_update");
    expect(announced.length).toBe(2);
    expect(announced.every((message) => isTrustedInjectionMessage(message))).toBe(true);

    // Loaded by exact name: appended after the head, then run.
    expect(calls[2]?.tools).toEqual([...stable(), ...NOTION_TOOLS]);
    expect(calls[2]?.added).toEqual(NOTION_TOOLS);
    expect(calls[3]?.toolResults.at(-1)).toMatch(/^notion_search ok/);
    expect(notionCalls).toEqual(["notion_search"]);

    // Removed by the host during the second read: gone from the next call's tools, and announced.
    expect(calls[4]?.tools).toEqual(stable());
    expect(calls[4]?.removed).toEqual(NOTION_TOOLS);
    expect(calls[4]?.text).toContain(inTag('Connector "notion" was removed: notion_search, notion_get_page are no longer in your tool list, and a call to one of them fails.'));
    // A call to a removed tool is a tool error; the run goes on to its answer.
    expect(calls[5]?.toolResults.at(-1)).toBe("error: Tool notion_get_page not found");
    expect(notionCalls).toEqual(["notion_search"]);
    expect(gamma.agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });

    expect(gamma.controller.connectors).toEqual([]);
    expect(gamma.controller.loadedNamespaces).toEqual([]);
    expect(events.filter((event) => event.type.startsWith("connector_"))).toEqual([
      { type: "connector_registered", connector: "notion", loaded: false },
      { type: "connector_removed", connector: "notion" },
    ]);
  });

  it("refuses a call that was already in the running batch when the connector left, with a clear tool error", async () => {
    const faux = pi.faux();
    const notionCalls: string[] = [];
    const gamma = pi.disposeAfterTest(
      createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: hostTools(() => gamma.controller.removeConnector("notion")), toolLoading: "start", ...NO_KNOWLEDGE_HINTS }),
    );
    gamma.agent.toolExecution = "sequential";
    // Under "start" a registered connector loads at once.
    expect(gamma.controller.registerConnector(notion(notionCalls))).toMatchObject({ connector: "notion", loaded: true, warnings: [] });
    const calls: Call[] = [];
    faux.setResponses([
      replying(calls, toolUse(fauxToolCall("read", { path: "brief.md" }), fauxToolCall("notion_search", { query: "Q3" }))),
      replying(calls, fauxAssistantMessage("Notion left.")),
    ]);
    await gamma.agent.prompt("Search my notes");
    expect(calls[0]?.tools).toEqual([...stable(), ...NOTION_TOOLS]);
    const removedText = 'Tool "notion_search" is no longer available: the connector "notion" was removed from this session.';
    expect(calls[1]?.toolResults.at(-1)).toBe(`error: ${removedText}`);
    expect(namespaceGuide.text).toContain(`\`${removedText}\``);
    expect(notionCalls).toEqual([]);
    expect(() => gamma.controller.removeConnector("notion")).toThrow(UnknownConnectorError);
    // Registered again under the same name, it is served afresh.
    gamma.controller.registerConnector(notion(notionCalls));
    faux.setResponses([replying(calls, toolUse(fauxToolCall("notion_search", { query: "Q3" }))), replying(calls, fauxAssistantMessage("Back."))]);
    await gamma.agent.prompt("Search again");
    expect(calls.at(-1)?.toolResults.at(-1)).toMatch(/^notion_search ok/);
    expect(notionCalls).toEqual(["notion_search"]);
  });
});

describe("the boundary check refuses a bad connector and registers nothing", () => {
  it("names the rule and its message, as the compiler gives them", () => {
    const faux = pi.faux();
    const gamma = pi.disposeAfterTest(createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: recordingExecutors([], [...HOST_TOOLS, "drive_search", "drive_list_folder", "drive_get_file", "drive_download"]), ...NO_KNOWLEDGE_HINTS }));
    const before = gamma.controller.state;
    const refusal = (registration: unknown): ConnectorRejectedError => {
      try {
        gamma.controller.registerConnector(registration as ConnectorRegistration);
      } catch (error) {
        expect(error).toBeInstanceOf(ConnectorRejectedError);
        return error as ConnectorRejectedError;
      }
      throw new Error("expected a refusal");
    };

    const withFormat = notion();
    const since = { type: "string", format: "date-time" };
    (withFormat.tools[0] as unknown as { parameters: { properties: Record<string, unknown> } }).parameters.properties["since"] = since;
    const format = refusal(withFormat);
    expect(format.problems).toEqual([
      { ruleId: "tool/invalid-parameters", severity: "error", path: "/tools/0/parameters", message: 'Unexpected parameters schema: unknown format "date-time" ignored in schema at path "#/properties/since"' },
    ]);
    expect(namespaceGuide.text).toContain(`\`${format.message.slice(format.message.indexOf("tool/invalid-parameters"))}\``);

    // A tool name a compiled namespace has, a connector name a compiled namespace has, a bad name, a bad tool.
    const clash = notion();
    (clash.tools[1] as { name: string }).name = "drive_search";
    clash.executors = recordingExecutors([], ["notion_search", "drive_search"]);
    expect(refusal(clash).problems).toEqual([
      {
        ruleId: "namespace/tool-name-duplicate",
        severity: "error",
        path: "/tools/1/name",
        message: "Unexpected tool `drive_search` in namespace `notion`, already in namespace `drive`; expected each tool name once across all tools",
      },
      expect.objectContaining({ ruleId: "namespace/tool-name-prefix", severity: "warning" }),
    ]);
    expect(refusal({ ...notion(), name: "drive" }).problems[0]).toMatchObject({ ruleId: "connector/name-taken", path: "/name" });
    expect(refusal({ ...notion(), name: "Notion" }).problems).toEqual([
      { ruleId: "namespace/invalid", severity: "error", path: "/name", message: 'Unexpected value at `name`: it must match pattern "^[a-z][a-z0-9]*(_[a-z0-9]+)*$"' },
    ]);
    expect(refusal({ ...notion(), description: "Notion <pages>" }).problems[0]).toMatchObject({ ruleId: "namespace/description", message: "Unexpected angle bracket in description, expected plain text without < or > (the namespace catalog is XML)" });
    expect(refusal({ ...notion(), tools: [{ name: "notion_search", description: "Search." }] }).problems).toEqual([
      { ruleId: "tool/invalid", severity: "error", path: "/tools/0", message: "Unexpected tool without `parameters`, expected it to be present" },
    ]);
    expect(() => gamma.controller.registerConnector({ ...notion(), executors: recordingExecutors([], ["notion_search"]) })).toThrow(ToolSetupError);
    // Not an object at all, or without executors: refused the same way, never a TypeError.
    for (const registration of [null, "notion", [notion()]]) {
      expect(refusal(registration).problems).toEqual([expect.objectContaining({ ruleId: "namespace/invalid", severity: "error", path: "" })]);
    }
    const { executors: _executors, ...withoutExecutors } = notion();
    expect(() => gamma.controller.registerConnector(withoutExecutors as ConnectorRegistration)).toThrow(ToolSetupError);

    // Nothing registered, nothing announced, nothing written.
    expect(gamma.controller.connectors).toEqual([]);
    expect(gamma.controller.state).toEqual(before);
    expect(gamma.controller.injections.pending()).toEqual([]);
  });

  it("registers with warnings when only a warning rule is broken", () => {
    const faux = pi.faux();
    const gamma = pi.disposeAfterTest(createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: recordingExecutors(), ...NO_KNOWLEDGE_HINTS }));
    const pages = notion();
    (pages.tools[1] as { name: string }).name = "get_page";
    pages.executors = recordingExecutors([], ["notion_search", "get_page"]);
    const change = gamma.controller.registerConnector(pages);
    expect(change.warnings).toEqual([
      { ruleId: "namespace/tool-name-prefix", severity: "warning", path: "/tools/1/name", message: "Unexpected tool `get_page` in namespace `notion`, expected a name starting with `notion_` (Anthropic's tool search sees one flat list and matches names)" },
    ]);
    expect(gamma.controller.connectors.map((connector) => connector.name)).toEqual(["notion"]);
  });
});

describe("connectors are session state", () => {
  it("on an AgentSession: registered mid-session, kept by compaction (the anchor lists them) and by a reload from the session file and store", async () => {
    const faux = pi.faux();
    const setup = await fauxSessionSetup(faux);
    const sessionManager = SessionManager.create(setup.cwd, join(setup.cwd, "sessions"));
    const statePath = join(setup.cwd, "state.jsonl");
    const settingsManager = SettingsManager.inMemory({ compaction: { enabled: false, keepRecentTokens: 1 } });
    const executors = recordingExecutors([], HOST_TOOLS);
    const first = await createGammaSession({ artifacts, variant: "base", store: new FileStateStore(statePath), executors, ...NO_KNOWLEDGE_HINTS, ...setup, sessionManager, settingsManager });
    expect(first.connectors).toEqual({ restored: [], dropped: [] });
    first.controller.registerConnector(notion());
    const calls: Call[] = [];
    faux.setResponses([
      replying(calls, toolUse(fauxToolCall("load_tool_namespace", { name: "notion" }))),
      replying(calls, toolUse(fauxToolCall("notion_get_page", { pageId: "p1" }))),
      replying(calls, fauxAssistantMessage("Read it.")),
    ]);
    await first.session.prompt("Read my Q3 plan in Notion");
    // Idle at registration: the announcement rides with the user's turn.
    expect(calls[0]?.text).toContain(inTag('Connector "notion" was registered'));
    expect(calls[1]?.tools).toEqual([...stable(), ...NOTION_TOOLS]);
    expect(calls[1]?.added).toEqual(NOTION_TOOLS);
    expect(calls[2]?.toolResults.at(-1)).toMatch(/^notion_get_page ok/);

    faux.setResponses(Array.from({ length: 4 }, () => fauxAssistantMessage("Summary: the Q3 plan was read from Notion.")));
    await first.session.compact();
    faux.setResponses([replying(calls, fauxAssistantMessage("Continuing."))]);
    await first.session.prompt("continue");
    const compacted = calls.at(-1);
    expect(compacted?.tools).toEqual([...stable(), ...NOTION_TOOLS]);
    expect(compacted?.text).toContain("<connectors>");
    expect(compacted?.text).toContain(`- notion: ${NOTION.description} (loaded; tools: notion_search, notion_get_page)`);
    const sessionFile = first.session.sessionFile;
    pi.disposeNow(first);

    const reopened = SessionManager.open(sessionFile ?? "", join(setup.cwd, "sessions"));
    const restoredCalls: string[] = [];
    const second = pi.disposeAfterTest(
      await createGammaSession({
        artifacts,
        variant: "base",
        store: new FileStateStore(statePath),
        executors,
        restoreConnector: (connector) => recordingExecutors(restoredCalls, connector.tools.map((tool) => tool.name)),
        ...NO_KNOWLEDGE_HINTS,
        ...setup,
        sessionManager: reopened,
        settingsManager,
      }),
    );
    expect(second.connectors).toEqual({ restored: ["notion"], dropped: [] });
    faux.setResponses([replying(calls, toolUse(fauxToolCall("notion_search", { query: "Q4" }))), replying(calls, fauxAssistantMessage("Found."))]);
    await second.session.prompt("And the Q4 plan?");
    expect(calls.at(-2)?.tools).toEqual([...stable(), ...NOTION_TOOLS]);
    expect(calls.at(-2)?.text).toContain("- notion: ");
    expect(restoredCalls).toEqual(["notion_search"]);
  });

  it("after a restart on the low-level path: restores what it can and says which it could not, and why", async () => {
    const statePath = join(await tempDir("connector state"), "state.jsonl");
    const faux = pi.faux();
    const first = createGammaAgent({ artifacts, variant: "base", store: new FileStateStore(statePath), model: faux.getModel(), executors: recordingExecutors(), toolLoading: "start", ...NO_KNOWLEDGE_HINTS });
    first.controller.registerConnector(notion());
    const slack: ConnectorDefinition = {
      name: "slack",
      description: "Use for reading the workspace's Slack channels when the user refers to a discussion.",
      tools: [{ name: "slack_read_channel", description: "Read a channel's recent messages.", parameters: { type: "object", properties: { channel: { type: "string", minLength: 1 } }, required: ["channel"] } }],
    };
    first.controller.registerConnector(notion([], slack));
    const calendar: ConnectorDefinition = { ...slack, name: "calendar", tools: [{ ...slack.tools[0], name: "calendar_events" } as ConnectorDefinition["tools"][number]] };
    first.controller.registerConnector(notion([], calendar));
    pi.disposeNow(first);
    // Since then the check got stricter for one of them: its stored schema no longer passes.
    writeFileSync(statePath, readFileSync(statePath, "utf8").replace('"channel":{"type":"string","minLength":1}', '"channel":{"type":"string","format":"slack-channel"}'));

    const second = pi.disposeAfterTest(
      createGammaAgent({
        artifacts,
        variant: "base",
        store: new FileStateStore(statePath),
        model: faux.getModel(),
        executors: recordingExecutors(),
        toolLoading: "start",
        // The host no longer has a calendar.
        restoreConnector: (connector) => (connector.name === "calendar" ? undefined : recordingExecutors([], connector.tools.map((tool) => tool.name))),
        ...NO_KNOWLEDGE_HINTS,
      }),
    );
    expect(second.connectors.restored).toEqual(["notion"]);
    expect(second.connectors.dropped).toEqual([
      {
        connector: "slack",
        reason: "refused",
        message: 'Connector "slack" refused: tool/invalid-parameters at /tools/0/parameters: Unexpected parameters schema: unknown format "slack-channel" ignored in schema at path "#/properties/channel"',
        problems: [expect.objectContaining({ ruleId: "tool/invalid-parameters" })],
      },
      { connector: "calendar", reason: "gone", message: 'Connector "calendar" not restored: the host supplies no executors for it any more', problems: [] },
    ]);
    expect(second.controller.connectors.map((connector) => connector.name)).toEqual(["notion"]);
    expect(second.controller.loadedNamespaces.map((namespace) => namespace.name)).toEqual(["notion"]);
    const calls: Call[] = [];
    faux.setResponses([replying(calls, fauxAssistantMessage("ok"))]);
    // The low-level host sends pending injections with the user's turn.
    await second.agent.prompt(second.controller.buildTurnMessages({ text: "What can you reach now?" }));
    expect(calls[0]?.tools).toEqual([...stable(), ...NOTION_TOOLS]);
    expect(calls[0]?.text).toContain(inTag('Connector "slack" could not be restored and is no longer available: slack_read_channel are gone from your tool list.'));
    expect(calls[0]?.text).toContain(inTag('Connector "calendar" could not be restored'));
  });
});
