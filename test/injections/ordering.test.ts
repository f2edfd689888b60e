// Issue contract: pending events are delivered in the order of their instants
// (occurredAt compared as points in time, whatever the offset), ties in the
// order they arrived; on the next turn, the anchor, and both Pi paths.
import { describe, expect, it } from "vitest";
import { renderInjection, type RuntimeInjection } from "../../src/runtime/injections/index.js";
import { createGammaSession } from "../../src/runtime/pi-adapter.js";
import { fauxAssistantMessage, recordingExecutors, seeing, textOf, type SeenContext } from "../runtime/helpers/pi.js";
import { fauxPerTest, fauxSessionSetup } from "../runtime/helpers/session.js";
import { event } from "./helpers/fixtures.js";
import { artifacts, createHarness } from "./helpers/gamma.js";

const pi = fauxPerTest();
const rendered = (injection: RuntimeInjection): string => renderInjection(injection, artifacts.injectionKinds);

/** Routed in this order; as text they sort 03:59 < 08:30 < 09:00 < 10:30, as instants differently. */
function events(): { routed: RuntimeInjection[]; expected: RuntimeInjection[] } {
  const berlin = event({ summary: "At 08:30Z.", occurredAt: "2026-03-01T10:30:00+02:00" });
  const utc = event({ summary: "At 09:00:00.5Z.", occurredAt: "2026-03-01T09:00:00.500Z" });
  const newYork = event({ summary: "At 08:59Z.", occurredAt: "2026-03-01T03:59:00-05:00" });
  // The same instant as `berlin`, arriving later: ties keep the arrival order, whatever the ids.
  const tie = event({ id: "a_first_by_id", summary: "Also at 08:30Z.", occurredAt: "2026-03-01T08:30:00Z" });
  return { routed: [utc, berlin, newYork, tie], expected: [berlin, tie, newYork, utc] };
}

describe("next-turn order on a low-level Agent", () => {
  it("compares instants, not text, and keeps arrival order for ties", async () => {
    const { routed, expected } = events();
    const h = createHarness();
    try {
      for (const injection of routed) h.controller.routeUpdate(injection);
      expect(h.controller.injections.pending().map((injection) => injection.id)).toEqual(expected.map((injection) => injection.id));
      const seen: SeenContext[] = [];
      h.faux.setResponses([seeing(seen, fauxAssistantMessage("ok"))]);
      await h.promptUser("Go on");
      expect(seen[0]?.messages.map(textOf)).toEqual(["Go on", ...expected.map(rendered)]);
    } finally {
      h.dispose();
    }
  });

  it("the anchor lists them in the same order", () => {
    const { routed, expected } = events();
    const h = createHarness();
    try {
      for (const injection of routed) h.controller.routeUpdate(injection);
      const anchor = h.controller.anchorMessage().content;
      const positions = expected.map((injection) => anchor.indexOf(rendered(injection)));
      expect(positions.every((position) => position > 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    } finally {
      h.dispose();
    }
  });
});

describe("next-turn order on an AgentSession", () => {
  it("compares instants, not text, and keeps arrival order for ties", async () => {
    const { routed, expected } = events();
    const faux = pi.faux();
    const gamma = pi.disposeAfterTest(await createGammaSession({ artifacts, variant: "base", executors: recordingExecutors(), ...(await fauxSessionSetup(faux)) }));
    for (const injection of routed) gamma.controller.routeUpdate(injection);
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("ok"))]);
    await gamma.session.prompt("Go on");
    expect(seen[0]?.messages.map(textOf)).toEqual(["Go on", ...expected.map(rendered)]);
  });
});
