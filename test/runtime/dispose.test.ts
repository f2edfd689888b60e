// A disposed session, on both Pi paths, with a state file: the run it was in
// stops (no model call goes out after the dispose), every later change is
// refused with SessionDisposedError and the host is told, and the state file
// holds exactly what the session did before the dispose.
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import { createGammaAgent, createGammaSession, openGammaAgent } from "../../src/runtime/pi-adapter.js";
import type { ExecutionState } from "../../src/runtime/execution-state.js";
import type { StateRecord } from "../../src/runtime/state/journal.js";
import { MemoryStateStore } from "../../src/runtime/state/store.js";
import type { SessionProtocolController } from "../../src/runtime/controller.js";
import { SessionDisposedError } from "../../src/runtime/state/errors.js";
import { FileStateStore } from "../../src/runtime/state.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { artifacts } from "../injections/helpers/gamma.js";
import { tempDir } from "./helpers/dist.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, toolUse } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";

const pi = fauxPerTest();

interface Opened {
  controller: SessionProtocolController;
  prompt(text: string): Promise<void>;
  /** The last message Pi holds. */
  last(): AgentMessage | undefined;
  /** Pi asked to go on after the dispose (a host's `continue()`, a retry): no model call may go out. */
  again(): Promise<void>;
  dispose(): void;
}

async function open(path: "agent" | "session", statePath: string, events: ProtocolEvent[]): Promise<Opened> {
  const common = { artifacts, variant: "base" as const, store: new FileStateStore(statePath), executors: recordingExecutors(), onProtocolEvent: (e: ProtocolEvent) => events.push(e), ...NO_KNOWLEDGE_HINTS };
  if (path === "agent") {
    const gamma = createGammaAgent({ ...common, model: pi.faux().getModel() });
    return {
      controller: gamma.controller,
      prompt: async (text) => gamma.agent.prompt(gamma.controller.buildTurnMessages({ text }) as AgentMessage[]),
      last: () => gamma.agent.state.messages.at(-1),
      again: () => gamma.agent.continue(),
      dispose: () => gamma.dispose(),
    };
  }
  const gamma = await createGammaSession({ ...common, ...(await fauxSessionSetup(pi.faux())) });
  return {
    controller: gamma.controller,
    prompt: (text) => gamma.session.prompt(text),
    last: () => gamma.session.agent.state.messages.at(-1),
    again: () => gamma.session.agent.continue(),
    dispose: () => gamma.dispose(),
  };
}

describe.each(["agent", "session"] as const)("a session disposed on the %s path", (path) => {
  it("during a run: the run stops, no model call goes out after it, a later change is refused and told, and the state file holds what came before", async () => {
    const statePath = join(tempDir(), "state.json");
    const events: ProtocolEvent[] = [];
    const opened = await open(path, statePath, events);
    const calls: number[] = [];
    // Each reply plans one more task; the host disposes the session while the second call streams.
    const planStep = (step: number) => () => {
      calls.push(step);
      if (step === 2) opened.dispose();
      return toolUse(fauxToolCall("todo", { tasks: [{ id: `t${step}`, title: `Step ${step}`, status: "in_progress" }] }));
    };
    pi.faux().setResponses([planStep(1), planStep(2), planStep(3), fauxAssistantMessage("done")]);
    await opened.prompt("Make a deck").catch(() => {});
    expect(calls).toEqual([1, 2]);
    expect(opened.last()).toMatchObject({ role: "assistant", stopReason: "aborted" });
    expect(opened.controller.state.tasks.items.map((task) => task.id)).toEqual(["t1"]);

    expect(() => opened.controller.updateTasks([{ id: "late", title: "Written after dispose", status: "in_progress" }])).toThrow(SessionDisposedError);
    expect(() => opened.controller.setCurrentArtifacts([{ ref: "file:deck.gml" }])).toThrow(SessionDisposedError);
    await opened.controller.flush();
    const told = events.filter((e) => e.type === "runtime_error" && e.during === "disposed");
    expect(told).toHaveLength(2);
    expect(String((told[0] as { error: unknown }).error)).toContain("after the session was disposed");

    // Pi asked to go on anyway: still no model call.
    await opened.again().catch(() => {});
    expect(calls).toEqual([1, 2]);

    const stored = new FileStateStore(statePath).load();
    expect(stored?.tasks.items.map((task) => task.id)).toEqual(["t1"]);
    expect(stored?.currentArtifacts).toEqual([]);
    expect(stored?.revision).toBe(opened.controller.state.revision);
  });

  it("after dispose: a new prompt is refused with SessionDisposedError and told, and no model call goes out", async () => {
    const events: ProtocolEvent[] = [];
    const opened = await open(path, join(tempDir(), "state.json"), events);
    let calls = 0;
    pi.faux().setResponses([() => (calls++, fauxAssistantMessage("first")), () => (calls++, fauxAssistantMessage("second"))]);
    await opened.prompt("Make a deck");
    opened.dispose();
    await expect(opened.prompt("Try again please")).rejects.toBeInstanceOf(SessionDisposedError);
    expect(calls).toBe(1);
    expect(events.filter((e) => e.type === "runtime_error" && e.during === "disposed")).toHaveLength(1);
  });
});

/** A store in front of a MemoryStateStore whose writes, once `hang` is set, never answer (a database behind a partition). */
class HangingStore {
  readonly inner = new MemoryStateStore();
  hang = false;
  writes = 0;
  load() {
    return Promise.resolve(this.inner.load());
  }
  save(state: ExecutionState): Promise<void> {
    return this.write(() => this.inner.save(state));
  }
  append(record: StateRecord, current: () => ExecutionState): Promise<void> {
    return this.write(() => this.inner.append(record, current));
  }
  private write(apply: () => void): Promise<void> {
    this.writes += 1;
    if (this.hang) return new Promise(() => {});
    apply();
    return Promise.resolve();
  }
}

describe.each(["agent", "session"] as const)("a run waiting for a store write that never answers, on the %s path", (path) => {
  async function openHanging(store: HangingStore, events: ProtocolEvent[]) {
    const common = { artifacts, variant: "base" as const, store, executors: recordingExecutors(), onProtocolEvent: (e: ProtocolEvent) => events.push(e), ...NO_KNOWLEDGE_HINTS };
    if (path === "agent") {
      const gamma = await openGammaAgent({ ...common, model: pi.faux().getModel() });
      return { controller: gamma.controller, prompt: (text: string) => gamma.agent.prompt(gamma.controller.buildTurnMessages({ text }) as AgentMessage[]), abort: () => gamma.agent.abort(), dispose: () => gamma.dispose() };
    }
    const gamma = await createGammaSession({ ...common, ...(await fauxSessionSetup(pi.faux())) });
    return { controller: gamma.controller, prompt: (text: string) => gamma.session.prompt(text), abort: () => void gamma.session.abort(), dispose: () => gamma.dispose() };
  }

  it.each(["dispose", "abort"] as const)("ends with %s(): the prompt settles, no model call goes out after it", async (ending) => {
    const store = new HangingStore();
    const events: ProtocolEvent[] = [];
    const opened = await openHanging(store, events);
    let calls = 0;
    let stuck: () => void = () => {};
    const waiting = new Promise<void>((resolve) => (stuck = resolve));
    pi.faux().setResponses([
      () => {
        calls += 1;
        // The todo call's write will never answer.
        store.hang = true;
        return toolUse(fauxToolCall("todo", { tasks: [{ id: "t1", title: "Outline the deck", status: "in_progress" }] }));
      },
      () => (calls++, fauxAssistantMessage("done")),
    ]);
    const writes = store.writes;
    const running = opened.prompt("Make a deck").then(
      () => "settled",
      (error: unknown) => (error instanceof SessionDisposedError ? "settled" : error),
    );
    // The run is held once the todo's write went out and did not answer.
    const poll = setInterval(() => {
      if (store.writes > writes && store.hang) stuck();
    }, 5);
    await waiting;
    clearInterval(poll);
    if (ending === "dispose") opened.dispose();
    else opened.abort();
    expect(await running).toBe("settled");
    expect(calls).toBe(1);
    opened.dispose();
  });
});
