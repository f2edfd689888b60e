import { describe, expect, it } from "vitest";
import type { VariantName } from "../../src/protocol/dist-manifest.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { createTrustedMessage } from "../../src/runtime/messages.js";
import { createGammaAgent, createGammaSession, sendSessionMessage, type GammaSession } from "../../src/runtime/pi-adapter.js";
import { ToolSetupError } from "../../src/runtime/tools.js";
import { prepareDist } from "./helpers/dist.js";
import { fauxAssistantMessage, recordingExecutors, seeing, textOf, type Faux, type SeenContext } from "./helpers/pi.js";
import { fauxAgent, fauxPerTest, fauxSessionSetup } from "./helpers/session.js";

const pi = fauxPerTest();

const artifacts = loadArtifacts({ distDir: prepareDist() });
const VARIANTS: VariantName[] = ["base", "deck-generation", "import"];

async function sessionFor(variant: VariantName): Promise<{ gamma: GammaSession; faux: Faux }> {
  const faux = pi.faux();
  const gamma = await createGammaSession({ artifacts, variant, executors: recordingExecutors(), ...fauxSessionSetup(faux) });
  return { gamma: pi.disposeAfterTest(gamma), faux };
}

describe("AgentSession on the exact variant prompt", () => {
  for (const variant of VARIANTS) {
    it(`the model receives the ${variant} variant byte for byte, and the tools in declared order`, async () => {
      const { gamma, faux } = await sessionFor(variant);
      const seen: SeenContext[] = [];
      faux.setResponses([seeing(seen, fauxAssistantMessage("ok"))]);
      await gamma.session.prompt("Make a deck about tide pools");
      expect(seen).toHaveLength(1);
      expect(seen[0]?.systemPrompt).toBe(artifacts.variants[variant]);
      expect(seen[0]?.systemPrompt).not.toMatch(/Current date:|Current working directory:/);
      expect(seen[0]?.systemPrompt?.match(/<available_skills>/g)).toHaveLength(1);
      expect(seen[0]?.tools.map((tool) => tool.name)).toEqual(artifacts.tools.map((tool) => tool.name));
      expect(seen[0]?.tools.map((tool) => tool.parameters)).toEqual(artifacts.tools.map((tool) => tool.parameters));
    });
  }

  it("keeps the exact prompt on a later turn", async () => {
    const { gamma, faux } = await sessionFor("import");
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("one")), seeing(seen, fauxAssistantMessage("two"))]);
    await gamma.session.prompt("first");
    await gamma.session.prompt("second");
    expect(seen.map((context) => context.systemPrompt)).toEqual([artifacts.variants.import, artifacts.variants.import]);
  });
});

describe("a turn started by a trusted custom message", () => {
  it("sendSessionMessage with triggerTurn skips before_agent_start yet keeps the exact prompt", async () => {
    const { gamma, faux } = await sessionFor("base");
    // Pi rebuilds its own prompt (with date and cwd) whenever the active tools change.
    gamma.session.setActiveToolsByName(artifacts.tools.map((tool) => tool.name));
    expect(gamma.session.agent.state.systemPrompt).toMatch(/Current date:/);
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("on it"))]);
    const message = createTrustedMessage({
      kind: "system_update",
      content: "<system_update>The import job failed.</system_update>",
      details: { gammaInjection: true, injectionType: "system_update", injectionId: "evt_7", occurredAt: "2026-01-01T00:00:00Z" },
    });
    await sendSessionMessage(gamma.session, gamma.controller, message, { triggerTurn: true });
    expect(seen[0]?.systemPrompt).toBe(artifacts.variants.base);
    expect(textOf(seen[0]?.messages.at(-1))).toBe("<system_update>The import job failed.</system_update>");
  });
});

describe("a model call Pi starts itself with agent.continue()", () => {
  it("goes out on the variant bytes even after Pi rebuilt its own prompt", async () => {
    const { gamma, faux } = await sessionFor("deck-generation");
    gamma.session.setActiveToolsByName(artifacts.tools.map((tool) => tool.name));
    expect(gamma.session.agent.state.systemPrompt).toMatch(/Current date:/);
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("retried"))]);
    // What Pi's auto-retry does: continue from a trailing user message, skipping before_agent_start.
    gamma.session.agent.state.messages = [{ role: "user", content: [{ type: "text", text: "Make a deck" }], timestamp: 1 }];
    await gamma.session.agent.continue();
    expect(seen).toHaveLength(1);
    expect(seen[0]?.systemPrompt).toBe(artifacts.variants["deck-generation"]);
  });
});

describe("low-level Agent on the exact variant prompt", () => {
  it("sends the variant bytes and tools.json in order with JSON Schema parameters", async () => {
    const faux = pi.faux();
    const { agent } = fauxAgent(faux, artifacts, "deck-generation");
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("ok"))]);
    await agent.prompt("hello");
    expect(seen[0]?.systemPrompt).toBe(artifacts.variants["deck-generation"]);
    expect(seen[0]?.tools).toEqual(artifacts.tools.map((tool) => ({ name: tool.name, parameters: tool.parameters })));
  });

  it("refuses at creation a session without an executor for a host tool, naming it", () => {
    const faux = pi.faux();
    const executors = { ...recordingExecutors() };
    delete (executors as Record<string, unknown>)["show_gamma"];
    delete (executors as Record<string, unknown>)["bash"];
    expect(() => createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors })).toThrow(ToolSetupError);
    expect(() => createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors })).toThrow(/"bash", "show_gamma"/);
  });

  it("refuses an executor for a tool the runtime implements or tools.json lacks", () => {
    const model = pi.faux().getModel();
    const extra = async () => ({ content: [] });
    expect(() => createGammaAgent({ artifacts, variant: "base", model, executors: { ...recordingExecutors(), skill: extra } })).toThrow(/"skill"/);
    expect(() => createGammaAgent({ artifacts, variant: "base", model, executors: { ...recordingExecutors(), web_search: extra } })).toThrow(/"web_search"/);
  });
});
