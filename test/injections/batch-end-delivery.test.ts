// Issue contract: every steering (or follow-up) event due at one batch end
// enters before the next model call together, in one call, on both Pi paths.
import { describe, expect, it } from "vitest";
import { renderInjection, type RuntimeInjection } from "../../src/runtime/injections/index.js";
import { createGammaSession } from "../../src/runtime/pi-adapter.js";
import type { ToolExecutor } from "../../src/runtime/tools.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "../runtime/helpers/pi.js";
import { fauxPerTest, fauxSessionSetup } from "../runtime/helpers/session.js";
import { event } from "./helpers/fixtures.js";
import { artifacts, createHarness } from "./helpers/gamma.js";

const pi = fauxPerTest();
const rendered = (injection: RuntimeInjection): string => renderInjection(injection, artifacts.injectionKinds);

const steers = (): RuntimeInjection[] => [
  event({ kind: "system_guidance", delivery: "steer", summary: "Keep every card under 60 words." }),
  event({ kind: "system_update", delivery: "steer", summary: "The image quota was raised." }),
  event({ kind: "workspace_update", delivery: "steer", summary: "Workspace instructions changed." }),
];

const followUps = (): RuntimeInjection[] => [
  event({ kind: "background_result", delivery: "follow_up", source: "background_job", summary: "Research finished.", details: { jobId: "job-a" } }),
  event({ kind: "background_result", delivery: "follow_up", source: "background_job", summary: "Render finished.", details: { jobId: "job-b" } }),
];

describe("three steering events after one tool batch on a low-level Agent", () => {
  it("enter together before the next model call: two model calls, not four", async () => {
    const events = steers();
    const h = createHarness({
      executors: {
        read: async () => {
          for (const injection of events) h.controller.routeUpdate(injection);
          return { content: [{ type: "text", text: "brief r1" }] };
        },
      },
    });
    try {
      const seen: SeenContext[] = [];
      h.faux.setResponses([
        toolUse(fauxToolCall("read", { path: "q3/brief.xml" })),
        seeing(seen, fauxAssistantMessage("Applying the guidance.")),
        seeing(seen, fauxAssistantMessage("unexpected extra call")),
      ]);
      await h.agent.prompt("Generate from the brief");
      expect(h.faux.state.callCount).toBe(2);
      expect(seen).toHaveLength(1);
      expect((seen[0]?.messages ?? []).slice(-3).map(textOf)).toEqual(events.map(rendered));
      expect(h.controller.state.pendingInjections).toEqual([]);
    } finally {
      h.dispose();
    }
  });

  it("follow-ups due when the run would stop enter together: one more call, not one per event", async () => {
    const events = followUps();
    const h = createHarness({
      executors: {
        subagent: async () => {
          for (const injection of events) h.controller.routeUpdate(injection);
          return { content: [{ type: "text", text: "started" }] };
        },
      },
    });
    try {
      const seen: SeenContext[] = [];
      h.faux.setResponses([
        toolUse(fauxToolCall("subagent", { task: "research" })),
        fauxAssistantMessage("Outline drafted."),
        seeing(seen, fauxAssistantMessage("Reviewed both results.")),
        seeing(seen, fauxAssistantMessage("unexpected extra call")),
      ]);
      await h.agent.prompt("Draft the outline");
      expect(h.faux.state.callCount).toBe(3);
      expect((seen[0]?.messages ?? []).slice(-2).map(textOf)).toEqual(events.map(rendered));
    } finally {
      h.dispose();
    }
  });
});

describe("three steering events after one tool batch on an AgentSession", () => {
  it("enter together before the next model call: two model calls, not four", async () => {
    const events = steers();
    const faux = pi.faux();
    const read: ToolExecutor = async () => {
      for (const injection of events) gamma.controller.routeUpdate(injection);
      return { content: [{ type: "text", text: "brief r1" }] };
    };
    const gamma = pi.disposeAfterTest(
      await createGammaSession({ artifacts, variant: "base", executors: { ...recordingExecutors(), read }, ...(await fauxSessionSetup(faux)) }),
    );
    const seen: SeenContext[] = [];
    faux.setResponses([
      toolUse(fauxToolCall("read", { path: "q3/brief.xml" })),
      seeing(seen, fauxAssistantMessage("Applying the guidance.")),
      seeing(seen, fauxAssistantMessage("unexpected extra call")),
    ]);
    await gamma.session.prompt("Generate from the brief");
    expect(faux.state.callCount).toBe(2);
    expect((seen[0]?.messages ?? []).slice(-3).map(textOf)).toEqual(events.map(rendered));
    expect(gamma.controller.state.pendingInjections).toEqual([]);
  });
});
