/**
 * End to end for a project that is not Gamma: init, add a variant `outline`
 * that preloads the example workflow, build, then drive the runtime on Pi's
 * faux provider with that variant.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { init } from "../../src/init.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { InjectionsNotDefinedError, SessionProtocolController, UnknownVariantError } from "../../src/runtime/controller.js";
import { createGammaAgent } from "../../src/runtime/pi-adapter.js";
import { removeTempDirs, tempDir } from "../build/helpers.js";
import { runCliInProcess } from "../helpers/cli.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, registerFauxProvider, seeing, textOf, toolUse, type Faux, type SeenContext } from "../runtime/helpers/pi.js";

afterAll(removeTempDirs);
let faux: Faux | undefined;
afterEach(() => faux?.unregister());

async function outlineProject(): Promise<string> {
  const root = await tempDir();
  expect((await init({ dir: root })).ok).toBe(true);
  const variants = join(root, "prompts/variants.yaml");
  await writeFile(variants, `${await readFile(variants, "utf8")}  outline:\n    preload: [draft-outline]\n`);
  const built = await build({ root });
  expect(built.diagnostics).toEqual([]);
  expect(built.ok).toBe(true);
  return root;
}

describe("a project's own variants, end to end", () => {
  it("builds `base` and `outline`, and the runtime runs `outline` on a real Pi agent", async () => {
    const root = await outlineProject();
    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    expect(Object.keys(artifacts.manifest.variants)).toEqual(["base", "outline"]);
    expect(artifacts.manifest.variants["outline"]?.preloadedSkills).toEqual(["draft-outline", "style-guide"]);
    expect(artifacts.variants["outline"]).toBe(await readFile(join(root, "dist/variants/outline.md"), "utf8"));
    const table = (await runCliInProcess("build", "--root", root)).stdout.split("\n");
    expect(table[1]).toMatch(/^base\s+\d+\s+\d+\s+\d+\s+\d+\s+100\.0%$/);
    expect(table[2]).toMatch(/^outline\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\.\d%$/);

    faux = registerFauxProvider();
    const seen: SeenContext[] = [];
    const host: string[] = [];
    const events: string[] = [];
    const { agent, controller } = createGammaAgent({
      artifacts,
      variant: "outline",
      model: faux.getModel(),
      executors: recordingExecutors(host, ["read", "write", "edit", "bash"]),
      onProtocolEvent: (event) => events.push(event.type),
    });
    expect(controller.state.activeSkills.map((skill) => [skill.name, skill.activatedBy])).toEqual([
      ["draft-outline", "preload"],
      ["style-guide", "preload"],
    ]);
    faux.setResponses([
      seeing(seen, toolUse(fauxToolCall("skill", { name: "draft-outline" }), fauxToolCall("message_user", { message: "Drafting the outline now.", blockOnUser: false }))),
      seeing(seen, toolUse(fauxToolCall("todo", { tasks: [{ id: "understand", title: "Understand the request", status: "in_progress" }, { id: "write", title: "Write the outline", status: "pending" }] }))),
      seeing(seen, toolUse(fauxToolCall("write", { path: "outline.md", content: "# Tide pools\n" }))),
      seeing(seen, toolUse(fauxToolCall("message_user", { message: "The outline is in outline.md.", blockOnUser: true }))),
      fauxAssistantMessage("never reached"),
    ]);
    await agent.prompt(controller.buildTurnMessages({ text: "Outline a talk about tide pools." }));

    expect(seen[0]?.systemPrompt).toBe(artifacts.variants["outline"]);
    expect(seen[0]?.systemPrompt).toContain('<preloaded_skill name="draft-outline" type="workflow"');
    expect(seen[0]?.tools.map((tool) => tool.name)).toEqual(["read", "write", "edit", "bash", "todo", "skill", "message_user"]);
    expect(JSON.stringify(seen[0]?.tools.find((tool) => tool.name === "skill")?.parameters)).toContain('"enum":["draft-outline","style-guide"]');
    // The preloaded workflow is already active: loading it again only confirms.
    expect(textOf(seen[1]?.messages.find((message) => message.role === "toolResult"))).not.toContain("# Draft an outline");
    expect(host).toEqual(["write"]);
    // The tasks name no checklist step, so the completion audit (report, the default) fails and the yield goes ahead.
    expect(events).toEqual(["progress", "tasks_updated", "checklist_progress", "audit", "yield"]);
    expect(controller.shouldStopAfterTurn()).toBe(true);
    expect(faux.getPendingResponseCount()).toBe(1);
  });

  it("refuses a variant the manifest does not list, naming the ones it does", async () => {
    const artifacts = loadArtifacts({ distDir: join(await outlineProject(), "dist") });
    expect(() => new SessionProtocolController({ artifacts, variant: "deck-generation" })).toThrow(UnknownVariantError);
    expect(() => new SessionProtocolController({ artifacts, variant: "deck-generation" })).toThrow(
      'Unexpected variant "deck-generation", expected one of the variants dist/manifest.json lists: base, outline',
    );
  });

  it("builds without prompts/injections.yaml: no injection section, and routeUpdate is refused", async () => {
    const root = await tempDir();
    expect((await init({ dir: root })).ok).toBe(true);
    await rm(join(root, "prompts/injections.yaml"));
    const built = await build({ root });
    expect(built.diagnostics).toEqual([]);
    expect(built.manifest?.injections).toBeUndefined();
    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    expect(artifacts.prefix).not.toContain("# Runtime injections");
    expect(artifacts.prefix).not.toContain("\n\n\n");
    expect(artifacts.injectionKinds).toEqual([]);
    const controller = new SessionProtocolController({ artifacts, variant: "base" });
    const event = { id: "evt_1", kind: "system_note", occurredAt: "2026-12-02T10:00:00Z", source: "server", delivery: "next_turn", requiresDecision: false, summary: "Context." };
    expect(() => controller.routeUpdate(event)).toThrow(InjectionsNotDefinedError);
    expect(() => controller.routeUpdate(event)).toThrow(/expected prompts\/injections\.yaml/);
  });
});
