/**
 * `setCurrentArtifacts` refuses an entry the anchor cannot render (a plain
 * JavaScript host's numeric revision, an entry without `ref`) before anything
 * is stored, naming the field; the session goes on and reopens as before. A
 * state stored with such an entry (before entries were checked) still opens:
 * the entry leaves the list, durably, and the host is told.
 */
import { describe, expect, it } from "vitest";
import type { ArtifactReference } from "../../src/runtime/execution-state.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { SessionProtocolController } from "../../src/runtime/controller.js";
import { createGammaAgent, createGammaSession, restoreAgentContext } from "../../src/runtime/pi-adapter.js";
import { MemoryStateStore } from "../../src/runtime/state.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { prepareDist } from "./helpers/dist.js";
import { fauxAssistantMessage, recordingExecutors, seeing, type SeenContext } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";
import { SessionManager } from "@earendil-works/pi-coding-agent";

const pi = fauxPerTest();
const artifacts = loadArtifacts({ distDir: prepareDist() });

/** What a plain JavaScript host can pass where the types say ArtifactReference[]. */
const untyped = (value: unknown): ArtifactReference[] => value as ArtifactReference[];

describe("setCurrentArtifacts, given entries the anchor cannot render", () => {
  it("refuses each with a TypeError naming the field, and stores nothing", () => {
    const store = new MemoryStateStore();
    const controller = new SessionProtocolController({ artifacts, variant: "base", store });
    controller.setCurrentArtifacts([{ ref: "file:decks/q3.gml", revision: "2" }]);
    const before = structuredClone(controller.state);
    const cases: Array<[unknown, string]> = [
      [[{ ref: "file:decks/q3.gml", revision: 3 }], 'Unexpected currentArtifacts[0].revision 3, expected a string or no revision'],
      [[{ path: "decks/q3.gml" }], "Unexpected currentArtifacts[0].ref undefined, expected a non-empty string"],
      [[{ ref: "file:a.gml" }, { ref: "" }], 'Unexpected currentArtifacts[1].ref "", expected a non-empty string'],
      [[{ ref: "file:a.gml", title: null }], "Unexpected currentArtifacts[0].title null, expected a string or no title"],
      [["file:a.gml"], 'Unexpected currentArtifacts[0] "file:a.gml", expected an object'],
      ["file:a.gml", 'Unexpected currentArtifacts "file:a.gml", expected an array'],
    ];
    for (const [given, message] of cases) {
      expect(() => controller.setCurrentArtifacts(untyped(given)), JSON.stringify(given)).toThrow(TypeError);
      expect(() => controller.setCurrentArtifacts(untyped(given)), JSON.stringify(given)).toThrow(message);
    }
    expect(controller.state).toEqual(before);
    expect(store.load()).toEqual(before);
  });

  it("on an AgentSession: the refused call leaves the session to reopen from its store and answer", async () => {
    const faux = pi.faux();
    const setup = await fauxSessionSetup(faux);
    const store = new MemoryStateStore();
    const options = { artifacts, variant: "base", executors: recordingExecutors(), store, ...NO_KNOWLEDGE_HINTS, ...setup } as const;
    const first = await createGammaSession(options);
    faux.setResponses([fauxAssistantMessage("first answer")]);
    await first.session.prompt("Make a deck about tide pools");
    expect(() => first.controller.setCurrentArtifacts(untyped([{ ref: "file:deck.gml", revision: 3 }]))).toThrow("currentArtifacts[0].revision 3");
    const entries = first.session.sessionManager.getEntries();
    pi.disposeNow(first);

    const second = pi.disposeAfterTest(await createGammaSession({ ...options, sessionManager: SessionManager.inMemory(setup.cwd, undefined, entries) }));
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("second answer"))]);
    await second.session.prompt("Continue");
    expect(second.session.getLastAssistantText()).toBe("second answer");
    expect(second.controller.state.currentArtifacts).toEqual([]);
  });

  it("on an Agent: a compaction after the refused call restores the context", async () => {
    const faux = pi.faux();
    const gamma = pi.disposeAfterTest(createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: recordingExecutors(), ...NO_KNOWLEDGE_HINTS }));
    faux.setResponses([fauxAssistantMessage("Outline ready.")]);
    await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text: "Outline the deck" }));
    expect(() => gamma.controller.setCurrentArtifacts(untyped([{ path: "decks/q3.gml" }]))).toThrow("currentArtifacts[0].ref undefined");
    const kept = gamma.agent.state.messages.slice(-1);
    expect(() => restoreAgentContext(gamma.agent, gamma.controller, kept)).not.toThrow();
    expect(gamma.controller.state.currentArtifacts).toEqual([]);
  });
});

describe("a stored state holding an entry the anchor cannot render", () => {
  /** A state as a store kept it before entries were checked: one good entry, one with a numeric revision. */
  function poisonedStore(): MemoryStateStore {
    const store = new MemoryStateStore();
    const controller = new SessionProtocolController({ artifacts, variant: "base", store });
    controller.setCurrentArtifacts([{ ref: "file:brief.xml", revision: "r2" }]);
    const state = structuredClone(controller.state);
    state.currentArtifacts.push(untyped({ ref: "file:deck.gml", revision: 3 }) as unknown as ArtifactReference);
    store.save(state);
    return store;
  }

  it("reopens as an AgentSession that answers: the entry leaves the list, durably, and the host is told once", async () => {
    const store = poisonedStore();
    const faux = pi.faux();
    const setup = await fauxSessionSetup(faux);
    const events: ProtocolEvent[] = [];
    const options = { artifacts, variant: "base", executors: recordingExecutors(), store, ...NO_KNOWLEDGE_HINTS, ...setup, onProtocolEvent: (event: ProtocolEvent) => events.push(event) } as const;
    const reopened = await createGammaSession(options);
    const told = events.filter((event) => event.type === "runtime_error");
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ type: "runtime_error", during: "restore" });
    const error = (told[0] as { error: unknown }).error;
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      "Unexpected currentArtifacts[1].revision 3, expected a string or no revision; the stored entry is dropped from the session's current artifacts (set them again with setCurrentArtifacts)",
    );
    expect(reopened.controller.state.currentArtifacts).toEqual([{ ref: "file:brief.xml", revision: "r2" }]);
    faux.setResponses([fauxAssistantMessage("answer")]);
    await reopened.session.prompt("Continue the deck");
    expect(reopened.session.getLastAssistantText()).toBe("answer");
    await reopened.controller.flush();
    pi.disposeNow(reopened);

    events.length = 0;
    const again = pi.disposeAfterTest(await createGammaSession({ ...options, sessionManager: SessionManager.inMemory(setup.cwd) }));
    expect(events.filter((event) => event.type === "runtime_error")).toEqual([]);
    expect(again.controller.state.currentArtifacts).toEqual([{ ref: "file:brief.xml", revision: "r2" }]);
  });

  it("reopens as an Agent whose compaction restores the context", () => {
    const faux = pi.faux();
    const events: ProtocolEvent[] = [];
    const gamma = pi.disposeAfterTest(
      createGammaAgent({ artifacts, variant: "base", store: poisonedStore(), model: faux.getModel(), executors: recordingExecutors(), onProtocolEvent: (event) => events.push(event), ...NO_KNOWLEDGE_HINTS }),
    );
    expect(events.filter((event) => event.type === "runtime_error").map((event) => (event as { during: string }).during)).toEqual(["restore"]);
    expect(() => restoreAgentContext(gamma.agent, gamma.controller, [])).not.toThrow();
    expect(gamma.controller.state.currentArtifacts).toEqual([{ ref: "file:brief.xml", revision: "r2" }]);
  });
});
