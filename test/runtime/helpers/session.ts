/**
 * Set-up shared by the tests that run a real Gamma agent or AgentSession on
 * the faux provider: one provider per test, everything disposed after it.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ModelRuntime, SessionManager } from "@earendil-works/pi-coding-agent";
import { afterEach } from "vitest";
import type { VariantName } from "../../../src/protocol/dist-manifest.js";
import type { LoadedArtifacts } from "../../../src/runtime/artifacts.js";
import type { KnowledgeOptions } from "../../../src/runtime/knowledge/session-knowledge.js";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { createGammaAgent } from "../../../src/runtime/pi-adapter.js";
import { FileStateStore } from "../../../src/runtime/state.js";
import type { ProtocolEvent } from "../../../src/runtime/yield.js";
import { tempDir } from "./dist.js";
import { recordingExecutors, registerFauxProvider, type Faux } from "./pi.js";

export interface FauxPerTest {
  /** This test's faux provider, registered on first use. */
  faux(): Faux;
  /** Disposes `opened` after this test, before the provider is unregistered. */
  disposeAfterTest<T extends { dispose(): void }>(opened: T): T;
  /** Disposes `opened` now (a simulated restart) and not again after the test. */
  disposeNow(opened: { dispose(): void }): void;
}

/** Call at the top of a test file: after each test, disposes what it opened and unregisters its faux provider. */
export function fauxPerTest(): FauxPerTest {
  let faux: Faux | undefined;
  const opened: { dispose(): void }[] = [];
  afterEach(() => {
    for (const item of opened.splice(0)) item.dispose();
    faux?.unregister();
    faux = undefined;
  });
  return {
    faux: () => (faux ??= registerFauxProvider()),
    disposeAfterTest: (item) => {
      opened.push(item);
      return item;
    },
    disposeNow: (item) => {
      item.dispose();
      const index = opened.indexOf(item);
      if (index !== -1) opened.splice(index, 1);
    },
  };
}

/**
 * The faux model in a Pi ModelRuntime of its own (credentials in a temp
 * folder, no catalog refresh), keyed unless `keyed` is false: without a key
 * session.prompt fails after its input hook.
 */
export async function keyedFauxModel(faux: Faux, options: { keyed?: boolean } = {}) {
  const model = faux.getModel();
  const folder = tempDir("gamma-pi-runtime-");
  const modelRuntime = await ModelRuntime.create({ authPath: join(folder, "auth.json"), modelsPath: null, refreshOnCreate: false });
  modelRuntime.registerNativeProvider(faux.provider);
  if (options.keyed !== false) await modelRuntime.setRuntimeApiKey(model.provider, "test-key");
  return { model, modelRuntime };
}

/**
 * The Pi half of createGammaSession's options: the keyed faux model, a fresh
 * temp cwd with an empty agent folder, and an in-memory session.
 */
export async function fauxSessionSetup(faux: Faux, options: { keyed?: boolean } = {}) {
  const cwd = tempDir("gamma-cwd-");
  const agentDir = join(cwd, ".pi-agent");
  mkdirSync(agentDir);
  return { ...(await keyedFauxModel(faux, options)), cwd, agentDir, sessionManager: SessionManager.inMemory(cwd) };
}

/**
 * For tests about other parts of the protocol: the embedded default's notes
 * would otherwise add knowledge hints to the exact messages they check.
 */
export const NO_KNOWLEDGE_HINTS: { knowledge: KnowledgeOptions } = { knowledge: { maxHints: 0 } };

/** A low-level Gamma agent on the faux model whose host tools answer with plain text (no knowledge hints). */
export function fauxAgent(faux: Faux, artifacts: LoadedArtifacts, variant: VariantName = "base") {
  return createGammaAgent({ artifacts, variant, model: faux.getModel(), executors: recordingExecutors(), ...NO_KNOWLEDGE_HINTS });
}

/** A base-variant Gamma agent that records its protocol events and the host tools it runs. */
export function fauxAgentRecording(faux: Faux, artifacts: LoadedArtifacts) {
  const events: ProtocolEvent[] = [];
  const hostCalls: string[] = [];
  const gamma = createGammaAgent({
    artifacts,
    variant: "base",
    model: faux.getModel(),
    executors: recordingExecutors(hostCalls),
    onProtocolEvent: (event) => events.push(event),
    ...NO_KNOWLEDGE_HINTS,
  });
  return { ...gamma, faux, events, hostCalls };
}

/**
 * A Gamma agent on a file state store, as a server (re)started on a build
 * opens a stored session: disposed after the test, every protocol event in
 * `events`, the Pi messages the host kept passed back when given.
 */
export function agentOnFileStore(
  pi: FauxPerTest,
  options: { artifacts: LoadedArtifacts; variant: string; statePath: string; events: ProtocolEvent[]; messages?: AgentMessage[] | undefined },
) {
  return pi.disposeAfterTest(
    createGammaAgent({
      artifacts: options.artifacts,
      variant: options.variant,
      model: pi.faux().getModel(),
      store: new FileStateStore(options.statePath),
      executors: recordingExecutors(),
      onProtocolEvent: (event) => options.events.push(event),
      ...(options.messages === undefined ? {} : { messages: options.messages }),
      ...NO_KNOWLEDGE_HINTS,
    }),
  );
}

/** What the workspace says when the user saved the brief: a steered artifact update, by its id. */
export const SAVED_BRIEF = "The user saved brief.xml.";
export const savedBriefUpdate = (id: string) =>
  ({
    id,
    kind: "artifact_update",
    occurredAt: "2026-01-01T00:00:00Z",
    source: "workspace",
    delivery: "steer",
    requiresDecision: false,
    summary: SAVED_BRIEF,
    subject: { path: "brief.xml", revision: "r2" },
  }) as const;
