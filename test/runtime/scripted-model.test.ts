/**
 * The public helper for running the runtime without a key: a model that
 * plays a script on pi-ai's faux provider and stub host tools, on a real Pi
 * Agent with the embedded default.
 */
import { afterEach, describe, expect, it } from "vitest";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { createGammaAgent } from "../../src/runtime/pi-adapter.js";
import { scriptedModel, stubExecutors, type ScriptedModel } from "../../src/runtime/pi/scripted-model.pi-adapter.js";
import { prepareDist } from "./helpers/dist.js";

const artifacts = loadArtifacts({ distDir: prepareDist() });
const opened: ScriptedModel[] = [];
afterEach(() => {
  for (const model of opened.splice(0)) model.dispose();
});

describe("scriptedModel and stubExecutors", () => {
  it("drive a Gamma agent through the script, every host tool answered by a stub, tool calls numbered in order", async () => {
    const scripted = await scriptedModel([
      { toolCalls: [{ name: "skill", arguments: { name: "deck-generation" } }, { name: "bash", arguments: { command: "ls uploads/" } }] },
      { toolCalls: [{ name: "message_user", arguments: { message: "Which notes?", blockOnUser: true } }] },
    ]);
    opened.push(scripted);
    const calls: string[] = [];
    const executors = stubExecutors(artifacts, { answers: { bash: "brief.md" }, onCall: (tool, params) => calls.push(`${tool} ${JSON.stringify(params)}`) });
    expect(Object.keys(executors).sort()).toEqual(["bash", "drive_download", "drive_get_file", "drive_list_folder", "drive_search", "edit", "read", "show_file", "show_gamma", "subagent", "write"]);
    const events: string[] = [];
    const { agent, controller, dispose } = createGammaAgent({ artifacts, variant: "base", model: scripted.model, executors, onProtocolEvent: (event) => events.push(event.type) });
    try {
      await agent.prompt(controller.buildTurnMessages({ text: "Make a deck from my notes" }));
    } finally {
      dispose();
    }
    expect(calls).toEqual(['bash {"command":"ls uploads/"}']);
    expect(scripted.calls).toBe(2);
    expect(controller.state.activeSkills.map((skill) => skill.name)).toContain("deck-generation");
    expect(events).toContain("yield");
    const toolResults = agent.state.messages.filter((message) => message.role === "toolResult").map((message) => (message as { toolCallId: string }).toolCallId);
    expect(toolResults).toEqual(["call_1", "call_2", "call_3"]);
  });

  it("answers a call past the end of the script with an error that names it, and the run stops there", async () => {
    const scripted = await scriptedModel([{ toolCalls: [{ name: "skill", arguments: { name: "gml-cli" } }] }]);
    opened.push(scripted);
    const { agent, controller, dispose } = createGammaAgent({ artifacts, variant: "base", model: scripted.model, executors: stubExecutors(artifacts) });
    try {
      await agent.prompt(controller.buildTurnMessages({ text: "What does gml render do?" }));
    } finally {
      dispose();
    }
    const last = agent.state.messages.at(-1) as { role: string; stopReason?: string; errorMessage?: string };
    expect(last).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "the scripted model has no reply for call 2 (the script has 1)" });
  });
});
