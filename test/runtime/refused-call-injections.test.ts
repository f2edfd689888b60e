// An event leaves the pending set only when a model call used a context that carried it. A call that is
// refused after all (the host aborts the run while the event waits to go out) delivered nothing: the event
// stays pending, so a compaction that drops it from the transcript still hands it to the model in its anchor.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import type { Agent } from "@earendil-works/pi-agent-core";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import type { SessionProtocolController } from "../../src/runtime/controller.js";
import { createGammaAgent, createGammaSession, restoreAgentContext } from "../../src/runtime/pi-adapter.js";
import type { StateRecord } from "../../src/runtime/state/journal.js";
import { MemoryStateStore, type StateStore } from "../../src/runtime/state/store.js";
import type { ExecutionState } from "../../src/runtime/execution-state.js";
import type { HostExecutors } from "../../src/runtime/tools.js";
import { prepareDist } from "./helpers/dist.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS, SAVED_BRIEF, savedBriefUpdate } from "./helpers/session.js";

const pi = fauxPerTest();
const artifacts = loadArtifacts({ distDir: prepareDist() });
const SAVED = SAVED_BRIEF;
const update = savedBriefUpdate;

/** A store whose write of a removal from the pending set calls `onRemoval` first (the host aborting meanwhile). */
class RemovalWatchingStore implements StateStore {
  readonly inner = new MemoryStateStore();
  onRemoval: () => void = () => undefined;
  load(): ExecutionState | undefined {
    return this.inner.load();
  }
  save(state: ExecutionState): void {
    this.inner.save(state);
  }
  async append(record: StateRecord, current: () => ExecutionState): Promise<void> {
    if (record.op === "remove") {
      this.onRemoval();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    this.inner.append(record, current);
  }
}

/** Host tools whose `bash` routes the workspace's event and then runs `then` (an abort) before it answers. */
function executorsThat(route: () => void, then: () => void): HostExecutors {
  return {
    ...recordingExecutors(),
    bash: async () => {
      route();
      then();
      return { content: [{ type: "text", text: "built" }] };
    },
  };
}

const carried = (seen: readonly SeenContext[]): boolean => seen.some((context) => context.messages.some((message) => textOf(message).includes(SAVED)));

describe("an event whose model call was refused stays pending", () => {
  it.each(["before the call is made", "while its removal is written"] as const)("Agent path: the host aborts %s; a compaction's anchor then carries the event", async (when) => {
    const seen: SeenContext[] = [];
    const faux = pi.faux();
    faux.setResponses([toolUse(fauxToolCall("bash", { command: "build" })), seeing(seen, fauxAssistantMessage("never sent")), seeing(seen, fauxAssistantMessage("Noted."))]);
    const store = new RemovalWatchingStore();
    let agent: Agent | undefined;
    let controller: SessionProtocolController | undefined;
    const route = (): void => void controller?.routeUpdate(update("e1"));
    const abort = (): void => agent?.abort();
    const gamma = pi.disposeAfterTest(
      createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), store, executors: executorsThat(route, when === "before the call is made" ? abort : () => undefined), ...NO_KNOWLEDGE_HINTS }),
    );
    ({ agent, controller } = gamma);
    if (when === "while its removal is written") store.onRemoval = abort;

    await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text: "go" }) as AgentMessage[]);
    expect(carried(seen)).toBe(false);
    expect(gamma.controller.state.pendingInjections.map((entry) => entry.id)).toEqual(["e1"]);

    // The host compacts, keeping only the user's message: the event's message is gone from the transcript.
    store.onRemoval = () => undefined;
    restoreAgentContext(gamma.agent, gamma.controller, gamma.agent.state.messages.slice(1, 2));
    await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text: "continue" }) as AgentMessage[]);
    expect(carried(seen)).toBe(true);
    expect(gamma.controller.state.pendingInjections).toEqual([]);
  });

  it("AgentSession path: the host aborts while the removal is written; the event is still pending, and the next call carries it", async () => {
    const seen: SeenContext[] = [];
    const faux = pi.faux();
    faux.setResponses([toolUse(fauxToolCall("bash", { command: "build" })), seeing(seen, fauxAssistantMessage("never sent")), seeing(seen, fauxAssistantMessage("Noted."))]);
    const store = new RemovalWatchingStore();
    let controller: SessionProtocolController | undefined;
    let abort = (): void => undefined;
    const gamma = pi.disposeAfterTest(
      await createGammaSession({
        artifacts,
        variant: "base",
        store,
        executors: executorsThat(() => void controller?.routeUpdate(update("e1")), () => undefined),
        ...NO_KNOWLEDGE_HINTS,
        ...(await fauxSessionSetup(faux)),
      }),
    );
    controller = gamma.controller;
    abort = () => void gamma.session.abort();
    store.onRemoval = () => abort();

    await gamma.session.prompt("go").catch(() => undefined);
    expect(carried(seen)).toBe(false);
    expect(gamma.controller.state.pendingInjections.map((entry) => entry.id)).toEqual(["e1"]);

    store.onRemoval = () => undefined;
    await gamma.session.prompt("continue");
    expect(carried(seen)).toBe(true);
    expect(gamma.controller.state.pendingInjections).toEqual([]);
  });
});
