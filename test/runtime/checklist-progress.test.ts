import { describe, expect, it } from "vitest";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { renderProgress } from "../../src/runtime/checklist/progress.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { docPage } from "../helpers/docs.js";
import { deckTasks, SKIPPED_OPTIONAL } from "./helpers/checklist.js";
import { prepareDist } from "./helpers/dist.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxPerTest } from "./helpers/session.js";
import { createGammaAgent } from "../../src/runtime/pi-adapter.js";

const pi = fauxPerTest();
const artifacts = loadArtifacts({ distDir: prepareDist() });

function deckAgent() {
  const events: ProtocolEvent[] = [];
  const faux = pi.faux();
  const gamma = createGammaAgent({ artifacts, variant: "deck-generation", model: faux.getModel(), executors: recordingExecutors(), onProtocolEvent: (event) => events.push(event) });
  pi.disposeAfterTest(gamma);
  return { ...gamma, faux, events };
}

const progressEvents = (events: ProtocolEvent[]) => events.flatMap((event) => (event.type === "checklist_progress" ? [event] : []));

describe("checklist_progress: each step's status, derived from the tasks that name it", () => {
  it("is emitted on every accepted task update while a workflow is active", async () => {
    const { agent, faux, events } = deckAgent();
    faux.setResponses([
      toolUse(fauxToolCall("todo", { tasks: deckTasks({ 3: { note: "Topic-only request: nothing blocks" }, 5: { status: "in_progress" }, ...pendingFrom(6) }) })),
      fauxAssistantMessage("working"),
    ]);
    await agent.prompt("Make a deck about tide pools");
    const [progress] = progressEvents(events);
    expect(progress).toMatchObject({ type: "checklist_progress", skill: "deck-generation", taskRevision: 1 });
    expect(progress?.steps.slice(0, 6).map((step) => [step.number, step.status, step.reason])).toEqual([
      [1, "complete", undefined],
      [2, "complete", undefined],
      [3, "skipped", "Topic-only request: nothing blocks"],
      [4, "complete", undefined],
      [5, "in_progress", undefined],
      [6, "pending", undefined],
    ]);
    expect(progress?.counts).toEqual({ pending: 9, in_progress: 1, complete: 3, skipped: 1, blocked: 0, failed: 0 });
    expect(progress?.steps[6]).toEqual({ number: 7, title: "Validate", optional: false, verifies: true, status: "pending", taskIds: ["t7"] });
  });

  it("a step with no task is pending; a task without a step changes no step", async () => {
    const { controller, events } = deckAgent();
    controller.updateTasks([{ id: "x", title: "Something else", status: "in_progress" }]);
    const [progress] = progressEvents(events);
    expect(progress?.counts.pending).toBe(14);
    expect(progress?.steps.every((step) => step.taskIds.length === 0)).toBe(true);
  });

  it("refuses a step that names no checklist step, with an error that says which steps exist", async () => {
    const { agent, faux, controller } = deckAgent();
    const seen: SeenContext[] = [];
    faux.setResponses([
      toolUse(fauxToolCall("todo", { tasks: [{ id: "t1", title: "Validate", status: "in_progress", step: "deck-generation#15" }] })),
      toolUse(fauxToolCall("todo", { tasks: [{ id: "t1", title: "Validate", status: "in_progress", step: "gml-cli#1" }] })),
      // A workflow with a checklist, but one this session has not loaded.
      toolUse(fauxToolCall("todo", { tasks: [{ id: "t1", title: "Import the file", status: "in_progress", step: "import#1" }] })),
      seeing(seen, fauxAssistantMessage("ok")),
    ]);
    await agent.prompt("Make a deck");
    const results = seen[0]?.messages.filter((message) => message.role === "toolResult").map(textOf);
    expect(results).toEqual([
      'Unexpected tasks[0].step "deck-generation#15": expected a step number of deck-generation (1 to 14). The task list was not changed.',
      'Unexpected tasks[0].step "gml-cli#1": expected a workflow skill with a checklist (active: deck-generation). The task list was not changed.',
      'Unexpected tasks[0].step "import#1": expected a step of an active workflow (active: deck-generation): load import with the skill tool first. The task list was not changed.',
    ]);
    expect(controller.state.tasks.revision).toBe(0);
  });
});

describe("an unrecoverable step error: a blocked task with deviation true and its cause", () => {
  it("shows as a failed step in the progress event, stays in the state, and rides with the final message", async () => {
    const { agent, faux, events, controller } = deckAgent();
    const failed = { status: "blocked" as const, deviation: true, note: "gml publish exits 5 (service unavailable) on three attempts" };
    faux.setResponses([
      toolUse(fauxToolCall("todo", { tasks: deckTasks({ ...SKIPPED_OPTIONAL, 12: failed }) })),
      toolUse(fauxToolCall("message_user", { message: "Your deck is ready but could not be published: the publish service was down.", blockOnUser: true })),
    ]);
    await agent.prompt("Make a deck about tide pools");
    const progress = progressEvents(events).at(-1);
    expect(progress?.steps[11]).toMatchObject({ number: 12, title: "Publish and show", status: "failed", reason: failed.note });
    expect(progress?.deviations).toEqual([{ skill: "deck-generation", step: 12, title: "Publish and show", taskId: "t12", reason: failed.note }]);
    expect(controller.state.tasks.items[11]).toMatchObject({ status: "blocked", deviation: true, note: failed.note });
    const finalYield = events.find((event) => event.type === "yield");
    expect(finalYield).toMatchObject({ deviations: progress?.deviations, audit: { outcome: "pass" } });
    expect(renderProgress(progress!)).toContain("[✗] 12. Publish and show — failed: gml publish exits 5");
  });

  it("is refused without its cause or with another status", async () => {
    const { controller } = deckAgent();
    expect(() => controller.updateTasks([{ id: "t1", title: "Validate", status: "blocked", step: "deck-generation#7", deviation: true }])).toThrow(
      /^Unexpected tasks\[0\] with deviation true, expected status "blocked" and a note giving the cause/,
    );
    expect(() => controller.updateTasks([{ id: "t1", title: "Validate", status: "complete", note: "x", deviation: true }])).toThrow(/deviation true/);
  });
});

function pendingFrom(first: number): Record<number, { status: "pending" }> {
  return Object.fromEntries(Array.from({ length: 15 - first }, (_, index) => [first + index, { status: "pending" as const }]));
}

describe("the runtime guide's progress event and its plain-text form", () => {
  const runtimeGuide = docPage("docs/guide/runtime.md");
  it("are what a deck with step 7 under way and step 12 failed gives (three steps of the event shown)", async () => {
    const { agent, faux, events } = deckAgent();
    const tasks = deckTasks({
      3: { note: "Topic-only request: nothing blocks" },
      7: { status: "in_progress" },
      ...Object.fromEntries([8, 9, 10, 11, 13, 14].map((number) => [number, { status: "pending" as const }])),
      12: { status: "blocked", deviation: true, note: "gml publish exits 5 (service unavailable) three times" },
    });
    faux.setResponses([toolUse(fauxToolCall("todo", { tasks }, { id: "call_7" })), fauxAssistantMessage("working")]);
    await agent.prompt("Make a deck about tide pools");
    const progress = progressEvents(events).at(-1);
    const shown = JSON.parse(runtimeGuide.blockStartingWith('{"type": "checklist_progress"', "json")) as typeof progress;
    expect(shown).toEqual({ ...progress, steps: progress?.steps.filter((step) => [3, 7, 12].includes(step.number)) });
    expect(runtimeGuide.blockStartingWith("deck-generation: 6/14 steps done\n")).toBe(`${renderProgress(progress!)}\n`);
    // The event as the guide shows it, three of its steps: the header still counts all fourteen.
    expect(renderProgress(shown!).split("\n")).toEqual([
      "deck-generation: 6/14 steps done",
      "[-]  3. Ask for blocking information (optional) — skipped: Topic-only request: nothing blocks",
      "[>]  7. Validate",
      "[✗] 12. Publish and show — failed: gml publish exits 5 (service unavailable) three times",
    ]);
  });
});
