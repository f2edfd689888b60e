import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { SettingsManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { renderInjection } from "../../src/runtime/injections/index.js";
import { createGammaSession } from "../../src/runtime/pi-adapter.js";
import { prepareDist } from "./helpers/dist.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxAgent, fauxPerTest, fauxSessionSetup } from "./helpers/session.js";

const pi = fauxPerTest();

const artifacts = loadArtifacts({ distDir: prepareDist() });
const body = (name: string): string => artifacts.skills.get(name)?.body ?? `missing ${name}`;
const count = (haystack: string, needle: string): number => haystack.split(needle).length - 1;
const PROMISE = "Your task state and active skills survive context compaction. Continue until completion.";
const TASKS = [
  { id: "brief", title: "Read the brief", status: "complete" },
  { id: "cards", title: "Edit cards 2 and 3", status: "in_progress" },
  { id: "verify", title: "Render and verify", status: "pending" },
];

/** The work before compaction: load a workflow skill, set the task list. */
const WORK = () => [
  toolUse(fauxToolCall("skill", { name: "gml-editing" })),
  toolUse(fauxToolCall("todo", { tasks: TASKS })),
  fauxAssistantMessage("Working on the cards."),
];

function expectRestored(seen: SeenContext | undefined): string {
  const texts = (seen?.messages ?? []).map(textOf);
  const anchors = texts.filter((text) => text.startsWith("<session_state "));
  expect(anchors).toHaveLength(1);
  const anchor = anchors[0] ?? "";
  for (const name of ["gml-editing", ...artifacts.skills.get("gml-editing")!.requiresSkills]) {
    expect(count(anchor, body(name).trimEnd()), name).toBe(1);
  }
  expect(anchor).toContain('<skill name="gml-editing" type="workflow">');
  expect(anchor).toContain("- [in_progress] cards: Edit cards 2 and 3");
  expect(anchor).toContain("- [pending] verify: Render and verify");
  // The skill tool results themselves are gone: the anchor is the only copy.
  expect(count(texts.join("\n"), body("gml-editing"))).toBe(1);
  return anchor;
}

describe("the prefix's compaction promise holds on the low-level path", () => {
  it("the system prompt makes the promise", () => {
    expect(artifacts.prefix).toContain(PROMISE);
  });

  it("after a server-side compaction, restoreContext puts skills, tasks, artifacts and pending injections back", async () => {
    const faux = pi.faux();
    const { agent, controller } = fauxAgent(faux, artifacts);
    faux.setResponses(WORK());
    await agent.prompt("Polish cards 2 and 3 of the Q3 deck");
    controller.setCurrentArtifacts([{ ref: "gamma:file:g_1:d_2", revision: "rev_9", title: "Q3 review" }]);
    const view = { id: "evt_1", kind: "client_view", occurredAt: "2026-01-01T00:00:00Z", source: "client", delivery: "next_turn", requiresDecision: false, summary: "The user opened card 3." } as const;
    controller.routeUpdate(view);

    // The server compacts: a summary replaces the history, then the runtime restores its state.
    const summary: AgentMessage = { role: "user", content: [{ type: "text", text: "Summary: the user wants cards 2 and 3 polished." }], timestamp: 2 };
    agent.state.messages = controller.restoreContext([summary]);
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("Continuing."))]);
    await agent.prompt("continue");
    const anchor = expectRestored(seen[0]);
    expect(anchor).toContain('<artifact ref="gamma:file:g_1:d_2" revision="rev_9">Q3 review</artifact>');
    expect(anchor).toContain(renderInjection(view, artifacts.injectionKinds));
    expect(controller.state.pendingInjections).toEqual([]);
    expect(seen[0]?.systemPrompt).toBe(artifacts.variants.base);

    // A second compaction still leaves exactly one anchor.
    agent.state.messages = controller.restoreContext(agent.state.messages);
    const again: SeenContext[] = [];
    faux.setResponses([seeing(again, fauxAssistantMessage("ok"))]);
    await agent.prompt("go on");
    expect((again[0]?.messages ?? []).map(textOf).filter((text) => text.startsWith("<session_state "))).toHaveLength(1);
  });

  it("a preloaded workflow skill is listed as active without repeating the body the system prompt holds", () => {
    const { controller } = fauxAgent(pi.faux(), artifacts, "deck-generation");
    const anchor = controller.anchorMessage();
    expect(anchor).toMatchObject({ role: "custom", customType: "gamma.anchor", display: false, details: { trusted: true, anchor: true } });
    expect(anchor.content).toContain("- deck-generation (workflow, preloaded in the system prompt)");
    expect(anchor.content).not.toContain(body("deck-generation").trimEnd());
  });
});

describe("AgentSession.compact re-anchors through session_compact", () => {
  it("after compaction the model's context holds the anchor with the skills' text and the tasks", async () => {
    const faux = pi.faux();
    const open = await createGammaSession({
      artifacts,
      variant: "base",
      executors: recordingExecutors(),
      ...(await fauxSessionSetup(faux)),
      settingsManager: SettingsManager.inMemory({ compaction: { enabled: false, keepRecentTokens: 1 } }),
    });
    pi.disposeAfterTest(open);
    faux.setResponses(WORK());
    await open.session.prompt("Polish cards 2 and 3 of the Q3 deck");
    faux.appendResponses([fauxAssistantMessage("Titles tightened.")]);
    await open.session.prompt("Also tighten the titles");

    faux.setResponses(Array.from({ length: 4 }, () => fauxAssistantMessage("Summary: cards 2 and 3 are being polished.")));
    await open.session.compact();
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("Continuing."))]);
    await open.session.prompt("continue");
    expectRestored(seen[0]);
    expect(seen[0]?.systemPrompt).toBe(artifacts.variants.base);
  });
});
