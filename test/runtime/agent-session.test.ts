import { SettingsManager } from "@earendil-works/pi-coding-agent";
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
  const gamma = await createGammaSession({ artifacts, variant, executors: recordingExecutors(), ...(await fauxSessionSetup(faux)) });
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
  it("sendSessionMessage with triggerTurn (Pi runs before_agent_start for it) sends the exact prompt, not Pi's own with its <cwd> section", async () => {
    const { gamma, faux } = await sessionFor("base");
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("first")), seeing(seen, fauxAssistantMessage("on it"))]);
    await gamma.session.prompt("Start");
    // Pi's transcript keeps Pi's own prompt: the variant as its preamble plus the working directory.
    expect(gamma.session.agent.state.systemPrompt).toContain("<cwd>");
    expect(gamma.session.agent.state.systemPrompt.startsWith(artifacts.variants.base ?? "-")).toBe(true);
    const message = createTrustedMessage({
      kind: "system_update",
      content: "<system_update>The import job failed.</system_update>",
      details: { gammaInjection: true, injectionType: "system_update", injectionId: "evt_7", occurredAt: "2026-01-01T00:00:00Z" },
    });
    await sendSessionMessage(gamma.session, gamma.controller, message, { triggerTurn: true });
    expect(seen).toHaveLength(2);
    expect(seen[1]?.systemPrompt).toBe(artifacts.variants.base);
    expect(seen[1]?.messages.filter((entry) => entry.role === "system")).toEqual([]);
    expect(textOf(seen[1]?.messages.at(-1))).toBe("<system_update>The import job failed.</system_update>");
  });
});

describe("a model call Pi starts itself with agent.continue()", () => {
  it("Pi's auto-retry after a provider error goes out on the variant bytes, as the first attempt did", async () => {
    const faux = pi.faux();
    const settingsManager = SettingsManager.inMemory({ retry: { enabled: true, maxRetries: 1, baseDelayMs: 1 } });
    const gamma = pi.disposeAfterTest(
      await createGammaSession({ artifacts, variant: "deck-generation", executors: recordingExecutors(), ...(await fauxSessionSetup(faux)), settingsManager }),
    );
    const retries: string[] = [];
    gamma.session.subscribe((event) => {
      if (event.type === "auto_retry_start") retries.push(event.errorMessage);
    });
    const seen: SeenContext[] = [];
    faux.setResponses([
      seeing(seen, fauxAssistantMessage("", { stopReason: "error", errorMessage: "overloaded_error: Overloaded" })),
      seeing(seen, fauxAssistantMessage("retried")),
    ]);
    await gamma.session.prompt("Make a deck");
    expect(retries).toEqual(["overloaded_error: Overloaded"]);
    expect(seen).toHaveLength(2);
    expect(seen.map((context) => context.systemPrompt)).toEqual([artifacts.variants["deck-generation"], artifacts.variants["deck-generation"]]);
    expect(seen[1]?.tools).toEqual(seen[0]?.tools);
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

describe("a tool change mid-session (Pi 1.x announces it with a later system message)", () => {
  const names = artifacts.tools.map((tool) => tool.name);
  const withoutShowFile = names.filter((name) => name !== "show_file");

  function expectChangeInPlace(seen: SeenContext[], variant: VariantName): void {
    expect(seen).toHaveLength(2);
    // The head stays the variant's bytes with the tools it first declared: the cached prefix is untouched.
    expect(seen.map((context) => context.systemPrompt)).toEqual([artifacts.variants[variant], artifacts.variants[variant]]);
    expect(seen[1]?.tools).toEqual(seen[0]?.tools);
    // The change comes after the first turn, in place, not collapsed into the head.
    const later = seen[1]?.messages.filter((message) => message.role === "system") ?? [];
    expect(later).toEqual([{ role: "system", content: "", toolsRemoved: [{ name: "show_file" }], timestamp: expect.any(Number) }]);
    const messages = seen[1]?.messages ?? [];
    const at = messages.findIndex((message) => message.role === "system");
    expect(textOf(messages[at - 1])).toBe("one");
    expect(textOf(messages[at + 1])).toBe("second");
  }

  it("on the low-level Agent", async () => {
    const faux = pi.faux();
    const gamma = pi.disposeAfterTest(fauxAgent(faux, artifacts, "import"));
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("one")), seeing(seen, fauxAssistantMessage("two"))]);
    await gamma.agent.prompt("first");
    gamma.agent.state.tools = gamma.agent.state.tools.filter((tool) => tool.name !== "show_file");
    await gamma.agent.prompt("second");
    expectChangeInPlace(seen, "import");
  });

  it("on an AgentSession (setActiveToolsByName)", async () => {
    const { gamma, faux } = await sessionFor("import");
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("one")), seeing(seen, fauxAssistantMessage("two"))]);
    await gamma.session.prompt("first");
    gamma.session.setActiveToolsByName(withoutShowFile);
    await gamma.session.prompt("second");
    expectChangeInPlace(seen, "import");
  });
});

describe("Pi's cache warming on a session", () => {
  const decision = { type: "cache_warming_decision" as const, warmCost: 0.01, missCost: 0.2, continuationProbability: 0.8, action: "warm" as const };

  it("is vetoed by default: every refresh Pi would send is stopped", async () => {
    const { gamma } = await sessionFor("base");
    expect(await gamma.session.extensionRunner.emitCacheWarmingDecision({ ...decision })).toBe("stop");
  });

  it("is Pi's own decision with promptCache.cacheWarming 'pi'", async () => {
    const faux = pi.faux();
    const gamma = pi.disposeAfterTest(
      await createGammaSession({ artifacts, variant: "base", executors: recordingExecutors(), ...(await fauxSessionSetup(faux)), promptCache: { cacheWarming: "pi" } }),
    );
    expect(await gamma.session.extensionRunner.emitCacheWarmingDecision({ ...decision })).toBe("warm");
    expect(await gamma.session.extensionRunner.emitCacheWarmingDecision({ ...decision, action: "stop" })).toBe("stop");
  });
});
