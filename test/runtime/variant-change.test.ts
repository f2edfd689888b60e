// A stored session and its variant across builds. A session keeps its
// variant while the build defines it: opening it with another one is refused
// with a typed error that says which variant to open it with, before anything
// is written. A redeploy that removed the variant does not strand the
// session: it opens on the variant the host names, reconciled as a build
// change (the host is told from and to, the model with its next prompt).
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { loadArtifacts, type LoadedArtifacts } from "../../src/runtime/artifacts.js";
import { StoredVariantError, UnknownVariantError } from "../../src/runtime/index.js";
import { FileStateStore } from "../../src/runtime/state.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { removeTempDirs, repoRoot } from "../build/helpers.js";
import { copyParts, tempDir } from "../helpers/temp-project.js";
import { artifacts as deployed } from "../injections/helpers/gamma.js";
import { fauxAssistantMessage, fauxToolCall, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { agentOnFileStore, fauxPerTest } from "./helpers/session.js";

afterAll(removeTempDirs);

const pi = fauxPerTest();
/** The embedded default without its `import` variant. */
let withoutVariant: LoadedArtifacts;

beforeAll(async () => {
  const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge"], join(await tempDir("redeploy-variant"), "project"));
  const variants = join(root, "prompts/variants.yaml");
  const text = await readFile(variants, "utf8");
  await writeFile(variants, text.replace(/^ {2}import:\n {4}preload: \[import\]\n/m, ""));
  const built = await build({ root, persistentCache: false });
  expect(built.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  withoutVariant = loadArtifacts({ distDir: join(root, "dist") });
}, 60_000);

function open(artifacts: LoadedArtifacts, variant: string, statePath: string, events: ProtocolEvent[] = [], messages?: AgentMessage[]) {
  return agentOnFileStore(pi, { artifacts, variant, statePath, events, messages });
}

describe("a stored session's variant", () => {
  it("is kept while the build defines it: another variant is refused with StoredVariantError, and nothing is written", async () => {
    const statePath = join(await tempDir("variant-kept"), "state.json");
    const first = open(deployed, "import", statePath);
    pi.faux().setResponses([fauxAssistantMessage("Ready.")]);
    await first.agent.prompt(first.controller.buildTurnMessages({ text: "Import my deck" }) as AgentMessage[]);
    pi.disposeNow(first);
    const before = await readFile(statePath, "utf8");

    let refused: unknown;
    try {
      open(deployed, "base", statePath);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(StoredVariantError);
    expect(refused).toMatchObject({ name: "StoredVariantError", storedVariant: "import", variant: "base" });
    expect((refused as Error).message).toContain('open the session with variant "import"');
    expect(await readFile(statePath, "utf8")).toBe(before);

    // Its own variant opens it, with nothing to tell.
    const events: ProtocolEvent[] = [];
    const again = open(deployed, "import", statePath, events);
    expect(again.controller.variant).toBe("import");
    expect(events.filter((event) => event.type === "build_changed")).toEqual([]);
  });

  it("that the build no longer defines: the session opens on the variant named, the host and the model are told, and it stays on it", async () => {
    expect(Object.keys(withoutVariant.variants)).not.toContain("import");
    const statePath = join(await tempDir("variant-dropped"), "state.json");
    const first = open(deployed, "import", statePath);
    pi.faux().setResponses([fauxAssistantMessage("Ready.")]);
    await first.agent.prompt(first.controller.buildTurnMessages({ text: "Import my deck" }) as AgentMessage[]);
    const transcript = first.agent.state.messages.slice();
    pi.disposeNow(first);

    // The variant it ran on is not one the host can name on this build.
    expect(() => open(withoutVariant, "import", statePath)).toThrow(UnknownVariantError);

    const events: ProtocolEvent[] = [];
    const moved = open(withoutVariant, "base", statePath, events, transcript);
    expect(events).toEqual([
      {
        type: "build_changed",
        previousCacheKey: deployed.manifest.staticPrefix.cacheKey,
        cacheKey: withoutVariant.manifest.staticPrefix.cacheKey,
        droppedSkills: [],
        clearedSteps: [],
        variant: { from: "import", to: "base" },
      },
    ]);
    expect(moved.controller.state.variant).toBe("base");
    // What import preloaded stays active, no longer as preloaded: base's system prompt does not hold it.
    expect(withoutVariant.manifest.variants["base"]?.preloadedSkills).toEqual([]);
    expect(moved.controller.state.activeSkills.map(({ name, activatedBy }) => `${name} ${activatedBy}`)).toEqual([
      "import host",
      "ask-user-questions host",
      "gml-authoring host",
      "gml-cli host",
    ]);
    // Durable: what the store holds is what the session holds.
    expect(new FileStateStore(statePath).load()).toEqual(moved.controller.state);

    const seen: SeenContext[] = [];
    pi.faux().setResponses([seeing(seen, toolUse(fauxToolCall("todo", { tasks: [{ id: "t1", title: "Convert it", status: "in_progress" }] }))), seeing(seen, fauxAssistantMessage("Going on."))]);
    await moved.agent.prompt(moved.controller.buildTurnMessages({ text: "Carry on" }) as AgentMessage[]);
    expect(seen[0]?.systemPrompt).toBe(withoutVariant.variants["base"]);
    const texts = (seen[0]?.messages ?? []).map((message) => textOf(message));
    const note = texts.find((text) => text.includes("<workspace_update"));
    expect(note).toContain("The agent configuration it ran on (import) no longer exists; it goes on with base");
    expect(note).toContain("These skills stay active, though the agent configuration no longer preloads them: import, ask-user-questions, gml-authoring, gml-cli.");
    // The model reads the import workflow: the anchor carries its body, and calls it nothing it is not.
    const body = withoutVariant.skills.get("import")?.body ?? "";
    expect(seen[0]?.systemPrompt).not.toContain(body.trim());
    const anchor = texts.find((text) => text.includes("<session_state"));
    expect(anchor).toContain(body.trim());
    expect(anchor).toContain("- import (workflow, activated by the host)");
    expect(anchor).not.toContain("preloaded in the system prompt");
    // Loading it again is answered as a skill whose text the context holds, not as preloaded.
    const loadSeen: SeenContext[] = [];
    pi.faux().setResponses([seeing(loadSeen, toolUse(fauxToolCall("skill", { name: "import" }))), seeing(loadSeen, fauxAssistantMessage("Following it."))]);
    await moved.agent.prompt(moved.controller.buildTurnMessages({ text: "Which workflow?" }) as AgentMessage[]);
    const answer = textOf((loadSeen[1]?.messages ?? []).at(-1));
    expect(answer).toContain('Skill "import" is already active (loaded earlier in this session)');
    pi.disposeNow(moved);

    // Opened again: it is a base session now, with nothing to tell.
    const again: ProtocolEvent[] = [];
    expect(open(withoutVariant, "base", statePath, again).controller.variant).toBe("base");
    expect(again).toEqual([]);
  });

  it("a context whose anchor was made on the variant it left gets a fresh anchor on resume, even with nothing else to carry", async () => {
    const statePath = join(await tempDir("variant-anchor"), "state.json");
    const first = open(deployed, "import", statePath);
    const made = first.controller.anchorMessage();
    expect(made.content).toContain("- import (workflow, preloaded in the system prompt)");
    pi.disposeNow(first);

    const moved = open(withoutVariant, "base", statePath);
    // What the move owed is delivered (the pending note rides with it): nothing is left to carry.
    const fresh = moved.controller.anchorMessage();
    expect(fresh.content).toContain("- import (workflow, activated by the host)");
    expect(moved.controller.resumeAnchor([fresh])).toBeUndefined();
    // A transcript that kept the anchor of the import variant lacks import's body: it gets a fresh one.
    const again = moved.controller.resumeAnchor([made]);
    expect(again?.content).toContain(withoutVariant.skills.get("import")?.body.trim());
  });

  it("moved to a variant that preloads other skills: they are active as in a new session on it, and a skill they conflict with leaves", async () => {
    const statePath = join(await tempDir("variant-preloads"), "state.json");
    const first = open(deployed, "import", statePath);
    pi.faux().setResponses([fauxAssistantMessage("Ready.")]);
    await first.agent.prompt(first.controller.buildTurnMessages({ text: "Import my deck" }) as AgentMessage[]);
    const transcript = first.agent.state.messages.slice();
    pi.disposeNow(first);

    const events: ProtocolEvent[] = [];
    const moved = open(withoutVariant, "deck-generation", statePath, events, transcript);
    // deck-generation conflicts with import: the variant's system prompt holds deck-generation, so import leaves.
    expect(withoutVariant.skills.get("deck-generation")?.conflictsWith).toContain("import");
    expect(events).toEqual([
      {
        type: "build_changed",
        previousCacheKey: deployed.manifest.staticPrefix.cacheKey,
        cacheKey: withoutVariant.manifest.staticPrefix.cacheKey,
        droppedSkills: ["import"],
        clearedSteps: [],
        variant: { from: "import", to: "deck-generation" },
      },
    ]);
    const fresh = open(withoutVariant, "deck-generation", join(await tempDir("variant-preloads-new"), "state.json"));
    const byName = (skills: readonly { name: string }[]) => [...skills].sort((a, b) => a.name.localeCompare(b.name));
    expect(byName(moved.controller.state.activeSkills)).toEqual(byName(fresh.controller.state.activeSkills));
    expect(new FileStateStore(statePath).load()).toEqual(moved.controller.state);

    const seen: SeenContext[] = [];
    pi.faux().setResponses([seeing(seen, fauxAssistantMessage("Going on."))]);
    await moved.agent.prompt(moved.controller.buildTurnMessages({ text: "Carry on" }) as AgentMessage[]);
    expect(seen[0]?.systemPrompt).toBe(withoutVariant.variants["deck-generation"]);
    const note = (seen[0]?.messages ?? []).map((message) => textOf(message)).find((text) => text.includes("<workspace_update"));
    expect(note).toContain("These skills are active now, preloaded in the system prompt: deck-generation.");
    expect(note).toContain("These skills are no longer active, since they conflict with a skill the system prompt preloads: import (conflicts with deck-generation).");
    expect(note).not.toContain("These skills no longer exist");
  });
});
