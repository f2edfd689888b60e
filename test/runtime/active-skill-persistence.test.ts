import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { SessionProtocolController } from "../../src/runtime/controller.js";
import { createGammaAgent } from "../../src/runtime/pi-adapter.js";
import { FileStateStore } from "../../src/runtime/state.js";
import { prepareDist, tempDir } from "./helpers/dist.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxAgent, fauxPerTest } from "./helpers/session.js";

const pi = fauxPerTest();

const artifacts = loadArtifacts({ distDir: prepareDist() });
const body = (name: string): string => artifacts.skills.get(name)?.body ?? `missing ${name}`;
const count = (haystack: string, needle: string): number => haystack.split(needle).length - 1;

describe("active skills persist for the session", () => {
  it("loading an active skill again returns a short result; the body is in the context once", async () => {
    const faux = pi.faux();
    const { agent, controller } = fauxAgent(faux, artifacts);
    const seen: SeenContext[] = [];
    faux.setResponses([
      toolUse(fauxToolCall("skill", { name: "gml-editing" })),
      toolUse(fauxToolCall("skill", { name: "gml-editing" }), fauxToolCall("skill", { name: "gml-cli" })),
      seeing(seen, fauxAssistantMessage("ok")),
    ]);
    await agent.prompt("Fix card 2");
    const revisionAfter = controller.state.revision;
    const context = (seen[0]?.messages ?? []).map(textOf).join("\n");
    expect(count(context, body("gml-editing"))).toBe(1);
    expect(count(context, body("gml-cli"))).toBe(1);
    const results = (seen[0]?.messages ?? []).filter((message) => message.role === "toolResult").slice(-2);
    expect(results.map(textOf)).toEqual([
      'Skill "gml-editing" is already active (loaded earlier in this session); its instructions are already in your context. Continue following them.',
      'Skill "gml-cli" is already active (loaded earlier in this session); its instructions are already in your context. Continue following them.',
    ]);
    expect(controller.state.activeSkills.filter((skill) => skill.name === "gml-editing")).toHaveLength(1);
    expect(controller.state.revision).toBe(revisionAfter);
  });

  it("a preloaded workflow skill has the loaded-skill contract: active, not reloaded, and conflicts refused", async () => {
    const faux = pi.faux();
    const { agent, controller } = fauxAgent(faux, artifacts, "deck-generation");
    const seen: SeenContext[] = [];
    faux.setResponses([
      toolUse(fauxToolCall("skill", { name: "deck-generation" }), fauxToolCall("skill", { name: "import" })),
      seeing(seen, fauxAssistantMessage("ok")),
    ]);
    await agent.prompt("Make a deck");
    const [again, refused] = (seen[0]?.messages ?? []).filter((message) => message.role === "toolResult");
    expect(textOf(again)).toBe(
      'Skill "deck-generation" is already active (preloaded in the system prompt); its instructions are already in your context. Continue following them.',
    );
    expect(refused).toMatchObject({ isError: true });
    expect(textOf(refused)).toContain('conflicts with the active skill "deck-generation"');
    expect(controller.state.activeSkills.map((skill) => skill.name)).toEqual(artifacts.manifest.variants["deck-generation"]?.preloadedSkills);
  });

  it("every change is saved: a new controller on the same store sees the same active skills", async () => {
    const faux = pi.faux();
    const store = new FileStateStore(join(tempDir(), "session", "state.json"));
    const { agent, controller } = createGammaAgent({ artifacts, variant: "base", store, model: faux.getModel(), executors: recordingExecutors() });
    faux.setResponses([toolUse(fauxToolCall("skill", { name: "import" })), fauxAssistantMessage("ok")]);
    await agent.prompt("Import slides.pptx");
    const reopened = new SessionProtocolController({ artifacts, variant: "base", store });
    expect(reopened.state).toEqual(controller.state);
    expect(reopened.state.activeSkills.map((skill) => skill.name)).toEqual(["import", ...artifacts.skills.get("import")!.requiresSkills]);
  });
});
