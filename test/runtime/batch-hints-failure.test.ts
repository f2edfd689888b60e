// A tool batch that changes what the knowledge hints are chosen from (here a
// workflow skill becomes active) calls the host's selector before the next
// model call. When the selector fails there, Pi would turn the failure into
// an assistant error message and, on the session path, call the model again
// with it and without the hints. Instead, on both paths, the run ends before
// that call: no model call goes out without its hints, the host is told
// (prompt() rejects with HintsNotMadeError and a runtime_error event), the
// transcript records the failed run as Pi records any (an assistant message
// with stopReason "error", which no provider replays), and the next prompt
// goes out with the hints chosen again.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import type { KnowledgeSelector } from "../../src/runtime/knowledge/selector.js";
import { createGammaSession, openGammaAgent } from "../../src/runtime/pi-adapter.js";
import { MemoryStateStore } from "../../src/runtime/state/store.js";
import { HintsNotMadeError, type ProtocolEvent } from "../../src/runtime/yield.js";
import { artifacts } from "../injections/helpers/gamma.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup } from "./helpers/session.js";

const pi = fauxPerTest();

class SearchIndexOfflineError extends Error {
  override readonly name = "SearchIndexOfflineError";
}

/** Fails the selection after the first tool batch (its second call); answers the note otherwise. */
function failingAfterFirstBatch(): KnowledgeSelector {
  let searches = 0;
  return {
    update: () => {},
    select: () => {
      searches++;
      if (searches === 2) throw new SearchIndexOfflineError("search index offline");
      return ["deck-typography"];
    },
  };
}

interface Opened {
  prompt(text: string): Promise<void>;
  messages(): readonly AgentMessage[];
}

async function open(path: "agent" | "session", selector: KnowledgeSelector, events: ProtocolEvent[]): Promise<Opened> {
  const common = { artifacts, variant: "base" as const, store: new MemoryStateStore(), executors: recordingExecutors(), knowledge: { selector }, onProtocolEvent: (e: ProtocolEvent) => events.push(e) };
  if (path === "agent") {
    const gamma = pi.disposeAfterTest(await openGammaAgent({ ...common, model: pi.faux().getModel() }));
    return { prompt: (text) => gamma.agent.prompt(gamma.controller.buildTurnMessages({ text }) as AgentMessage[]), messages: () => gamma.agent.state.messages };
  }
  const gamma = pi.disposeAfterTest(await createGammaSession({ ...common, ...(await fauxSessionSetup(pi.faux())) }));
  return { prompt: (text) => gamma.session.prompt(text), messages: () => gamma.session.agent.state.messages };
}

describe("knowledge hints that cannot be made after a tool batch", () => {
  for (const path of ["agent", "session"] as const) {
    it(`end the run before its next model call, and the host is told (${path} path)`, async () => {
      const events: ProtocolEvent[] = [];
      const opened = await open(path, failingAfterFirstBatch(), events);
      const seen: SeenContext[] = [];
      pi.faux().setResponses([
        seeing(seen, toolUse(fauxToolCall("skill", { name: "deck-generation" }))),
        seeing(seen, fauxAssistantMessage("Never asked for: the run ended before this call.")),
        seeing(seen, fauxAssistantMessage("Starting the outline.")),
      ]);

      const refused = await opened.prompt("Make a deck about tide pools").then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(HintsNotMadeError);
      expect((refused as HintsNotMadeError).cause).toBeInstanceOf(SearchIndexOfflineError);
      expect(String(refused)).toContain("the run ended before its next model call");
      expect(seen).toHaveLength(1);
      expect(events.filter((e) => e.type === "runtime_error")).toEqual([{ type: "runtime_error", during: "hints", error: refused }]);
      expect(events.map((e) => e.type)).toContain("skills_activated");
      // After the batch's result, only Pi's record of the failed run (as for any run that failed), which no provider replays.
      expect(opened.messages().slice(-2).map((message) => [message.role, "stopReason" in message ? message.stopReason : undefined, "errorMessage" in message ? message.errorMessage : undefined])).toEqual([
        ["toolResult", undefined, undefined],
        ["assistant", "error", (refused as Error).message],
      ]);

      await opened.prompt("Go on");
      expect(seen).toHaveLength(2);
      const carried = (seen[1]?.messages ?? []).map((message) => textOf(message));
      expect(carried.some((text) => text.includes('id="deck-typography"'))).toBe(true);
      expect(carried.some((text) => text.includes("Never asked for"))).toBe(false);
    });
  }
});
