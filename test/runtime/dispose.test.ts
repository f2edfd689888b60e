// A disposed session, on both Pi paths, with a state file: the run it was in
// stops (no model call goes out after the dispose), every later change is
// refused with SessionDisposedError and the host is told, and the state file
// holds exactly what the session did before the dispose.
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import { createGammaAgent, createGammaSession } from "../../src/runtime/pi-adapter.js";
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
