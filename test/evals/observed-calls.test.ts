// The evaluations' observed stream function: a reply the observer cannot take
// is reported to it (and so to the run), never left as an unhandled rejection.
import { fauxAssistantMessage, registerFauxProvider } from "@earendil-works/pi-ai/compat";
import { Agent } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import { collectUnhandledRejections } from "../helpers/unhandled.js";
import { observedStreamFn } from "../../src/evals/pi-models.js";

const unhandled = collectUnhandledRejections();

describe("observedStreamFn", () => {
  it("reports a reply the observer could not take through onReplyError", async () => {
    const faux = registerFauxProvider();
    try {
      faux.setResponses([fauxAssistantMessage("Here is the outline.")]);
      const failures: Array<[number, string]> = [];
      const streamFn = await observedStreamFn({
        onCall: () => undefined,
        onReply: () => {
          throw new Error("the cassette is full");
        },
        onReplyError: (index, error) => failures.push([index, error instanceof Error ? error.message : String(error)]),
      });
      const agent = new Agent({ initialState: { model: faux.getModel() }, streamFn });
      await agent.prompt("Outline the deck");
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(failures).toEqual([[0, "the cassette is full"]]);
      expect(unhandled).toEqual([]);
    } finally {
      faux.unregister();
    }
  });
});
