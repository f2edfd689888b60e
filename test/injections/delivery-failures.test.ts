// Deliveries nobody awaits: a turn an injection wakes on an idle session, and a
// message handed to an AgentSession's steering queue. Each failure is told to
// the host as a `runtime_error` protocol event (never an unhandled rejection),
// and an event that never reached Pi waits to be delivered again.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import { collectUnhandledRejections } from "../helpers/unhandled.js";
import { renderInjection } from "../../src/runtime/injections/index.js";
import { createGammaAgent, createGammaSession } from "../../src/runtime/pi-adapter.js";
import { StateWriteFailedError } from "../../src/runtime/state/errors.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { FlakyStore, refuseOnce } from "../runtime/helpers/flaky-store.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "../runtime/helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "../runtime/helpers/session.js";
import { event } from "./helpers/fixtures.js";
import { artifacts } from "./helpers/gamma.js";

const pi = fauxPerTest();

const unhandled = collectUnhandledRejections();

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("a turn an injection wakes", () => {
  it("that fails is reported as a runtime_error, with no unhandled rejection", async () => {
    const store = new FlakyStore("sync");
    const events: ProtocolEvent[] = [];
    const gamma = pi.disposeAfterTest(
      createGammaAgent({ artifacts, variant: "base", store, model: pi.faux().getModel(), executors: recordingExecutors(), onProtocolEvent: (e) => events.push(e), ...NO_KNOWLEDGE_HINTS }),
    );
    // An active task, so a steering event that needs a decision wakes the idle session.
    pi.faux().setResponses([toolUse(fauxToolCall("todo", { tasks: [{ id: "t1", title: "Export", status: "in_progress" }] })), fauxAssistantMessage("working")]);
    await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text: "Export the deck" }) as AgentMessage[]);
    refuseOnce(store, (write) => write.kind === "append" && write.record.op === "remove");
    const quota = event({ kind: "system_update", delivery: "steer", requiresDecision: true, summary: "Export failed; retry or skip?" });
    const routed = gamma.controller.routeUpdate(quota);
    expect(routed.turn).toBeDefined();
    await expect(routed.turn).rejects.toBeInstanceOf(StateWriteFailedError);
    await settle();
    const reported = events.filter((e) => e.type === "runtime_error");
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ type: "runtime_error", during: "wake" });
    expect(unhandled).toEqual([]);
  });
});

describe("a turn an injection wakes whose model call fails", () => {
  const quota = () => event({ kind: "system_update", delivery: "steer", requiresDecision: true, summary: "Image quota reached; ask the user?" });
  const working = () => [toolUse(fauxToolCall("todo", { tasks: [{ id: "t1", title: "Export", status: "in_progress" }] })), fauxAssistantMessage("working")];
  const failing = () => fauxAssistantMessage([], { stopReason: "error", errorMessage: "529 overloaded" });

  it("rejects its turn and is reported on the Agent path; the event is in the conversation, and the next prompt carries it once", async () => {
    const events: ProtocolEvent[] = [];
    const gamma = pi.disposeAfterTest(
      createGammaAgent({ artifacts, variant: "base", model: pi.faux().getModel(), executors: recordingExecutors(), onProtocolEvent: (e) => events.push(e), ...NO_KNOWLEDGE_HINTS }),
    );
    const seen: SeenContext[] = [];
    pi.faux().setResponses([...working(), failing(), seeing(seen, fauxAssistantMessage("I will ask the user."))]);
    await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text: "Export the deck" }) as AgentMessage[]);
    const update = quota();
    const routed = gamma.controller.routeUpdate(update);
    await expect(routed.turn).rejects.toMatchObject({ name: "WakeTurnFailedError", modelError: "529 overloaded" });
    await settle();
    expect(events.filter((e) => e.type === "runtime_error")).toMatchObject([{ type: "runtime_error", during: "wake", error: { name: "WakeTurnFailedError" } }]);
    expect(gamma.controller.state.pendingInjections).toEqual([]);
    await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text: "Go on" }) as AgentMessage[]);
    const rendered = renderInjection(update, artifacts.injectionKinds);
    expect(seen[0]?.messages.filter((message) => textOf(message) === rendered)).toHaveLength(1);
    expect(unhandled).toEqual([]);
  });

  it("rejects its turn and is reported on the AgentSession path", async () => {
    const events: ProtocolEvent[] = [];
    const gamma = pi.disposeAfterTest(
      await createGammaSession({
        artifacts,
        variant: "base",
        executors: recordingExecutors(),
        onProtocolEvent: (e) => events.push(e),
        ...(await fauxSessionSetup(pi.faux())),
        ...NO_KNOWLEDGE_HINTS,
      }),
    );
    pi.faux().setResponses([...working(), failing()]);
    await gamma.session.prompt("Export the deck");
    const routed = gamma.controller.routeUpdate(quota());
    await expect(routed.turn).rejects.toMatchObject({ name: "WakeTurnFailedError" });
    await settle();
    expect(events.filter((e) => e.type === "runtime_error")).toMatchObject([{ type: "runtime_error", during: "wake" }]);
    expect(unhandled).toEqual([]);
  });
});

describe("a message handed to an AgentSession's steering queue", () => {
  it("that never gets there is reported, and the event waits again: the next batch end delivers it, once", async () => {
    const events: ProtocolEvent[] = [];
    const update = event({ kind: "system_guidance", delivery: "steer", summary: "Keep the deck to ten cards." });
    const gamma = pi.disposeAfterTest(
      await createGammaSession({
        artifacts,
        variant: "base",
        executors: {
          ...recordingExecutors(),
          read: async () => {
            gamma.controller.routeUpdate(update);
            return { content: [{ type: "text", text: "brief r1" }] };
          },
        },
        onProtocolEvent: (e) => events.push(e),
        ...(await fauxSessionSetup(pi.faux())),
        ...NO_KNOWLEDGE_HINTS,
      }),
    );
    // The session's queue refuses the first steering message (a session shutting down, a full queue).
    const send = gamma.session.sendCustomMessage.bind(gamma.session);
    let refused = false;
    gamma.session.sendCustomMessage = async (message, options) => {
      if (!refused && options?.deliverAs === "steer") {
        refused = true;
        throw new Error("steering queue closed");
      }
      return send(message, options);
    };
    const seen: SeenContext[] = [];
    pi.faux().setResponses([toolUse(fauxToolCall("read", { path: "brief.xml" })), seeing(seen, fauxAssistantMessage("ok")), seeing(seen, fauxAssistantMessage("next"))]);
    await gamma.session.prompt("Generate from the brief");
    await settle();
    expect(events.filter((e) => e.type === "runtime_error")).toMatchObject([{ type: "runtime_error", during: "steer", error: { message: "steering queue closed" } }]);
    // The call after the tool batch went without it; the next batch end (the answer "ok") steered it in again.
    const rendered = renderInjection(update, artifacts.injectionKinds);
    expect(seen.map((call) => call.messages.filter((message) => textOf(message) === rendered).length)).toEqual([0, 1]);
    expect(gamma.controller.state.pendingInjections).toEqual([]);
    expect(unhandled).toEqual([]);
  });
});
