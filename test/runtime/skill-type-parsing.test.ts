import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ArtifactVerificationError, loadArtifacts } from "../../src/runtime/artifacts.js";
import { SessionProtocolController } from "../../src/runtime/controller.js";
import { prepareDist } from "./helpers/dist.js";
import { fauxAssistantMessage, fauxToolCall, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxAgent, fauxPerTest } from "./helpers/session.js";

const pi = fauxPerTest();

describe("skill types come from the manifest", () => {
  it("every skill carries the type the manifest declares", () => {
    const dist = prepareDist();
    const manifest = JSON.parse(readFileSync(join(dist, "manifest.json"), "utf8"));
    const loaded = loadArtifacts({ distDir: dist });
    for (const [name, info] of Object.entries<{ type: string }>(manifest.skills)) {
      expect(loaded.skills.get(name)?.type).toBe(info.type);
    }
    expect(loaded.skills.get("deck-generation")?.type).toBe("workflow");
    expect(loaded.skills.get("gml-authoring")?.type).toBe("reference");
  });

  for (const bad of ["procedure", "Workflow", null]) {
    it(`refuses a manifest whose skill type is ${JSON.stringify(bad)}`, () => {
      const dist = prepareDist();
      const path = join(dist, "manifest.json");
      const manifest = JSON.parse(readFileSync(path, "utf8"));
      manifest.skills["gml-cli"].type = bad;
      writeFileSync(path, JSON.stringify(manifest));
      try {
        loadArtifacts({ distDir: dist });
        expect.unreachable("loadArtifacts accepted a bad skill type");
      } catch (error) {
        expect(error).toBeInstanceOf(ArtifactVerificationError);
        expect((error as ArtifactVerificationError).problems).toEqual([
          { file: "manifest.json", kind: "invalid", message: `Unexpected type ${JSON.stringify(bad)} for skill "gml-cli", expected "workflow" or "reference"` },
        ]);
      }
    });
  }
});

describe("the skill tool records the type of what it activates", () => {
  it("a workflow and a reference skill loaded by the model are active with their types; the model receives the body", async () => {
    const artifacts = loadArtifacts({ distDir: prepareDist() });
    const faux = pi.faux();
    const { agent, controller } = fauxAgent(faux, artifacts);
    const seen: SeenContext[] = [];
    faux.setResponses([
      toolUse(fauxToolCall("skill", { name: "ask-user-questions" })),
      seeing(seen, toolUse(fauxToolCall("skill", { name: "gml-editing" }))),
      seeing(seen, fauxAssistantMessage("ready")),
    ]);
    await agent.prompt("Fix the title on card 2");
    const required = artifacts.skills.get("gml-editing")!.requiresSkills.filter((name) => name !== "ask-user-questions");
    expect(required.length).toBeGreaterThan(0);
    expect(controller.state.activeSkills).toEqual([
      { name: "ask-user-questions", type: "reference", activatedBy: "tool", sha256: artifacts.manifest.skills["ask-user-questions"]?.sha256 },
      { name: "gml-editing", type: "workflow", activatedBy: "tool", sha256: artifacts.manifest.skills["gml-editing"]?.sha256 },
      ...required.map((name) => ({ name, type: artifacts.skills.get(name)?.type, activatedBy: "requires", requiredBy: "gml-editing", sha256: artifacts.manifest.skills[name]?.sha256 })),
    ]);
    expect(textOf(seen[0]?.messages.at(-1))).toBe(artifacts.skills.get("ask-user-questions")?.body);
    expect(textOf(seen[1]?.messages.at(-1)).startsWith(artifacts.skills.get("gml-editing")?.body ?? "?")).toBe(true);
  });

  it("a variant's preloaded skills are active from the first turn with their types", () => {
    const artifacts = loadArtifacts({ distDir: prepareDist() });
    const controller = new SessionProtocolController({ artifacts, variant: "deck-generation" });
    const preloaded = artifacts.manifest.variants["deck-generation"]?.preloadedSkills ?? [];
    expect(controller.state.activeSkills).toEqual(
      preloaded.map((name) => ({ name, type: artifacts.skills.get(name)?.type, activatedBy: "preload", sha256: artifacts.manifest.skills[name]?.sha256 })),
    );
    expect(controller.state.activeSkills[0]).toEqual({ name: "deck-generation", type: "workflow", activatedBy: "preload", sha256: artifacts.manifest.skills["deck-generation"]?.sha256 });
  });
});
