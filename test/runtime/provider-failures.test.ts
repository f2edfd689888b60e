// A provider that fails a call (an overload Pi retries, a stream cut or stopped at the token limit) must not
// weaken what the session promised for the turn: a required skill still guards the retried call, a tool call
// Pi never ran is no first task action for the completion audit, and an event steered in while the failed call
// was out still reaches the model once, with the next turn, in order.
import { SettingsManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { auditTranscript } from "../../src/runtime/audit/audit.js";
import { readPiSessionText } from "../../src/runtime/audit/readers.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { createGammaAgent, createGammaSession } from "../../src/runtime/pi-adapter.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { FINISHED_DECK } from "./helpers/checklist.js";
import { prepareDist } from "./helpers/dist.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS, SAVED_BRIEF, savedBriefUpdate } from "./helpers/session.js";

const pi = fauxPerTest();
const artifacts = loadArtifacts({ distDir: prepareDist() });
const OVERLOADED = fauxAssistantMessage("", { stopReason: "error", errorMessage: "overloaded_error: Overloaded" });
const bash = (command: string) => toolUse(fauxToolCall("bash", { command }));
const loadSkill = (name: string) => toolUse(fauxToolCall("skill", { name }));
const enforcement = (events: ProtocolEvent[]) => events.flatMap((event) => (event.type === "required_skills" ? [[event.action, event.tool]] : []));
const audits = (events: ProtocolEvent[]) => events.flatMap((event) => (event.type === "audit" ? [event.report] : []));

async function retryingSession(events: ProtocolEvent[], calls: string[] = []) {
  const faux = pi.faux();
  const settingsManager = SettingsManager.inMemory({ retry: { enabled: true, maxRetries: 1, baseDelayMs: 1 } });
  const gamma = pi.disposeAfterTest(
    await createGammaSession({ artifacts, variant: "base", executors: recordingExecutors(calls), onProtocolEvent: (event) => events.push(event), ...(await fauxSessionSetup(faux)), settingsManager, ...NO_KNOWLEDGE_HINTS }),
  );
  return { ...gamma, faux };
}

describe("a turn's required skill holds across Pi's retry of a failed call", () => {
  it("the retried call's task action is refused, and the requirement ends when the session settles", async () => {
    const events: ProtocolEvent[] = [];
    const calls: string[] = [];
    const { session, controller, faux } = await retryingSession(events, calls);
    controller.requireSkills(["deck-generation"], "turn");
    faux.setResponses([OVERLOADED, bash("ls uploads"), loadSkill("deck-generation"), bash("ls uploads"), fauxAssistantMessage("Listed.")]);
    await session.prompt("New deck: tide pools");
    expect(faux.state.callCount).toBe(5);
    expect(enforcement(events)).toEqual([["refused", "bash"]]);
    expect(calls).toEqual(["bash"]);
    expect(controller.state.requiredSkills).toEqual([]);
  });

  it("the refusal bound counts over the whole turn, not afresh for the retry", async () => {
    const events: ProtocolEvent[] = [];
    const { session, controller, faux } = await retryingSession(events);
    controller.requireSkills(["deck-generation"], "turn");
    faux.setResponses([bash("ls"), OVERLOADED, bash("ls"), bash("ls"), fauxAssistantMessage("Listed.")]);
    await session.prompt("New deck");
    // Two refusals (the default bound) in the turn, the first before the failed call; the third call goes ahead.
    expect(enforcement(events)).toEqual([
      ["refused", "bash"],
      ["refused", "bash"],
      ["violated", "bash"],
    ]);
  });
});

describe("a tool call Pi never ran is no first task action", () => {
  it.each([
    ["a call that failed (Pi retries it)", OVERLOADED.stopReason],
    ["a message cut at the token limit (Pi fails its calls)", "length"],
  ] as const)("%s: the workflow loaded after it passes the completion audit", async (_, stopReason) => {
    const events: ProtocolEvent[] = [];
    const { session, faux } = await retryingSession(events);
    const cut = fauxAssistantMessage([fauxToolCall("write", { path: "deck.gml", content: "<deck" })], stopReason === "error" ? { stopReason, errorMessage: "overloaded_error: Overloaded" } : { stopReason });
    faux.setResponses([
      cut,
      loadSkill("deck-generation"),
      toolUse(fauxToolCall("todo", { tasks: FINISHED_DECK })),
      toolUse(fauxToolCall("message_user", { message: "Your deck is ready.", blockOnUser: true })),
    ]);
    await session.prompt("New deck");
    expect(audits(events)).toMatchObject([{ outcome: "pass", findings: [] }]);
    // The audit of the Pi session file reads it the same way.
    const file = session.sessionManager.getEntries().map((entry) => JSON.stringify(entry)).join("\n");
    const offline = auditTranscript(readPiSessionText(file).events, artifacts.skills);
    expect(offline.map((report) => [report.outcome, report.findings.map((finding) => finding.ruleId)])).toEqual([["pass", []]]);
  });
});

describe("an event steered in while a call that then failed was out", () => {
  const SAVED = SAVED_BRIEF;
  const update = savedBriefUpdate("e1");
  const carries = (context: SeenContext | undefined): boolean => (context?.messages ?? []).some((message) => textOf(message).includes(SAVED));

  it("Agent path (nothing retries): the next prompt carries it once, though the host cleared Pi's queues", async () => {
    const faux = pi.faux();
    const gamma = pi.disposeAfterTest(createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: recordingExecutors(), ...NO_KNOWLEDGE_HINTS }));
    const { agent, controller } = gamma;
    const seen: SeenContext[] = [];
    faux.setResponses([
      (context) => {
        seen.push(JSON.parse(JSON.stringify({ messages: context.messages })) as SeenContext);
        void controller.routeUpdate(update);
        return fauxAssistantMessage("", { stopReason: "error", errorMessage: "500 Internal Server Error" });
      },
      seeing(seen, fauxAssistantMessage("Noted.")),
      seeing(seen, fauxAssistantMessage("Still noted.")),
    ]);
    await agent.prompt(controller.buildTurnMessages({ text: "Make a deck" }));
    agent.clearAllQueues();
    await agent.prompt(controller.buildTurnMessages({ text: "Try again" }));
    await agent.prompt(controller.buildTurnMessages({ text: "And once more" }));
    expect(seen.map(carries)).toEqual([false, true, true]);
    // Once: the second prompt's context holds the event's one message, and it is no longer pending.
    expect((seen[1]?.messages ?? []).filter((message) => textOf(message).includes(SAVED))).toHaveLength(1);
    expect((seen[2]?.messages ?? []).filter((message) => textOf(message).includes(SAVED))).toHaveLength(1);
    expect(controller.pending.all()).toEqual([]);
  });

  it("AgentSession path, the host aborts during Pi's retry wait and clears its queues: the next prompt carries it", async () => {
    const events: ProtocolEvent[] = [];
    const faux = pi.faux();
    const settingsManager = SettingsManager.inMemory({ retry: { enabled: true, maxRetries: 1, baseDelayMs: 60_000 } });
    const gamma = pi.disposeAfterTest(
      await createGammaSession({ artifacts, variant: "base", executors: recordingExecutors(), onProtocolEvent: (event) => events.push(event), ...(await fauxSessionSetup(faux)), settingsManager, ...NO_KNOWLEDGE_HINTS }),
    );
    const { session, controller } = gamma;
    const seen: SeenContext[] = [];
    session.subscribe((event) => {
      // Once Pi waits for its retry (the wait starts after this event).
      if (event.type === "auto_retry_start") setTimeout(() => void session.abort(), 20);
    });
    faux.setResponses([
      () => {
        void controller.routeUpdate(update);
        return OVERLOADED;
      },
      seeing(seen, fauxAssistantMessage("Noted.")),
    ]);
    await session.prompt("Make a deck");
    session.clearQueue();
    await session.prompt("Try again");
    expect(seen.map(carries)).toEqual([true]);
    expect(controller.pending.all()).toEqual([]);
  });
});
