// A stored session reopened on another build of the agent (a redeploy that
// removed a skill and shortened a checklist): the reopen goes ahead, the host
// is told (both cache keys, what left the state), the removed skill is no
// longer active and tasks lose the steps the new build lacks, the model is
// told through a workspace_update, and its next task list is accepted.
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { loadArtifacts, type LoadedArtifacts } from "../../src/runtime/artifacts.js";
import { FileStateStore } from "../../src/runtime/state.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { removeTempDirs, repoRoot } from "../build/helpers.js";
import { copyParts, tempDir } from "../helpers/temp-project.js";
import { artifacts as deployed } from "../injections/helpers/gamma.js";
import { fauxAssistantMessage, fauxToolCall, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { agentOnFileStore, fauxPerTest } from "./helpers/session.js";

afterAll(removeTempDirs);

const pi = fauxPerTest();
let redeployed: LoadedArtifacts;
/** The embedded default with only the import checklist's last step gone: the static prefix is the same. */
let shortened: LoadedArtifacts;

/** The embedded default with import, the same body byte for byte, a reference instead of a workflow. */
let retyped: LoadedArtifacts;

/** The embedded default without drive-files, and with the import checklist's last step gone. */
beforeAll(async () => {
  const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge"], join(await tempDir("redeploy"), "project"));
  await rm(join(root, "skills/drive-files"), { recursive: true });
  const importSkill = join(root, "skills/import/SKILL.md");
  const text = await readFile(importSkill, "utf8");
  await writeFile(importSkill, text.replace(/^15\. \*\*Present the deck\.\*\*.*\n/m, ""));
  const built = await build({ root, persistentCache: false });
  expect(built.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  redeployed = loadArtifacts({ distDir: join(root, "dist") });

  const sameCatalog = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge"], join(await tempDir("redeploy-steps"), "project"));
  await writeFile(join(sameCatalog, "skills/import/SKILL.md"), text.replace(/^15\. \*\*Present the deck\.\*\*.*\n/m, ""));
  const rebuilt = await build({ root: sameCatalog, persistentCache: false });
  expect(rebuilt.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  shortened = loadArtifacts({ distDir: join(sameCatalog, "dist") });

  const otherType = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge"], join(await tempDir("redeploy-type"), "project"));
  expect(text).toContain("  gamma-type: workflow\n");
  await writeFile(join(otherType, "skills/import/SKILL.md"), text.replace("  gamma-type: workflow\n", "  gamma-type: reference\n"));
  const typed = await build({ root: otherType, persistentCache: false });
  expect(typed.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  retyped = loadArtifacts({ distDir: join(otherType, "dist") });
}, 60_000);

function open(artifacts: LoadedArtifacts, statePath: string, events: ProtocolEvent[], messages?: AgentMessage[]) {
  return agentOnFileStore(pi, { artifacts, variant: "base", statePath, events, messages });
}

describe("a session reopened on another build", () => {
  it("goes on: the host is told, what the build lacks leaves the state, the model is told, and its next task list is accepted", async () => {
    expect(redeployed.skills.has("drive-files")).toBe(false);
    expect(redeployed.skills.get("import")?.steps?.length).toBe((deployed.skills.get("import")?.steps?.length ?? 0) - 1);
    const oldKey = deployed.manifest.staticPrefix.cacheKey;
    const newKey = redeployed.manifest.staticPrefix.cacheKey;
    expect(newKey).not.toBe(oldKey);

    const statePath = join(await tempDir("redeploy-state"), "state.json");
    const first = open(deployed, statePath, []);
    const plan = [
      { id: "t1", title: "Find the file", status: "complete", step: "drive-files#3" },
      { id: "t2", title: "Convert it", status: "in_progress", step: "import#2" },
      { id: "t3", title: "Present the deck", status: "pending", step: "import#15" },
    ];
    pi.faux().setResponses([
      toolUse(fauxToolCall("skill", { name: "drive-files" }), fauxToolCall("skill", { name: "import" })),
      toolUse(fauxToolCall("todo", { tasks: plan })),
      fauxAssistantMessage("Converting."),
    ]);
    await first.agent.prompt(first.controller.buildTurnMessages({ text: "Import the board deck from my drive" }) as AgentMessage[]);
    expect(first.controller.state.tasks.items.map((task) => task.step)).toEqual(["drive-files#3", "import#2", "import#15"]);
    const transcript = first.agent.state.messages.slice();
    pi.disposeNow(first);

    const events: ProtocolEvent[] = [];
    const reopened = open(redeployed, statePath, events, transcript);
    expect(events).toEqual([
      {
        type: "build_changed",
        previousCacheKey: oldKey,
        cacheKey: newKey,
        droppedSkills: ["drive-files"],
        clearedSteps: [
          { taskId: "t1", step: "drive-files#3" },
          { taskId: "t3", step: "import#15" },
        ],
        changedSkills: ["import"],
      },
    ]);
    const state = reopened.controller.state;
    expect(state.cacheKey).toBe(newKey);
    expect(state.activeSkills.map((skill) => skill.name)).not.toContain("drive-files");
    expect(state.activeSkills.map((skill) => skill.name)).toContain("import");
    expect(state.tasks.items.map((task) => [task.id, task.step])).toEqual([
      ["t1", undefined],
      ["t2", "import#2"],
      ["t3", undefined],
    ]);
    // Durable: what the store holds is what the session holds.
    expect(new FileStateStore(statePath).load()).toEqual(reopened.controller.state);

    const seen: SeenContext[] = [];
    const replan = [
      { id: "t1", title: "Find the file", status: "complete" },
      { id: "t2", title: "Convert it", status: "complete", step: "import#2" },
      { id: "t3", title: "Present the deck", status: "in_progress", step: "import#14" },
    ];
    pi.faux().setResponses([seeing(seen, toolUse(fauxToolCall("todo", { tasks: replan }))), seeing(seen, fauxAssistantMessage("Planned again."))]);
    await reopened.agent.prompt(reopened.controller.buildTurnMessages({ text: "Carry on" }) as AgentMessage[]);
    const note = (seen[0]?.messages ?? []).map((message) => textOf(message)).find((text) => text.includes("<workspace_update"));
    expect(note).toContain("These skills no longer exist and are no longer active: drive-files.");
    expect(note).toContain("t1 (was drive-files#3), t3 (was import#15)");
    const todoResult = seen[1]?.messages.find((message) => message.role === "toolResult" && message.toolName === "todo");
    expect(todoResult).toMatchObject({ isError: false });
    expect(reopened.controller.state.tasks.items.map((task) => task.step)).toEqual([undefined, "import#2", "import#14"]);
    pi.disposeNow(reopened);

    // Opened again on the same build: nothing to tell.
    const again: ProtocolEvent[] = [];
    open(redeployed, statePath, again);
    expect(again.filter((event) => event.type === "build_changed")).toEqual([]);
  });

  it("reconciles a build whose static prefix is the same but whose checklist is shorter: the step leaves the state and the host is told", async () => {
    const key = deployed.manifest.staticPrefix.cacheKey;
    expect(shortened.manifest.staticPrefix.cacheKey).toBe(key);
    expect(shortened.skills.get("import")?.steps?.length).toBe((deployed.skills.get("import")?.steps?.length ?? 0) - 1);

    const statePath = join(await tempDir("redeploy-steps-state"), "state.json");
    const first = open(deployed, statePath, []);
    pi.faux().setResponses([
      toolUse(fauxToolCall("skill", { name: "import" })),
      toolUse(fauxToolCall("todo", { tasks: [{ id: "t1", title: "Convert it", status: "in_progress", step: "import#2" }, { id: "t2", title: "Present the deck", status: "pending", step: "import#15" }] })),
      fauxAssistantMessage("Converting."),
    ]);
    await first.agent.prompt(first.controller.buildTurnMessages({ text: "Import the board deck" }) as AgentMessage[]);
    const transcript = first.agent.state.messages.slice();
    pi.disposeNow(first);

    const events: ProtocolEvent[] = [];
    const reopened = open(shortened, statePath, events, transcript);
    expect(events).toEqual([{ type: "build_changed", previousCacheKey: key, cacheKey: key, droppedSkills: [], clearedSteps: [{ taskId: "t2", step: "import#15" }], changedSkills: ["import"] }]);
    expect(reopened.controller.state.tasks.items.map((task) => task.step)).toEqual(["import#2", undefined]);
    expect(new FileStateStore(statePath).load()).toEqual(reopened.controller.state);
    pi.disposeNow(reopened);

    const again: ProtocolEvent[] = [];
    open(shortened, statePath, again);
    expect(again).toEqual([]);
  });

  it("takes a skill's type from the new build when only its type changed: the anchor states the new contract, the steps it no longer has leave the tasks", async () => {
    expect(retyped.manifest.skills["import"]?.sha256).toBe(deployed.manifest.skills["import"]?.sha256);
    const statePath = join(await tempDir("redeploy-type-state"), "state.json");
    const first = open(deployed, statePath, []);
    pi.faux().setResponses([
      toolUse(fauxToolCall("skill", { name: "import" })),
      toolUse(fauxToolCall("todo", { tasks: [{ id: "t1", title: "Convert it", status: "in_progress", step: "import#2" }] })),
      fauxAssistantMessage("Converting."),
    ]);
    await first.agent.prompt(first.controller.buildTurnMessages({ text: "Import the board deck" }) as AgentMessage[]);
    expect(first.controller.state.activeSkills.find((skill) => skill.name === "import")?.type).toBe("workflow");
    const transcript = first.agent.state.messages.slice();
    pi.disposeNow(first);

    const events: ProtocolEvent[] = [];
    const reopened = open(retyped, statePath, events, transcript);
    expect(events).toEqual([expect.objectContaining({ type: "build_changed", clearedSteps: [{ taskId: "t1", step: "import#2" }], changedSkills: ["import"] })]);
    expect(reopened.controller.state.activeSkills.find((skill) => skill.name === "import")?.type).toBe("reference");
    expect(new FileStateStore(statePath).load()).toEqual(reopened.controller.state);
    expect(reopened.controller.anchorMessage().content).toContain('<skill name="import" type="reference">');
  });
});

describe("a session reopened on a build that changed what an active skill requires", () => {
  /** drive-files requiring gml-cli as well as ask-user-questions; and requiring nothing. */
  let requiresMore: LoadedArtifacts;
  let requiresNothing: LoadedArtifacts;
  const REQUIRES = "  gamma-requires-skills: ask-user-questions\n";

  beforeAll(async () => {
    const source = await readFile(join(repoRoot, "skills/drive-files/SKILL.md"), "utf8");
    expect(source).toContain(REQUIRES);
    const variantOf = async (name: string, text: string): Promise<LoadedArtifacts> => {
      const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge"], join(await tempDir(name), "project"));
      await writeFile(join(root, "skills/drive-files/SKILL.md"), text);
      const built = await build({ root, persistentCache: false });
      expect(built.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
      return loadArtifacts({ distDir: join(root, "dist") });
    };
    requiresMore = await variantOf("redeploy-requires-more", source.replace(REQUIRES, "  gamma-requires-skills: ask-user-questions gml-cli\n"));
    requiresNothing = await variantOf("redeploy-requires-nothing", source.replace(REQUIRES, ""));
  }, 60_000);

  /** A session on the deployed build with drive-files loaded by the model (and ask-user-questions with it), and its transcript. */
  async function withDriveFiles(statePath: string): Promise<AgentMessage[]> {
    const first = open(deployed, statePath, []);
    pi.faux().setResponses([toolUse(fauxToolCall("skill", { name: "drive-files" })), fauxAssistantMessage("Looking in your drive.")]);
    await first.agent.prompt(first.controller.buildTurnMessages({ text: "Use the deck in my drive" }) as AgentMessage[]);
    expect(first.controller.state.activeSkills.map((skill) => [skill.name, skill.activatedBy, skill.requiredBy])).toEqual([
      ["drive-files", "tool", undefined],
      ["ask-user-questions", "requires", "drive-files"],
    ]);
    const transcript = first.agent.state.messages.slice();
    pi.disposeNow(first);
    return transcript;
  }

  it("activates a requirement the new build adds, tells the host and the model, and anchors its body", async () => {
    // Only the frontmatter changed: the cache key and the skill's body are the same, so nothing else tells of it.
    expect(requiresMore.manifest.staticPrefix.cacheKey).toBe(deployed.manifest.staticPrefix.cacheKey);
    expect(requiresMore.manifest.skills["drive-files"]?.sha256).toBe(deployed.manifest.skills["drive-files"]?.sha256);
    const statePath = join(await tempDir("redeploy-requires-more-state"), "state.json");
    const transcript = await withDriveFiles(statePath);

    const events: ProtocolEvent[] = [];
    const reopened = open(requiresMore, statePath, events, transcript);
    const key = deployed.manifest.staticPrefix.cacheKey;
    expect(events).toEqual([{ type: "build_changed", previousCacheKey: key, cacheKey: key, droppedSkills: [], clearedSteps: [], requiredNow: [{ skill: "gml-cli", by: "drive-files" }] }]);
    expect(reopened.controller.state.activeSkills.map((skill) => [skill.name, skill.activatedBy, skill.requiredBy])).toEqual([
      ["drive-files", "tool", undefined],
      ["ask-user-questions", "requires", "drive-files"],
      ["gml-cli", "requires", "drive-files"],
    ]);
    expect(new FileStateStore(statePath).load()).toEqual(reopened.controller.state);

    const seen: SeenContext[] = [];
    pi.faux().setResponses([seeing(seen, fauxAssistantMessage("Carrying on."))]);
    await reopened.agent.prompt(reopened.controller.buildTurnMessages({ text: "Carry on" }) as AgentMessage[]);
    const texts = (seen[0]?.messages ?? []).map((message) => textOf(message));
    // "Another" version: a rollback reopens a session on an earlier build as well.
    expect(texts.find((text) => text.includes("<workspace_update"))).toContain("This session was reopened on another version of the agent. These skills are active now, since an active skill requires them in this version: gml-cli (required by drive-files).");
    // The body of the skill the model never loaded reaches it in the anchor of that first request.
    const body = requiresMore.skills.get("gml-cli")?.body.trim().split("\n")[0] ?? "";
    expect(body).not.toBe("");
    expect(texts.some((text) => text.includes('<skill name="gml-cli" type="reference">') && text.includes(body))).toBe(true);
    pi.disposeNow(reopened);

    const again: ProtocolEvent[] = [];
    open(requiresMore, statePath, again);
    expect(again).toEqual([]);
  });

  it("lets a skill that was active only as a requirement the new build removed leave the state, and says so", async () => {
    const statePath = join(await tempDir("redeploy-requires-nothing-state"), "state.json");
    const transcript = await withDriveFiles(statePath);

    const events: ProtocolEvent[] = [];
    const reopened = open(requiresNothing, statePath, events, transcript);
    expect(events).toEqual([expect.objectContaining({ type: "build_changed", droppedSkills: ["ask-user-questions"], clearedSteps: [] })]);
    expect(reopened.controller.state.activeSkills.map((skill) => skill.name)).toEqual(["drive-files"]);

    const seen: SeenContext[] = [];
    pi.faux().setResponses([seeing(seen, fauxAssistantMessage("Carrying on."))]);
    await reopened.agent.prompt(reopened.controller.buildTurnMessages({ text: "Carry on" }) as AgentMessage[]);
    const note = (seen[0]?.messages ?? []).map((message) => textOf(message)).find((text) => text.includes("<workspace_update"));
    expect(note).toContain(
      "These skills were active only because an active skill required them, which no active skill does in this version: ask-user-questions. They are no longer active; load one with the skill tool if the task still needs it.",
    );
    expect(note).not.toContain("no longer exist");
    // An anchor made after it (a compaction's) no longer holds the skill.
    const anchor = reopened.controller.anchorMessage().content;
    expect(anchor).not.toContain("- ask-user-questions (reference, required by drive-files)");
    expect(anchor).not.toContain('<skill name="ask-user-questions"');
  });
});
