import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { loadArtifacts, type LoadedArtifacts } from "../../src/runtime/artifacts.js";
import { createGammaAgent, createGammaSession } from "../../src/runtime/pi-adapter.js";
import { ToolSetupError } from "../../src/runtime/tools.js";
import { copyParts, tempDir } from "../helpers/temp-project.js";
import { removeTempDirs, repoRoot } from "../build/helpers.js";
import { fauxAssistantMessage, recordingExecutors, seeing, type SeenContext } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";

afterAll(removeTempDirs);

const pi = fauxPerTest();
const DRIVE_TOOLS = ["drive_search", "drive_list_folder", "drive_get_file", "drive_download"];
const HOST_TOOLS = ["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file"];

/** The embedded default whose `import` variant sends the `drive` namespace from the start. */
async function artifactsWithStartNamespace(): Promise<LoadedArtifacts> {
  const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge"], join(await tempDir("start namespaces"), "project"));
  await writeFile(join(root, "prompts/variants.yaml"), "variants:\n  base:\n    preload: []\n  deck-generation:\n    preload: [deck-generation]\n  import:\n    preload: [import]\n    namespaces: [drive]\n");
  expect((await build({ root, persistentCache: false })).ok).toBe(true);
  return loadArtifacts({ distDir: join(root, "dist") });
}

const executors = () => recordingExecutors([], [...HOST_TOOLS, ...DRIVE_TOOLS]);

describe("a variant that sends a namespace from the start", () => {
  it("gives the low-level Agent tools.json's tools, then the namespace's, in the cache plan's order; other variants get tools.json's alone", async () => {
    const artifacts = await artifactsWithStartNamespace();
    const stable = artifacts.tools.map((tool) => tool.name);
    for (const [variant, expected] of [["import", [...stable, ...DRIVE_TOOLS]], ["base", stable]] as const) {
      const faux = pi.faux();
      const { agent } = createGammaAgent({ artifacts, variant, model: faux.getModel(), executors: variant === "import" ? executors() : recordingExecutors(), ...NO_KNOWLEDGE_HINTS });
      const seen: SeenContext[] = [];
      faux.setResponses([seeing(seen, fauxAssistantMessage("ok"))]);
      await agent.prompt("hello");
      expect(seen[0]?.tools.map((tool) => tool.name)).toEqual(expected);
    }
    expect(artifacts.cachePlan.variants["import"]?.blocks.map((block) => block.source)).toEqual(["tools.json", "namespaces/drive.json", "prefix.md", "variants/import.md"]);
  });

  it("does the same on an AgentSession, and refuses at creation a host without executors for the namespace's tools", async () => {
    const artifacts = await artifactsWithStartNamespace();
    const faux = pi.faux();
    const gamma = pi.disposeAfterTest(await createGammaSession({ artifacts, variant: "import", executors: executors(), ...(await fauxSessionSetup(faux)) }));
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("ok"))]);
    await gamma.session.prompt("Import the board deck from my drive");
    expect(seen[0]?.tools.map((tool) => tool.name)).toEqual([...artifacts.tools.map((tool) => tool.name), ...DRIVE_TOOLS]);
    expect(() => createGammaAgent({ artifacts, variant: "import", model: faux.getModel(), executors: recordingExecutors() })).toThrow(ToolSetupError);
    expect(() => createGammaAgent({ artifacts, variant: "import", model: faux.getModel(), executors: recordingExecutors() })).toThrow(/"drive_search", "drive_list_folder", "drive_get_file", "drive_download"/);
  });

  it("names every declared tool when a plain JavaScript host passes no executors at all", () => {
    const faux = pi.faux();
    const withoutExecutors = { artifacts: loadArtifacts(), variant: "base", model: faux.getModel() } as unknown as Parameters<typeof createGammaAgent>[0];
    expect(() => createGammaAgent(withoutExecutors)).toThrow(ToolSetupError);
    expect(() => createGammaAgent(withoutExecutors)).toThrow(/^Unexpected missing executor for "read", "bash",/);
  });
});
