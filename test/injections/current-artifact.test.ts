// Issue contract: `setCurrentArtifacts` is the design's `currentArtifact`. An
// artifact_update for a current artifact (by ref or by path) is steered into the
// running task even when its producer asked for the next turn; the list replaces
// the previous one, `[]` clears it, and it is durable and restored by the anchor.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderInjection, type RuntimeInjection } from "../../src/runtime/injections/index.js";
import { FileStateStore } from "../../src/runtime/state.js";
import { tempDir } from "../runtime/helpers/dist.js";
import { fauxAssistantMessage, fauxToolCall, seeing, textOf, toolUse, type SeenContext } from "../runtime/helpers/pi.js";
import { event } from "./helpers/fixtures.js";
import { artifacts, createHarness, type GammaHarness } from "./helpers/gamma.js";

const rendered = (injection: RuntimeInjection): string => renderInjection(injection, artifacts.injectionKinds);
const update = (subject: RuntimeInjection["subject"], summary: string): RuntimeInjection =>
  event({ kind: "artifact_update", delivery: "next_turn", summary, ...(subject ? { subject } : {}), origin: { actor: "collaborator" } });

/** Runs one tool batch during which `routed` arrive; returns the texts the model saw after the batch. */
async function duringBatch(h: GammaHarness, routed: RuntimeInjection[]): Promise<string[]> {
  let routedOnce = false;
  h.agent.subscribe((piEvent) => {
    if (piEvent.type === "tool_execution_start" && !routedOnce) {
      routedOnce = true;
      for (const injection of routed) h.controller.routeUpdate(injection);
    }
  });
  const seen: SeenContext[] = [];
  h.faux.setResponses([toolUse(fauxToolCall("read", { path: "q3/brief.xml" })), seeing(seen, fauxAssistantMessage("ok"))]);
  await h.agent.prompt("Work on the deck");
  return (seen[0]?.messages ?? []).slice(3).map(textOf);
}

describe("setCurrentArtifacts", () => {
  it("steers updates of a current artifact matched by ref or by path; others wait for the next turn", async () => {
    const h = createHarness();
    try {
      h.controller.setCurrentArtifacts([{ ref: "gamma:file:g_1:d_2", title: "Q3 review" }, { ref: "file:q3/brief.xml", path: "q3/brief.xml" }]);
      const byRef = update({ ref: "gamma:file:g_1:d_2", revision: "rev_9" }, "Cards card_3 and card_5 changed.");
      const byPath = update({ path: "q3/brief.xml", revision: "r2" }, "The audience section changed.");
      const other = update({ ref: "gamma:file:g_1:d_7" }, "Another deck changed.");
      expect(await duringBatch(h, [byRef, byPath, other])).toEqual([rendered(byRef), rendered(byPath)]);
      expect(h.controller.state.pendingInjections.map((entry) => entry.id)).toEqual([other.id]);
    } finally {
      h.dispose();
    }
  });

  it("replaces the previous list, and [] clears it", async () => {
    const h = createHarness();
    try {
      h.controller.setCurrentArtifacts([{ ref: "gamma:file:g_1:d_2" }]);
      h.controller.setCurrentArtifacts([{ ref: "gamma:file:g_1:d_3" }]);
      expect(h.controller.state.currentArtifacts).toEqual([{ ref: "gamma:file:g_1:d_3" }]);
      const old = update({ ref: "gamma:file:g_1:d_2" }, "The old deck changed.");
      const current = update({ ref: "gamma:file:g_1:d_3" }, "The current deck changed.");
      expect(await duringBatch(h, [old, current])).toEqual([rendered(current)]);
      h.controller.setCurrentArtifacts([]);
      expect(h.controller.state.currentArtifacts).toEqual([]);
      expect(h.controller.policyContext().currentArtifacts).toEqual([]);
    } finally {
      h.dispose();
    }
  });

  it("is durable and travels in the anchor", () => {
    const path = join(tempDir("gamma-current-"), "state.json");
    const first = createHarness({ store: new FileStateStore(path) });
    first.controller.setCurrentArtifacts([{ ref: "file:q3/brief.xml", path: "q3/brief.xml", revision: "r2", title: "Q3 brief" }]);
    first.dispose();
    const second = createHarness({ store: new FileStateStore(path) });
    try {
      expect(second.controller.state.currentArtifacts).toEqual([{ ref: "file:q3/brief.xml", path: "q3/brief.xml", revision: "r2", title: "Q3 brief" }]);
      expect(second.controller.anchorMessage().content).toContain('<artifact ref="file:q3/brief.xml" path="q3/brief.xml" revision="r2">Q3 brief</artifact>');
    } finally {
      second.dispose();
    }
  });
});
