// A stored session moved between two builds that share the static prefix's
// cache key but differ in the body of a skill it has active (a reworded
// step, the same number of steps): the reopen tells the host which skills
// changed, the model is told to follow the current text, and the next
// request carries a fresh anchor with the serving build's body, both ways.
// The leading system message stays byte for byte the same.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { TranscriptContext } from "@earendil-works/pi-ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { loadArtifacts, type LoadedArtifacts } from "../../src/runtime/artifacts.js";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { createGammaAgent, createGammaSession, sessionManagerFromEntries } from "../../src/runtime/pi-adapter.js";
import { FileStateStore } from "../../src/runtime/state.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { removeTempDirs, repoRoot } from "../build/helpers.js";
import { copyParts, tempDir } from "../helpers/temp-project.js";
import { artifacts as deployed } from "../injections/helpers/gamma.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";

afterAll(removeTempDirs);

const pi = fauxPerTest();
const OLD_STEP = "15. **Present the deck.**";
const NEW_STEP = "15. **Present the deck to the board secretary first.**";
/** The embedded default with the import checklist's last step reworded: same cache key, same step count. */
let reworded: LoadedArtifacts;

beforeAll(async () => {
  const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge"], join(await tempDir("redeploy-body"), "project"));
  const importSkill = join(root, "skills/import/SKILL.md");
  const text = await readFile(importSkill, "utf8");
  expect(text).toContain(OLD_STEP);
  await writeFile(importSkill, text.replace(OLD_STEP, NEW_STEP));
  const built = await build({ root, persistentCache: false });
  expect(built.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  reworded = loadArtifacts({ distDir: join(root, "dist") });
}, 60_000);

/** The text of every message of a request after its leading system message. */
function texts(context: TranscriptContext): string[] {
  return context.messages.slice(1).map((message) => JSON.stringify(message));
}

describe("a session reopened on a build whose active skill's body differs", () => {
  it("tells the host and the model, and anchors the serving build's text, both ways, with the same leading message", async () => {
    const key = deployed.manifest.staticPrefix.cacheKey;
    expect(reworded.manifest.staticPrefix.cacheKey).toBe(key);
    expect(reworded.skills.get("import")?.steps?.length).toBe(deployed.skills.get("import")?.steps?.length);
    expect(reworded.manifest.skills["import"]?.sha256).not.toBe(deployed.manifest.skills["import"]?.sha256);

    const statePath = join(await tempDir("redeploy-body-state"), "state.json");
    const open = async (artifacts: LoadedArtifacts, events: ProtocolEvent[], entries?: readonly unknown[]) => {
      const setup = await fauxSessionSetup(pi.faux());
      const sessionManager = entries === undefined ? setup.sessionManager : await sessionManagerFromEntries(setup.cwd, entries);
      return pi.disposeAfterTest(
        await createGammaSession({
          artifacts,
          variant: "base",
          store: new FileStateStore(statePath),
          executors: recordingExecutors(),
          onProtocolEvent: (event) => events.push(event),
          ...setup,
          sessionManager,
          ...NO_KNOWLEDGE_HINTS,
        }),
      );
    };
    type Opened = Awaited<ReturnType<typeof open>>;
    const entriesOf = (gamma: Opened) => [gamma.session.sessionManager.getHeader(), ...gamma.session.sessionManager.getEntries()];
    const run = async (gamma: Opened, text: string, replies: ReturnType<typeof fauxAssistantMessage>[]) => {
      const contexts: TranscriptContext[] = [];
      pi.faux().setResponses(
        replies.map((reply) => (context: TranscriptContext) => {
          contexts.push(JSON.parse(JSON.stringify(context)) as TranscriptContext);
          return reply;
        }),
      );
      await gamma.session.prompt(text);
      return contexts;
    };

    const first = await open(deployed, []);
    const before = await run(first, "Import the board deck", [toolUse(fauxToolCall("skill", { name: "import" })), fauxAssistantMessage("Importing.")]);
    expect(first.controller.state.activeSkills.find((skill) => skill.name === "import")?.sha256).toBe(deployed.manifest.skills["import"]?.sha256);
    const lead = JSON.stringify(before[0]?.messages[0]);
    let entries = entriesOf(first);
    pi.disposeNow(first);

    // To the reworded build: told, and the next request anchors the new text after the old.
    const events: ProtocolEvent[] = [];
    const moved = await open(reworded, events, entries);
    expect(events).toEqual([{ type: "build_changed", previousCacheKey: key, cacheKey: key, droppedSkills: [], clearedSteps: [], changedSkills: ["import"] }]);
    expect(moved.controller.state.activeSkills.find((skill) => skill.name === "import")?.sha256).toBe(reworded.manifest.skills["import"]?.sha256);
    const onMoved = await run(moved, "Carry on", [fauxAssistantMessage("Going on.")]);
    expect(JSON.stringify(onMoved[0]?.messages[0])).toBe(lead);
    const movedTexts = texts(onMoved[0] as TranscriptContext);
    const lastNew = movedTexts.findLastIndex((text) => text.includes("Present the deck to the board secretary first."));
    const lastOld = movedTexts.findLastIndex((text) => text.includes(JSON.stringify(OLD_STEP).slice(1, -1)));
    expect(lastNew).toBeGreaterThan(lastOld);
    expect(movedTexts[lastNew]).toContain("Restored session state");
    expect(movedTexts.join("\n")).toContain("These active skills changed in this version: import.");
    entries = entriesOf(moved);
    pi.disposeNow(moved);

    // Back on the first build: told again, and its text is the latest the model sees.
    const back: ProtocolEvent[] = [];
    const returned = await open(deployed, back, entries);
    expect(back).toEqual([{ type: "build_changed", previousCacheKey: key, cacheKey: key, droppedSkills: [], clearedSteps: [], changedSkills: ["import"] }]);
    const onReturn = await run(returned, "And again", [fauxAssistantMessage("Done.")]);
    expect(JSON.stringify(onReturn[0]?.messages[0])).toBe(lead);
    const returnTexts = texts(onReturn[0] as TranscriptContext);
    expect(returnTexts.findLastIndex((text) => text.includes(JSON.stringify(OLD_STEP).slice(1, -1)))).toBeGreaterThan(
      returnTexts.findLastIndex((text) => text.includes("Present the deck to the board secretary first.")),
    );
    pi.disposeNow(returned);

    // Opened again on the same build: nothing to tell.
    const again: ProtocolEvent[] = [];
    await open(deployed, again, entriesOf(returned));
    expect(again).toEqual([]);
  });

  it("on a low-level Agent reopened with its messages, the first turn carries the serving build's text in a fresh anchor", async () => {
    const statePath = join(await tempDir("redeploy-body-agent"), "state.json");
    const open = (artifacts: LoadedArtifacts, events: ProtocolEvent[], messages?: AgentMessage[]) =>
      pi.disposeAfterTest(
        createGammaAgent({
          artifacts,
          variant: "base",
          model: pi.faux().getModel(),
          store: new FileStateStore(statePath),
          executors: recordingExecutors(),
          onProtocolEvent: (event) => events.push(event),
          ...(messages === undefined ? {} : { messages }),
          ...NO_KNOWLEDGE_HINTS,
        }),
      );
    const first = open(deployed, []);
    pi.faux().setResponses([toolUse(fauxToolCall("skill", { name: "import" })), fauxAssistantMessage("Importing.")]);
    await first.agent.prompt("Import the board deck");
    const stored = JSON.parse(JSON.stringify(first.agent.state.messages)) as AgentMessage[];
    pi.disposeNow(first);

    // The host passes the transcript it kept and prompts with the turn's messages, as the guide's server does (no restoreAgentContext).
    const events: ProtocolEvent[] = [];
    const moved = open(reworded, events, stored);
    expect(events.map((event) => event.type === "build_changed" && event.changedSkills)).toEqual([["import"]]);
    const seen: SeenContext[] = [];
    pi.faux().setResponses([seeing(seen, fauxAssistantMessage("Going on."))]);
    await moved.agent.prompt(moved.controller.buildTurnMessages({ text: "Carry on" }));
    const sent = (seen[0]?.messages ?? []).map(textOf);
    const anchors = sent.filter((text) => text.startsWith("<session_state "));
    expect(anchors).toHaveLength(1);
    expect(anchors[0]).toContain("Present the deck to the board secretary first.");
    expect(anchors[0]).toContain("These active skills changed in this version: import.");
    expect(sent.findLastIndex((text) => text.includes("Present the deck to the board secretary first."))).toBeGreaterThan(sent.findLastIndex((text) => text.includes(OLD_STEP)));
  });
});
