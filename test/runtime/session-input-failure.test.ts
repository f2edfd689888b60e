// An AgentSession's prompt carries, after the user's words, the turn's
// knowledge hints and the pending next-turn events. When they cannot be made
// (the host's knowledge selector fails), Pi would catch the hook's error and
// send the prompt without them: instead the prompt is not sent at all, the
// host is told (prompt() rejects, and a runtime_error event), and the pending
// event still waits and goes out once with the next prompt.
import { describe, expect, it } from "vitest";
import { createGammaSession } from "../../src/runtime/pi-adapter.js";
import type { KnowledgeSelector } from "../../src/runtime/knowledge/selector.js";
import { MemoryStateStore } from "../../src/runtime/state/store.js";
import { TurnNotSentError, type ProtocolEvent } from "../../src/runtime/yield.js";
import { event } from "../injections/helpers/fixtures.js";
import { artifacts } from "../injections/helpers/gamma.js";
import { fauxAssistantMessage, recordingExecutors, seeing, textOf, type SeenContext } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup } from "./helpers/session.js";

const pi = fauxPerTest();

class SearchIndexOfflineError extends Error {
  override readonly name = "SearchIndexOfflineError";
}

describe("an AgentSession whose next prompt's messages cannot be made", () => {
  it("does not send the prompt: no model call, prompt() rejects, the host is told, and the pending event goes out once with the next prompt", async () => {
    let searches = 0;
    const selector: KnowledgeSelector = {
      update: () => {},
      select: () => {
        searches++;
        if (searches === 1) throw new SearchIndexOfflineError("search index offline");
        return ["deck-typography"];
      },
    };
    const events: ProtocolEvent[] = [];
    const gamma = pi.disposeAfterTest(
      await createGammaSession({
        artifacts,
        variant: "base",
        store: new MemoryStateStore(),
        executors: recordingExecutors(),
        knowledge: { selector },
        onProtocolEvent: (e) => events.push(e),
        ...(await fauxSessionSetup(pi.faux())),
      }),
    );
    const note = event({ kind: "system_note", delivery: "next_turn", summary: "The user's plan ends tomorrow: do not start long renders." });
    gamma.controller.routeUpdate(note);
    const seen: SeenContext[] = [];
    pi.faux().setResponses([seeing(seen, fauxAssistantMessage("Starting.")), seeing(seen, fauxAssistantMessage("Again."))]);

    const refused = await gamma.session.prompt("Render my deck").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TurnNotSentError);
    expect((refused as TurnNotSentError).cause).toBeInstanceOf(SearchIndexOfflineError);
    expect(String(refused)).toContain("the prompt was not sent");
    expect(seen).toHaveLength(0);
    expect(gamma.session.agent.state.messages.filter((message) => message.role === "user")).toHaveLength(0);
    expect(gamma.controller.state.pendingInjections.map((entry) => [entry.id, entry.queuedAs])).toEqual([[note.id, undefined]]);
    const told = events.filter((e) => e.type === "runtime_error");
    expect(told).toEqual([{ type: "runtime_error", during: "input", error: refused }]);

    await gamma.session.prompt("Render my deck");
    expect(seen).toHaveLength(1);
    const carried = (seen[0]?.messages ?? []).map((message) => textOf(message));
    expect(carried.filter((text) => text.includes("plan ends tomorrow"))).toHaveLength(1);
    expect(carried.some((text) => text.includes('id="deck-typography"'))).toBe(true);
    expect(gamma.controller.state.pendingInjections).toEqual([]);
  });
});
