/**
 * `disable-model-invocation: true` keeps a skill out of <available_skills>
 * and out of the skill tool's names, while a variant may preload it and the
 * host may activate it. The catalog lists exactly what Pi's own loader lists
 * for the same folder.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { formatSkillsForPrompt, loadSkillsFromDir } from "@earendil-works/pi-coding-agent";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { init } from "../../src/init.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { SessionProtocolController } from "../../src/runtime/controller.js";
import { createGammaAgent } from "../../src/runtime/pi-adapter.js";
import { SkillToolError } from "../../src/runtime/skills.js";
import { removeTempDirs, tempDir } from "../build/helpers.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, registerFauxProvider, seeing, textOf, toolUse, type Faux, type SeenContext } from "../runtime/helpers/pi.js";

afterAll(removeTempDirs);
let faux: Faux | undefined;
afterEach(() => faux?.unregister());

const HIDDEN = `---
name: publish-notes
type: workflow
description: Use when the release manager asks to publish the release notes.
disable-model-invocation: true
requiresSkills:
  - style-guide
---

# Publish the release notes

1. Collect the merged changes.
2. Write the notes following the style guide.
3. Verify every change is listed, then publish.
`;

async function projectWithHiddenSkill(): Promise<string> {
  const root = await tempDir();
  expect((await init({ dir: root })).ok).toBe(true);
  await mkdir(join(root, "skills/publish-notes"));
  await writeFile(join(root, "skills/publish-notes/SKILL.md"), HIDDEN);
  const variants = join(root, "prompts/variants.yaml");
  await writeFile(variants, `${await readFile(variants, "utf8")}  publishing:\n    preload: [publish-notes]\n`);
  const built = await build({ root });
  expect(built.diagnostics).toEqual([]);
  return root;
}

/** Name and description of each `<skill>` in Pi's catalog text, in its order. */
function piCatalog(text: string): Array<[string, string]> {
  const unescape = (value: string): string => value.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");
  return [...text.matchAll(/<name>([^<]*)<\/name>\s*<description>([^<]*)<\/description>/g)].map((match) => [unescape(match[1] ?? ""), unescape(match[2] ?? "")]);
}

function ourCatalog(text: string): Array<[string, string]> {
  const unescape = (value: string): string => value.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
  return [...text.matchAll(/<skill\n\s+name="([^"]*)"[\s\S]*?>\n\s+([^\n]*)\n\s+<\/skill>/g)].map((match) => [unescape(match[1] ?? ""), unescape(match[2] ?? "")]);
}

describe("disable-model-invocation", () => {
  it("keeps the skill out of the catalog and the skill tool's names; the catalog equals what Pi's loader lists", async () => {
    const root = await projectWithHiddenSkill();
    const dist = join(root, "dist");
    const catalog = await readFile(join(dist, "catalog.xml"), "utf8");
    const tools = JSON.parse(await readFile(join(dist, "tools.json"), "utf8")) as Array<{ name: string; parameters: { properties: { name?: { enum?: string[] } } } }>;
    expect(ourCatalog(catalog).map(([name]) => name)).toEqual(["draft-outline", "style-guide"]);
    expect(tools.find((tool) => tool.name === "skill")?.parameters.properties.name?.enum).toEqual(["draft-outline", "style-guide"]);
    expect(await readFile(join(dist, "prefix.md"), "utf8")).not.toContain("publish-notes");

    const pi = loadSkillsFromDir({ dir: join(root, "skills"), source: "project" });
    expect(pi.diagnostics).toEqual([]);
    expect(pi.skills.map((skill) => skill.name).sort()).toEqual(["draft-outline", "publish-notes", "style-guide"]);
    const listed = piCatalog(formatSkillsForPrompt(pi.skills)).sort(([a], [b]) => (a < b ? -1 : 1));
    expect(listed).toEqual(ourCatalog(catalog));

    const manifest = loadArtifacts({ distDir: dist }).manifest;
    expect(manifest.skills["publish-notes"]?.disableModelInvocation).toBe(true);
    expect(manifest.skills["style-guide"]?.disableModelInvocation).toBeUndefined();
  });

  it("a variant may still preload it", async () => {
    const root = await projectWithHiddenSkill();
    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    expect(artifacts.variants["publishing"]).toContain('<preloaded_skill name="publish-notes" type="workflow"');
    const controller = new SessionProtocolController({ artifacts, variant: "publishing" });
    expect(controller.state.activeSkills.map((skill) => [skill.name, skill.activatedBy])).toEqual([
      ["publish-notes", "preload"],
      ["style-guide", "preload"],
    ]);
  });

  it("the model cannot load it; the host activates it with activateSkillForHost and the model receives its body", async () => {
    const root = await projectWithHiddenSkill();
    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    expect(() => new SessionProtocolController({ artifacts, variant: "base" }).activateSkill("publish-notes")).toThrow(
      new SkillToolError('Unknown skill "publish-notes", expected one of: draft-outline, style-guide.'),
    );

    faux = registerFauxProvider();
    const seen: SeenContext[] = [];
    const { agent, controller } = createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: recordingExecutors([], ["read", "write", "edit", "bash"]) });
    faux.setResponses([
      seeing(seen, toolUse(fauxToolCall("skill", { name: "publish-notes" }))),
      seeing(seen, fauxAssistantMessage("Understood.")),
      seeing(seen, fauxAssistantMessage("Publishing.")),
    ]);
    await agent.prompt(controller.buildTurnMessages({ text: "Publish the notes." }));
    // Pi's own argument validation refuses the name: it is not in the tool's enum.
    expect(seen[1]?.messages.at(-1)).toMatchObject({ role: "toolResult", isError: true });
    expect(controller.state.activeSkills).toEqual([]);

    const message = controller.activateSkillForHost("publish-notes");
    expect(message.customType).toBe("gamma.skill");
    expect(message.details).toEqual({ trusted: true, hostActivation: { skill: "publish-notes", alreadyActive: false, activated: ["publish-notes", "style-guide"] } });
    expect(controller.state.activeSkills.map((skill) => [skill.name, skill.activatedBy])).toEqual([
      ["publish-notes", "host"],
      ["style-guide", "requires"],
    ]);
    await agent.prompt([...controller.buildTurnMessages({ text: "Go ahead." }), message]);
    const delivered = textOf(seen[2]?.messages.at(-1));
    expect(delivered.startsWith('<skill name="publish-notes" type="workflow" activated_by="host">\nThis workflow skill is active because the current task matches it.')).toBe(true);
    expect(delivered).toContain(artifacts.skills.get("publish-notes")?.body.trimEnd());
    expect(delivered).toContain('Required reference skill "style-guide"');
    expect(controller.activateSkillForHost("publish-notes").content).toContain("is already active");
  });
});
