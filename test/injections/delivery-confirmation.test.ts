// Issue contract: nothing leaves the durable pending state until Pi has put it
// in a context that a model call used. Restoring the context twice before the
// next model call, a restart in between, or AgentSession's compaction hook
// loses no pending injection, and none is delivered twice.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { SessionManager, SettingsManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { renderInjection, type RuntimeInjection } from "../../src/runtime/injections/index.js";
import { createGammaAgent, createGammaSession, restoreAgentContext } from "../../src/runtime/pi-adapter.js";
import { FileStateStore } from "../../src/runtime/state.js";
import { tempDir } from "../runtime/helpers/dist.js";
import { fauxAssistantMessage, recordingExecutors, seeing, textOf, type SeenContext } from "../runtime/helpers/pi.js";
import { fauxPerTest, keyedFauxModel } from "../runtime/helpers/session.js";
import { event } from "./helpers/fixtures.js";
import { artifacts, createHarness } from "./helpers/gamma.js";

const pi = fauxPerTest();
const rendered = (injection: RuntimeInjection): string => renderInjection(injection, artifacts.injectionKinds);
const count = (seen: SeenContext | undefined, text: string): number =>
  (seen?.messages ?? []).map(textOf).join("\n").split(text).length - 1;
const summary = (text: string): AgentMessage => ({ role: "user", content: [{ type: "text", text }], timestamp: 0 });

describe("the low-level path", () => {
  it("a pending event survives two context restores before the next model call, and reaches the model once", async () => {
    const h = createHarness();
    try {
      h.faux.setResponses([fauxAssistantMessage("first answer")]);
      await h.promptUser("Start the deck");
      const waiting = event({ kind: "workspace_update", delivery: "steer", summary: "Workspace instructions changed." });
      h.controller.routeUpdate(waiting);

      h.agent.state.messages = h.controller.restoreContext([summary("Summary one.")]) as AgentMessage[];
      expect(h.controller.state.pendingInjections.map((entry) => entry.id)).toEqual([waiting.id]);
      // A second compaction before any model call drops the first anchor; the event rides in the new one.
      h.agent.state.messages = h.controller.restoreContext([summary("Summary two.")]) as AgentMessage[];
      expect(h.controller.state.pendingInjections.map((entry) => [entry.id, entry.queuedAs])).toEqual([[waiting.id, "anchor"]]);

      const seen: SeenContext[] = [];
      h.faux.setResponses([seeing(seen, fauxAssistantMessage("ok")), seeing(seen, fauxAssistantMessage("ok again"))]);
      await h.promptUser("Continue");
      expect(count(seen[0], rendered(waiting))).toBe(1);
      expect(h.controller.state.pendingInjections).toEqual([]);
      await h.promptUser("And on");
      expect(count(seen[1], rendered(waiting))).toBe(1); // the same anchor, not a second copy
    } finally {
      h.dispose();
    }
  });

  it("a restart between restoreContext and the model call keeps the event pending, and the next context carries it", async () => {
    const statePath = join(tempDir("gamma-confirm-"), "state.json");
    const faux = pi.faux();
    const open = (messages?: AgentMessage[]) =>
      createGammaAgent({ artifacts, variant: "base", store: new FileStateStore(statePath), model: faux.getModel(), executors: recordingExecutors(), ...(messages ? { messages } : {}) });
    const first = open();
    faux.setResponses([fauxAssistantMessage("first answer")]);
    await first.agent.prompt(first.controller.buildTurnMessages({ text: "Start" }) as AgentMessage[]);
    const waiting = event({ kind: "system_note", summary: "The team plan allows 60 cards." });
    first.controller.routeUpdate(waiting);
    restoreAgentContext(first.agent, first.controller, [summary("Summary of the session.")]);
    // The process dies here, before any model call saw the anchor; the host kept its transcript.
    const stored = JSON.parse(JSON.stringify(first.agent.state.messages)) as AgentMessage[];
    first.dispose();

    const second = open(stored);
    try {
      expect(second.controller.state.pendingInjections.map((entry) => [entry.id, entry.queuedAs])).toEqual([[waiting.id, undefined]]);
      restoreAgentContext(second.agent, second.controller);
      const seen: SeenContext[] = [];
      faux.setResponses([seeing(seen, fauxAssistantMessage("ok"))]);
      await second.agent.prompt(second.controller.buildTurnMessages({ text: "Continue" }) as AgentMessage[]);
      expect(count(seen[0], rendered(waiting))).toBe(1);
      expect(second.controller.state.pendingInjections).toEqual([]);
      expect(new FileStateStore(statePath).load()?.pendingInjections).toEqual([]);
    } finally {
      second.dispose();
    }
  });
});

describe("AgentSession's compaction hook", () => {
  it("keeps an event pending through compaction and a restart, until a model call used the anchor that carries it", async () => {
    const root = tempDir("gamma-confirm-session-");
    const cwd = join(root, "work");
    const agentDir = join(root, "pi-agent");
    mkdirSync(cwd);
    mkdirSync(agentDir);
    const statePath = join(root, "state.json");
    const faux = pi.faux();
    const keyed = await keyedFauxModel(faux);
    const start = async (sessionManager: SessionManager) =>
      pi.disposeAfterTest(
        await createGammaSession({
          artifacts,
          variant: "base",
          store: new FileStateStore(statePath),
          executors: recordingExecutors(),
          cwd,
          agentDir,
          sessionManager,
          ...keyed,
          settingsManager: SettingsManager.inMemory({ compaction: { enabled: false, keepRecentTokens: 1 } }),
        }),
      );

    const first = await start(SessionManager.create(cwd, join(root, "sessions")));
    faux.setResponses([fauxAssistantMessage("Outline drafted."), fauxAssistantMessage("Titles tightened.")]);
    await first.session.prompt("Draft the outline");
    await first.session.prompt("Tighten the titles");
    const waiting = event({ kind: "system_note", summary: "The team plan allows 60 cards." });
    first.controller.routeUpdate(waiting);
    faux.setResponses(Array.from({ length: 4 }, () => fauxAssistantMessage("Summary: an outline with tight titles.")));
    await first.session.compact();
    // The hook's anchor carries the event; no model call has used it yet.
    expect(first.controller.state.pendingInjections.map((entry) => [entry.id, entry.queuedAs])).toEqual([[waiting.id, "anchor"]]);
    const sessionFile = first.session.sessionFile ?? "";
    pi.disposeNow(first);

    // A new process before the next model call: the event is still pending, unsent.
    const second = await start(SessionManager.open(sessionFile));
    expect(second.controller.state.pendingInjections.map((entry) => entry.id)).toEqual([waiting.id]);
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("Continuing."))]);
    await second.session.prompt("continue");
    expect(count(seen[0], rendered(waiting))).toBe(1);
    expect(second.controller.state.pendingInjections).toEqual([]);
    expect(new FileStateStore(statePath).load()?.pendingInjections).toEqual([]);
  });
});
