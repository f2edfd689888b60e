/**
 * A plain JavaScript host's mistakes at the runtime's public entry points: a
 * TypeError (a wrong type) or a RangeError (a value out of range) naming the
 * option or argument and what it takes, before anything is opened, changed,
 * stored or sent; never an internal TypeError from deep inside.
 */
import { describe, expect, it } from "vitest";
import { loadArtifacts, readSkillFile } from "../../src/runtime/artifacts.js";
import { SessionProtocolController } from "../../src/runtime/controller.js";
import { createGammaAgent, createGammaSession, openGammaAgent } from "../../src/runtime/pi-adapter.js";
import { stubExecutors } from "../../src/runtime/index.js";
import { FileStateStore, MemoryStateStore } from "../../src/runtime/state.js";
import { prepareDist, tempDir } from "./helpers/dist.js";
import { fauxAssistantMessage, recordingExecutors } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";

const pi = fauxPerTest();
const distDir = prepareDist();
const artifacts = loadArtifacts({ distDir });

/** Calls `call` as plain JavaScript would (any arguments); the error it throws, or rejects with. */
async function errorOf(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to throw");
}

async function expectRefused(call: () => unknown, type: typeof TypeError | typeof RangeError, message: string): Promise<void> {
  const error = await errorOf(call);
  expect(error, message).toBeInstanceOf(type);
  expect((error as Error).message).toBe(message);
}

/** A value a plain JavaScript host passes, whatever the types say. */
const js = (value: unknown): never => value as never;

describe("createGammaAgent, openGammaAgent and createGammaSession", () => {
  const base = () => ({ artifacts, variant: "base", model: pi.faux().getModel(), executors: recordingExecutors() });

  it("name the option a host left out or got wrong", async () => {
    await expectRefused(() => createGammaAgent(js(undefined)), TypeError, "Unexpected createGammaAgent options undefined, expected an object such as { artifacts: loadArtifacts(), variant, model, executors }");
    await expectRefused(() => openGammaAgent(js({})), TypeError, 'Unexpected model undefined, expected a pi-ai Model (e.g. getModel("openai", "gpt-5")) for the session\'s model calls');
    await expectRefused(() => createGammaAgent(js({ ...base(), model: undefined })), TypeError, 'Unexpected model undefined, expected a pi-ai Model (e.g. getModel("openai", "gpt-5")) for the session\'s model calls');
    await expectRefused(() => createGammaAgent(js({ ...base(), model: "openai/gpt-5" })), TypeError, 'Unexpected model "openai/gpt-5", expected a pi-ai Model (e.g. getModel("openai", "gpt-5")) for the session\'s model calls');
    await expectRefused(() => createGammaAgent(js({ ...base(), artifacts: undefined })), TypeError, "Unexpected artifacts undefined, expected the loaded artifacts, from loadArtifacts({ distDir })");
    await expectRefused(() => createGammaAgent(js({ ...base(), artifacts: {} })), TypeError, "Unexpected artifacts.variants undefined, expected the loaded artifacts, from loadArtifacts({ distDir })");
    await expectRefused(() => createGammaAgent(js({ ...base(), variant: 42 })), TypeError, 'Unexpected variant 42, expected a variant name ("base", "deck-generation", "import")');
    await expectRefused(() => createGammaAgent(js({ ...base(), toolLoading: "bogus" })), TypeError, 'Unexpected toolLoading "bogus", expected "late" or "start"');
    await expectRefused(() => createGammaAgent(js({ ...base(), onProtocolEvent: 5 })), TypeError, "Unexpected onProtocolEvent 5, expected a function that takes each protocol event");
    await expectRefused(() => createGammaAgent(js({ ...base(), invocation: "x" })), TypeError, 'Unexpected invocation "x", expected an object such as { session: ["deck-generation"], maxRefusals: 2 }');
    await expectRefused(() => createGammaAgent(js({ ...base(), invocation: { maxRefusals: -1 } })), RangeError, "Unexpected invocation.maxRefusals -1, expected an integer, 0 or more");
    await expectRefused(() => createGammaAgent(js({ ...base(), store: 42 })), TypeError, "Unexpected store 42, expected a state store (MemoryStateStore, FileStateStore, or one of the host's)");
    const setup = await fauxSessionSetup(pi.faux());
    await expectRefused(() => createGammaSession(js({ ...setup, artifacts, variant: "base", executors: recordingExecutors(), toolLoading: 1 })), TypeError, 'Unexpected toolLoading 1, expected "late" or "start"');
    await expectRefused(() => new SessionProtocolController(js({ artifacts, variant: "base", now: "today" })), TypeError, "Unexpected now \"today\", expected a function that returns the time in milliseconds");
  });

  it("still take what the types allow: a policy function, the defaults, 0 refusals", () => {
    const gamma = pi.disposeAfterTest(createGammaAgent({ ...base(), toolLoading: () => "start", invocation: { maxRefusals: 0 } }));
    expect(gamma.controller.variant).toBe("base");
  });
});

describe("the controller's host calls", () => {
  it("refuse a string where a list of names belongs, instead of reading it character by character", async () => {
    const controller = new SessionProtocolController({ artifacts, variant: "base" });
    await expectRefused(() => controller.requireSkills(js("deck-generation"), "turn"), TypeError, 'Unexpected required skills "deck-generation", expected an array of skill names, such as ["deck-generation"]');
    await expectRefused(() => controller.buildTurnMessages({ text: "Make a deck", requiredSkills: js("deck-generation") }), TypeError, 'Unexpected required skills "deck-generation", expected an array of skill names, such as ["deck-generation"]');
    await expectRefused(() => controller.requireSkills(js(["deck-generation", 4])), TypeError, "Unexpected required skills[1] 4, expected a string");
    await expectRefused(() => controller.loadNamespacesForHost(js("drive")), TypeError, 'Unexpected namespace names "drive", expected an array of namespace names, such as ["drive"]');
    expect(controller.state.requiredSkills ?? []).toEqual([]);
  });

  it("buildTurnMessages refuses text passed alone, and no model call goes out", async () => {
    const faux = pi.faux();
    const gamma = pi.disposeAfterTest(createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: recordingExecutors(), ...NO_KNOWLEDGE_HINTS }));
    faux.setResponses([fauxAssistantMessage("unexpected")]);
    await expectRefused(() => gamma.controller.buildTurnMessages(js("Make a deck about tide pools")), TypeError, 'Unexpected buildTurnMessages input "Make a deck about tide pools", expected an object such as { text: "Make a deck about tide pools" }');
    await expectRefused(() => gamma.controller.buildTurnMessages(js(undefined)), TypeError, 'Unexpected buildTurnMessages input undefined, expected an object such as { text: "Make a deck about tide pools" }');
    await expectRefused(() => gamma.controller.buildTurnMessages(js({ text: 5 })), TypeError, "Unexpected text 5, expected a string");
    expect(faux.state.callCount).toBe(0);
    expect(gamma.controller.buildTurnMessages({ text: "" })).toHaveLength(1);
  });
});

describe("stores and artifact helpers", () => {
  it("name the argument or option", async () => {
    await expectRefused(() => new FileStateStore(js(42)), TypeError, 'Unexpected FileStateStore path 42, expected the state file\'s path, such as "state/session-1.json"');
    const path = `${tempDir()}/state.json`;
    await expectRefused(() => new FileStateStore(path, js({ fsync: "bogus" })), TypeError, 'Unexpected fsync "bogus", expected "snapshot" or "always"');
    await expectRefused(() => new FileStateStore(path, js({ compactAfterBytes: -1 })), RangeError, "Unexpected compactAfterBytes -1, expected an integer, 1 or more");
    await expectRefused(() => new FileStateStore(path, js("x")), TypeError, 'Unexpected FileStateStore options "x", expected an object such as { compactAfterBytes: 1048576 }');
    await expectRefused(() => new MemoryStateStore(js({ compactAfterBytes: "x" })), RangeError, 'Unexpected compactAfterBytes "x", expected an integer, 1 or more');
    await expectRefused(() => stubExecutors(js(undefined)), TypeError, "Unexpected artifacts undefined, expected the loaded artifacts, from loadArtifacts({ distDir })");
    await expectRefused(() => readSkillFile(artifacts, js(42)), TypeError, 'Unexpected path 42, expected a path as the model reads it, skills/<name>/<file>, such as "skills/deck-generation/references/layouts.md"');
    await expectRefused(() => loadArtifacts({ distDir, manifestSha256: js(42) }), TypeError, "Unexpected manifestSha256 42, expected the manifest's sha256, 64 hexadecimal digits");
    await expectRefused(() => loadArtifacts({ distDir, manifestSha256: "abc" }), TypeError, 'Unexpected manifestSha256 "abc", expected the manifest\'s sha256, 64 hexadecimal digits');
  });
});
