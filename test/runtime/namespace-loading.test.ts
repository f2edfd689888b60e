import { join } from "node:path";
import { SessionManager, SettingsManager } from "@earendil-works/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LoadedArtifacts } from "../../src/runtime/artifacts.js";
import { SessionProtocolController } from "../../src/runtime/controller.js";
import { createGammaAgent, createGammaSession, restoreAgentContext } from "../../src/runtime/pi-adapter.js";
import { FileStateStore } from "../../src/runtime/state.js";
import { ToolSetupError } from "../../src/runtime/tools.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { tempDir } from "../helpers/temp-project.js";
import { removeTempDirs } from "../build/helpers.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, toolUse } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";
import { buildNamespaceProject, namespaceGuide, replying, type Call } from "./helpers/namespace-project.js";

// Tool namespaces loaded during a session, on the real Agent and AgentSession
// with pi-ai's faux provider: when a workflow that needs one becomes active,
// by exact name with load_tool_namespace, and after compaction and reload.

afterAll(removeTempDirs);

const pi = fauxPerTest();
const DRIVE_TOOLS = ["drive_search", "drive_list_folder", "drive_get_file", "drive_download"];
const HOST_TOOLS = ["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file"];

const guide = namespaceGuide;
let artifacts: LoadedArtifacts;

beforeAll(async () => {
  artifacts = await buildNamespaceProject("namespace loading");
}, 60_000);

const executors = (calls: string[] = []) => recordingExecutors(calls, [...HOST_TOOLS, ...DRIVE_TOOLS]);
const stable = () => artifacts.tools.map((tool) => tool.name);

describe("a workflow that needs a namespace loads it when it becomes active", () => {
  it("on the low-level Agent: the skill's result says so, the run's next call declares the tools after the head, and they run", async () => {
    const faux = pi.faux();
    const events: ProtocolEvent[] = [];
    const hostCalls: string[] = [];
    const { agent, controller } = createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: executors(hostCalls), onProtocolEvent: (event) => events.push(event), ...NO_KNOWLEDGE_HINTS });
    const calls: Call[] = [];
    faux.setResponses([
      replying(calls, toolUse(fauxToolCall("skill", { name: "drive-files" }))),
      replying(calls, toolUse(fauxToolCall("drive_search", { query: "board deck" }))),
      replying(calls, fauxAssistantMessage("Found it.")),
    ]);
    await agent.prompt("Use the board deck from my Google Drive");

    expect(calls[0]?.tools).toEqual(stable());
    expect(calls[0]?.added).toEqual([]);
    // The head keeps the stable tools; the namespace arrives as a later system message, in its declared order.
    expect(calls[1]?.tools).toEqual([...stable(), ...DRIVE_TOOLS]);
    expect(calls[1]?.added).toEqual(DRIVE_TOOLS);
    const loadedText = 'Tool namespace "drive" loaded for drive-files: drive_search, drive_list_folder, drive_get_file, drive_download are in your tool list from now on, for the rest of the session.';
    expect(calls[1]?.toolResults[0]).toContain(loadedText);
    expect(guide.text).toContain(`\`${loadedText}\``);
    expect(hostCalls).toEqual(["drive_search"]);
    expect(calls[2]?.toolResults.at(-1)).toMatch(/^drive_search ok/);
    expect(controller.loadedNamespaces).toEqual([{ name: "drive", loadedBy: "skill", skill: "drive-files" }]);
    expect(events).toContainEqual({ type: "namespaces_loaded", names: ["drive"], loadedBy: "skill", toolCallId: expect.any(String) });
    // The transcript keeps the load: a system message with the tools it added.
    expect(agent.state.messages.filter((message) => message.role === "system").map((message) => (message.toolsAdded ?? []).map((tool) => tool.name))).toEqual([stable(), DRIVE_TOOLS]);
  });

  it("on an AgentSession: the same load, in place after the head, and the anchor after compaction lists it; the tools stay", async () => {
    const faux = pi.faux();
    const gamma = pi.disposeAfterTest(
      await createGammaSession({
        artifacts,
        variant: "base",
        executors: executors(),
        ...NO_KNOWLEDGE_HINTS,
        ...(await fauxSessionSetup(faux)),
        settingsManager: SettingsManager.inMemory({ compaction: { enabled: false, keepRecentTokens: 1 } }),
      }),
    );
    const calls: Call[] = [];
    faux.setResponses([
      replying(calls, toolUse(fauxToolCall("skill", { name: "drive-files" }))),
      replying(calls, toolUse(fauxToolCall("drive_get_file", { fileId: "1AbC" }))),
      replying(calls, fauxAssistantMessage("Fetched.")),
    ]);
    await gamma.session.prompt("Use the board deck from my Google Drive");
    expect(calls[0]?.tools).toEqual(stable());
    expect(calls[1]?.tools).toEqual([...stable(), ...DRIVE_TOOLS]);
    expect(calls[1]?.added).toEqual(DRIVE_TOOLS);

    faux.setResponses(Array.from({ length: 4 }, () => fauxAssistantMessage("Summary: the board deck is being fetched from the drive.")));
    await gamma.session.compact();
    faux.setResponses([replying(calls, fauxAssistantMessage("Continuing."))]);
    await gamma.session.prompt("continue");
    const after = calls.at(-1);
    expect(after?.tools).toEqual([...stable(), ...DRIVE_TOOLS]);
    expect(after?.text).toContain("<loaded_tool_namespaces>");
    expect(after?.text).toContain("- drive (loaded for the workflow drive-files)");
  });
});

describe("the model loads a namespace by exact name", () => {
  it("loads it once, confirms a second load, and refuses an unknown name with the catalog's names", async () => {
    const faux = pi.faux();
    const { agent, controller } = createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: executors(), ...NO_KNOWLEDGE_HINTS });
    const calls: Call[] = [];
    faux.setResponses([
      replying(calls, toolUse(fauxToolCall("load_tool_namespace", { name: "google_drive" }))),
      replying(calls, toolUse(fauxToolCall("load_tool_namespace", { name: "drive" }))),
      replying(calls, toolUse(fauxToolCall("load_tool_namespace", { name: "drive" }))),
      replying(calls, fauxAssistantMessage("Ready.")),
    ]);
    await agent.prompt("Find the Q3 deck in my drive");
    const unknown = 'Unknown tool namespace "google_drive", expected one of the catalog\'s names exactly: drive.';
    expect(calls[1]?.toolResults[0]).toBe(`error: ${unknown}`);
    expect(guide.text).toContain(`(\`${unknown}\`)`);
    expect(calls[1]?.tools).toEqual(stable());
    expect(calls[2]?.toolResults[1]).toContain('Tool namespace "drive" loaded by name: drive_search, drive_list_folder, drive_get_file, drive_download');
    expect(calls[2]?.tools).toEqual([...stable(), ...DRIVE_TOOLS]);
    expect(calls[3]?.toolResults[2]).toBe('Tool namespace "drive" is already in your tool list: drive_search, drive_list_folder, drive_get_file, drive_download.');
    // Loaded once: one system message adds the tools.
    expect(calls[3]?.added).toEqual(DRIVE_TOOLS);
    expect(controller.loadedNamespaces).toEqual([{ name: "drive", loadedBy: "tool" }]);
  });

  it("refuses a namespace whose tools the host does not serve, and a host that serves only part of one at creation", async () => {
    const faux = pi.faux();
    const { agent } = createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: recordingExecutors(), ...NO_KNOWLEDGE_HINTS });
    const calls: Call[] = [];
    faux.setResponses([replying(calls, toolUse(fauxToolCall("load_tool_namespace", { name: "drive" }))), replying(calls, fauxAssistantMessage("No drive."))]);
    await agent.prompt("Find the Q3 deck in my drive");
    expect(calls[1]?.toolResults[0]).toBe('error: Tool namespace "drive" cannot load in this session: the host supplies no executor for drive_search, drive_list_folder, drive_get_file, drive_download.');
    const partial = recordingExecutors([], [...HOST_TOOLS, "drive_search"]);
    expect(() => createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: partial })).toThrow(ToolSetupError);
    expect(() => createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: partial })).toThrow('part of the tool namespace "drive"');
  });

  it("loads every served namespace before the first call under the \"start\" policy", async () => {
    const faux = pi.faux();
    const { agent, controller } = createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: executors(), toolLoading: () => "start", ...NO_KNOWLEDGE_HINTS });
    const calls: Call[] = [];
    faux.setResponses([replying(calls, fauxAssistantMessage("ok"))]);
    await agent.prompt("hello");
    expect(calls[0]?.tools).toEqual([...stable(), ...DRIVE_TOOLS]);
    expect(calls[0]?.added).toEqual([]);
    expect(controller.loadedNamespaces).toEqual([{ name: "drive", loadedBy: "host" }]);
  });
});

describe("loaded namespaces are session state", () => {
  it("survive a restart on the low-level path: the store restores them and the restored transcript declares the same tools", async () => {
    const statePath = join(await tempDir("namespace state"), "state.jsonl");
    const faux = pi.faux();
    const first = createGammaAgent({ artifacts, variant: "base", store: new FileStateStore(statePath), model: faux.getModel(), executors: executors(), ...NO_KNOWLEDGE_HINTS });
    faux.setResponses([toolUse(fauxToolCall("load_tool_namespace", { name: "drive" })), fauxAssistantMessage("Loaded.")]);
    await first.agent.prompt("Load my drive");
    const transcript = first.agent.state.messages;
    pi.disposeNow(first);

    const restored = new SessionProtocolController({ artifacts, variant: "base", store: new FileStateStore(statePath), ...NO_KNOWLEDGE_HINTS });
    expect(restored.loadedNamespaces).toEqual([{ name: "drive", loadedBy: "tool" }]);
    const second = pi.disposeAfterTest(createGammaAgent({ controller: restored, model: faux.getModel(), executors: executors(), messages: transcript }));
    restoreAgentContext(second.agent, restored);
    const calls: Call[] = [];
    faux.setResponses([replying(calls, toolUse(fauxToolCall("drive_list_folder", { folderId: "root" }))), replying(calls, fauxAssistantMessage("Listed."))]);
    await second.agent.prompt("List my drive's root");
    expect(calls[0]?.tools).toEqual([...stable(), ...DRIVE_TOOLS]);
    // Nothing removed or added again: the transcript already declares the namespace.
    expect(calls[0]?.added).toEqual(DRIVE_TOOLS);
    expect(calls[1]?.toolResults.at(-1)).toMatch(/^drive_list_folder ok/);
    expect(calls[0]?.text).toContain("- drive (loaded with load_tool_namespace)");
  });

  it("survive a reload of an AgentSession from its session file and state store", async () => {
    const faux = pi.faux();
    const setup = await fauxSessionSetup(faux);
    const sessionManager = SessionManager.create(setup.cwd, join(setup.cwd, "sessions"));
    const statePath = join(setup.cwd, "state.jsonl");
    const first = await createGammaSession({ artifacts, variant: "base", store: new FileStateStore(statePath), executors: executors(), ...NO_KNOWLEDGE_HINTS, ...setup, sessionManager });
    faux.setResponses([toolUse(fauxToolCall("skill", { name: "drive-files" })), fauxAssistantMessage("Loaded.")]);
    await first.session.prompt("Use the board deck from my drive");
    const sessionFile = first.session.sessionFile;
    pi.disposeNow(first);

    const reopened = SessionManager.open(sessionFile ?? "", join(setup.cwd, "sessions"));
    const second = pi.disposeAfterTest(
      await createGammaSession({ artifacts, variant: "base", store: new FileStateStore(statePath), executors: executors(), ...NO_KNOWLEDGE_HINTS, ...setup, sessionManager: reopened }),
    );
    const calls: Call[] = [];
    faux.setResponses([replying(calls, fauxAssistantMessage("Still here."))]);
    await second.session.prompt("continue");
    expect(calls[0]?.tools).toEqual([...stable(), ...DRIVE_TOOLS]);
    expect(calls[0]?.text).toContain("- drive (loaded for the workflow drive-files)");
  });
});
