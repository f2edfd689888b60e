import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { SessionProtocolController } from "../../src/runtime/controller.js";
import { createGammaAgent, createGammaSession, restoreAgentContext } from "../../src/runtime/pi-adapter.js";
import { FileStateStore, StateStoreError } from "../../src/runtime/state.js";
import { prepareDist, tempDir } from "./helpers/dist.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxPerTest, keyedFauxModel, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";

const pi = fauxPerTest();

const artifacts = loadArtifacts({ distDir: prepareDist() });
const body = (name: string): string => artifacts.skills.get(name)?.body ?? `missing ${name}`;

describe("the state store", () => {
  it("a restarted controller restores the state exactly (Pi's queues aside)", () => {
    const path = join(tempDir(), "state.json");
    const first = new SessionProtocolController({ artifacts, variant: "import", store: new FileStateStore(path) });
    first.activateSkill("ask-user-questions", "call_1");
    first.updateTasks([{ id: "a", title: "Import slides.pptx", status: "in_progress", note: "12 slides" }], "call_2");
    first.setCurrentArtifacts([{ ref: "file:session/import/deck.gml", path: "session/import/deck.gml", revision: "sha256:abc" }]);
    const update = (id: string, second: number, path: string) => ({
      id, kind: "artifact_update", occurredAt: `2026-01-01T00:00:0${second}Z`, source: "workspace", delivery: "steer",
      requiresDecision: false, summary: "Saved.", subject: { path },
    });
    first.routeUpdate(update("evt_1", 1, "session/import/deck.gml"));
    first.routeUpdate(update("evt_2", 2, "session/import/notes.md"));
    first.injections.markQueued(["evt_2"], "steer");

    const restarted = new SessionProtocolController({ artifacts, variant: "import", store: new FileStateStore(path) });
    const expected = structuredClone(first.state);
    delete expected.pendingInjections[1]?.queuedAs;
    expect(restarted.state).toEqual(expected);
    expect(restarted.state.revision).toBe(first.state.revision);
    expect(readdirSync(join(path, ".."))).toEqual(["state.json"]);
  });

  it("refuses a corrupt state file with an error naming it", () => {
    const path = join(tempDir(), "state.json");
    writeFileSync(path, "{ half a write");
    expect(() => new FileStateStore(path).load()).toThrow(StateStoreError);
    expect(() => new FileStateStore(path).load()).toThrow(`${path}: Unexpected text that is not JSON`);
    writeFileSync(path, JSON.stringify({ stateVersion: 99 }));
    expect(() => new FileStateStore(path).load()).toThrow(/Unexpected stateVersion 99/);
  });

  it("refuses a stored state from another variant", () => {
    const path = join(tempDir(), "state.json");
    new SessionProtocolController({ artifacts, variant: "import", store: new FileStateStore(path) });
    expect(() => new SessionProtocolController({ artifacts, variant: "base", store: new FileStateStore(path) })).toThrow(/variant "import", expected "base"/);
  });
});

describe("a low-level Agent restarted from the host's stored transcript", () => {
  it("restores the controller from its file and anchors the stored messages", async () => {
    const statePath = join(tempDir(), "state.json");
    const faux = pi.faux();
    const first = createGammaAgent({ artifacts, variant: "base", store: new FileStateStore(statePath), model: faux.getModel(), executors: recordingExecutors() });
    faux.setResponses([
      toolUse(fauxToolCall("skill", { name: "gml-editing" }), fauxToolCall("todo", { tasks: [{ id: "c2", title: "Edit card 2", status: "in_progress" }] })),
      fauxAssistantMessage("Editing card 2."),
    ]);
    await first.agent.prompt("Fix card 2");
    const stored = JSON.parse(JSON.stringify(first.agent.state.messages)) as AgentMessage[];
    first.dispose();

    const second = createGammaAgent({ artifacts, variant: "base", store: new FileStateStore(statePath), model: faux.getModel(), executors: recordingExecutors(), messages: stored });
    expect(second.controller.state).toEqual(first.controller.state);
    restoreAgentContext(second.agent, second.controller);
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("ok"))]);
    await second.agent.prompt("continue");
    const anchors = (seen[0]?.messages ?? []).map(textOf).filter((text) => text.startsWith("<session_state "));
    expect(anchors).toHaveLength(1);
    expect(anchors[0]).toContain("- [in_progress] c2: Edit card 2");
    expect(anchors[0]).toContain(body("gml-editing").trimEnd());
  });
});

describe("an AgentSession reloaded from its session file", () => {
  it("gets a fresh anchor with the restored skills and tasks, once, on the exact prompt", async () => {
    const root = tempDir("gamma-restart-");
    const cwd = join(root, "work");
    const agentDir = join(root, "pi-agent");
    mkdirSync(cwd);
    mkdirSync(agentDir);
    const statePath = join(root, "state", "session.json");
    const faux = pi.faux();
    const { model, modelRuntime } = await keyedFauxModel(faux);
    const start = async (sessionManager: SessionManager) => {
      const gamma = await createGammaSession({
        artifacts,
        variant: "base",
        store: new FileStateStore(statePath),
        model,
        executors: recordingExecutors(),
        cwd,
        agentDir,
        sessionManager,
        modelRuntime,
        ...NO_KNOWLEDGE_HINTS,
      });
      return pi.disposeAfterTest(gamma);
    };

    const first = await start(SessionManager.create(cwd, join(root, "sessions")));
    faux.setResponses([
      toolUse(fauxToolCall("skill", { name: "import" })),
      toolUse(fauxToolCall("todo", { tasks: [{ id: "import", title: "Import slides.pptx", status: "in_progress" }] })),
      fauxAssistantMessage("Importing."),
    ]);
    await first.session.prompt("Import slides.pptx");
    const sessionFile = first.session.sessionFile;
    expect(sessionFile).toBeDefined();
    pi.disposeNow(first);

    // A new process: the session file and the state file are all that remain.
    const second = await start(SessionManager.open(sessionFile ?? ""));
    expect(second.controller.state.activeSkills.map((skill) => skill.name)).toEqual(["import", ...artifacts.skills.get("import")!.requiresSkills]);
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("Continuing the import."))]);
    await second.session.prompt("continue");
    const texts = (seen[0]?.messages ?? []).map(textOf);
    expect(texts[0]).toBe("Import slides.pptx");
    const anchors = texts.filter((text) => text.startsWith("<session_state "));
    expect(anchors).toHaveLength(1);
    expect(anchors[0]).toContain(body("import").trimEnd());
    expect(anchors[0]).toContain("- [in_progress] import: Import slides.pptx");
    expect(texts.at(-1)).toBe("continue");
    expect(seen[0]?.systemPrompt).toBe(artifacts.variants.base);

    // Opened again (on another server, say), twice: the anchor already in the context stays where it is, so
    // the transcript does not grow and the model sees the same messages, in the same places, as before.
    const anchorsIn = (manager: SessionManager): number =>
      manager.getEntries().filter((entry) => entry.type === "custom_message" && entry.customType === "gamma.anchor").length;
    pi.disposeNow(second);
    for (let reopen = 0; reopen < 2; reopen++) {
      const manager = SessionManager.open(sessionFile ?? "");
      const entries = manager.getEntries().length;
      const again = await start(manager);
      expect(anchorsIn(manager)).toBe(1);
      expect(manager.getEntries().length).toBe(entries);
      pi.disposeNow(again);
    }
    const third = await start(SessionManager.open(sessionFile ?? ""));
    const later: SeenContext[] = [];
    faux.setResponses([seeing(later, fauxAssistantMessage("Still importing."))]);
    await third.session.prompt("and now?");
    const laterTexts = (later[0]?.messages ?? []).map(textOf);
    // The same prefix as the last request: what a prompt cache keeps.
    expect(laterTexts.slice(0, texts.length)).toEqual(texts);
    expect(laterTexts.filter((text) => text.startsWith("<session_state "))).toEqual(anchors);
  });
});
