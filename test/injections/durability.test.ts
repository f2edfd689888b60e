import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InjectionRejectedError, renderInjection } from "../../src/runtime/injections/index.js";
import { restoreAgentContext } from "../../src/runtime/pi-adapter.js";
import { FileStateStore } from "../../src/runtime/state.js";
import { tempDir } from "../runtime/helpers/dist.js";
import { fauxAssistantMessage, seeing, textOf, type SeenContext } from "../runtime/helpers/pi.js";
import { event } from "./helpers/fixtures.js";
import { artifacts, createHarness, type GammaHarness } from "./helpers/gamma.js";

const harnesses: GammaHarness[] = [];
afterEach(() => {
  for (const harness of harnesses.splice(0)) harness.dispose();
});

function open(store: FileStateStore): GammaHarness {
  const harness = createHarness({ store });
  harnesses.push(harness);
  return harness;
}

const rendered = (injection: Parameters<typeof renderInjection>[0]) => renderInjection(injection, artifacts.injectionKinds);

describe("pending injections survive a restart", () => {
  it("restores unsent events, their coalescing and the processed ids from the state file", async () => {
    const path = join(tempDir("gamma-injections-"), "state.json");
    const delivered = event({ kind: "system_note", summary: "Delivered before the restart." });
    const view = event({ kind: "client_view", summary: "The user opened card 2." });
    const note = event({ kind: "system_note", summary: "Team plan." });

    const first = open(new FileStateStore(path));
    const seen: SeenContext[] = [];
    first.faux.setResponses([seeing(seen, fauxAssistantMessage("ok"))]);
    first.controller.routeUpdate(delivered);
    await first.promptUser("Hello");
    first.controller.routeUpdate(view);
    first.controller.routeUpdate(note);
    first.dispose();
    harnesses.splice(0);

    const second = open(new FileStateStore(path));
    expect(second.controller.state.pendingInjections.map((entry) => entry.id)).toEqual([view.id, note.id]);
    expect(second.controller.injections.pending().map((injection) => injection.id)).toEqual([view.id, note.id]);
    expect(second.controller.routeUpdate(delivered).outcome).toBe("duplicate");
    expect(second.controller.routeUpdate(note).outcome).toBe("duplicate");
    const newerView = event({ kind: "client_view", summary: "The user opened card 5." });
    expect(second.controller.routeUpdate(newerView).outcome).toBe("coalesced");

    const after: SeenContext[] = [];
    second.faux.setResponses([seeing(after, fauxAssistantMessage("ok"))]);
    await second.promptUser("Continue");
    expect(after[0]?.messages.map(textOf)).toEqual(["Continue", rendered(note), rendered(newerView)]);
  });
});

describe("pending injections survive compaction", () => {
  it("travel in the state anchor after restoreContext and are not delivered a second time", async () => {
    const store = new FileStateStore(join(tempDir("gamma-injections-"), "state.json"));
    const h = open(store);
    h.faux.setResponses([fauxAssistantMessage("first answer")]);
    await h.promptUser("Start the deck");
    const waiting = event({ kind: "workspace_update", delivery: "steer", summary: "Workspace instructions changed." });
    h.controller.routeUpdate(waiting);

    // A server-side compaction: the host replaces the messages and asks for the anchor (the agent keeps its
    // leading system message, the prompt and the tools).
    restoreAgentContext(h.agent, h.controller, [{ role: "user", content: "Summary of the session so far.", timestamp: 0 }]);
    expect(h.agent.state.messages.map((message) => message.role)).toEqual(["system", "user", "custom"]);
    // Carried by the anchor, it stays pending until a model call used that context.
    expect(h.controller.state.pendingInjections.map((entry) => [entry.id, entry.queuedAs])).toEqual([[waiting.id, "anchor"]]);

    const seen: SeenContext[] = [];
    h.faux.setResponses([seeing(seen, fauxAssistantMessage("ok"))]);
    await h.promptUser("Continue");
    const texts = (seen[0]?.messages ?? []).map(textOf);
    expect(texts).toHaveLength(3);
    expect(texts[1]).toContain("<pending_injections>");
    expect(texts[1]).toContain(rendered(waiting));
    expect(texts[2]).toBe("Continue");
    expect(h.controller.state.pendingInjections).toEqual([]);
    // Delivered by the anchor: a re-sent copy is a duplicate, and a new event is not coalesced into it.
    expect(h.controller.routeUpdate(waiting).outcome).toBe("duplicate");
    expect(h.controller.routeUpdate(event({ kind: "workspace_update", delivery: "steer", summary: "Changed again." })).outcome).toBe("queued");
  });
});

describe("a session's backlog of pending events is bounded", () => {
  it("refuses an event that would take the pending events past 16 MiB, naming the bound; the state stays writable and reopens", async () => {
    const path = join(tempDir("gamma-injections-"), "state.json");
    const first = open(new FileStateStore(path));
    const blob = "q".repeat(61_000);
    let refusal: unknown;
    let queued = 0;
    for (let index = 0; index < 400 && refusal === undefined; index++) {
      try {
        first.controller.routeUpdate(event({ kind: "system_note", summary: `Job ${index} finished.`, details: { blob } }));
        queued++;
      } catch (error) {
        refusal = error;
      }
    }
    expect(refusal).toBeInstanceOf(InjectionRejectedError);
    expect((refusal as Error).message).toMatch(/^Unexpected event while the session's \d+ pending events hold \d+ bytes, expected at most 16777216 bytes pending: /);
    expect(queued).toBeGreaterThan(100);
    expect(first.controller.state.pendingInjections).toHaveLength(queued);
    await first.controller.flush();
    first.dispose();
    harnesses.splice(0);
    // The state was written whole and reopens with every queued event.
    const second = open(new FileStateStore(path));
    expect(second.controller.state.pendingInjections).toHaveLength(queued);
  });
});
