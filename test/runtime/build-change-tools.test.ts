// A stored session moved to another build of the agent (a redeploy that
// changed a tool's declaration and removed a skill), and back: on both Pi
// paths, every model request it sends leads with the same system message as
// a new session on the serving build (the variant's bytes, tools.json's tools
// in order), and the tools it may call are that build's, in that order, so
// the cached prefix is shared with every new session on that build.
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { getCurrentTools, type TranscriptContext } from "@earendil-works/pi-ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { loadArtifacts, type LoadedArtifacts } from "../../src/runtime/artifacts.js";
import { createGammaAgent, createGammaSession, sessionManagerFromEntries } from "../../src/runtime/pi-adapter.js";
import { FileStateStore } from "../../src/runtime/state.js";
import { removeTempDirs, repoRoot } from "../build/helpers.js";
import { copyParts, tempDir } from "../helpers/temp-project.js";
import { artifacts as deployed } from "../injections/helpers/gamma.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, toolUse } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";

afterAll(removeTempDirs);

const pi = fauxPerTest();
/** The embedded default with `write` described differently and drive-files removed. */
let redeployed: LoadedArtifacts;

beforeAll(async () => {
  const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge"], join(await tempDir("redeploy-tools"), "project"));
  await rm(join(root, "skills/drive-files"), { recursive: true });
  const write = join(root, "schemas/tools/write.json");
  const schema = JSON.parse(await readFile(write, "utf8")) as { description: string };
  await writeFile(write, JSON.stringify({ ...schema, description: `${schema.description} Never write outside the workspace.` }, null, 2));
  const built = await build({ root, persistentCache: false });
  expect(built.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  redeployed = loadArtifacts({ distDir: join(root, "dist") });
}, 60_000);

/** What a request carries that a prefix cache keys on before the conversation: the leading message and the tools. */
function cachedPart(context: TranscriptContext) {
  const [head] = context.messages;
  expect(head?.role).toBe("system");
  const { timestamp: _timestamp, ...lead } = head as { timestamp: number };
  return { lead: JSON.stringify(lead), tools: JSON.stringify(getCurrentTools(context.messages)) };
}

/** Every request's context, through a faux step. */
function recording(contexts: TranscriptContext[], reply: ReturnType<typeof fauxAssistantMessage>) {
  return (context: TranscriptContext) => {
    contexts.push(JSON.parse(JSON.stringify(context)) as TranscriptContext);
    return reply;
  };
}

const turn = (contexts: TranscriptContext[]) => [
  recording(contexts, toolUse(fauxToolCall("skill", { name: "import" }))),
  recording(contexts, fauxAssistantMessage("Done.")),
];

describe("a session moved to another build declares that build's tools at its head", () => {
  it("on the Agent path: the moved session's requests share the cached part of a new session on the serving build, both ways", async () => {
    expect(JSON.stringify(redeployed.tools.find((tool) => tool.name === "write"))).not.toBe(JSON.stringify(deployed.tools.find((tool) => tool.name === "write")));
    const statePath = join(await tempDir("redeploy-tools-state"), "state.json");
    const open = (artifacts: LoadedArtifacts, path: string, messages?: AgentMessage[]) =>
      pi.disposeAfterTest(
        createGammaAgent({
          artifacts,
          variant: "base",
          model: pi.faux().getModel(),
          store: new FileStateStore(path),
          executors: recordingExecutors(),
          ...(messages === undefined ? {} : { messages }),
          ...NO_KNOWLEDGE_HINTS,
        }),
      );
    const run = async (gamma: ReturnType<typeof open>, text: string) => {
      const contexts: TranscriptContext[] = [];
      pi.faux().setResponses(turn(contexts));
      await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text }) as AgentMessage[]);
      expect(contexts).toHaveLength(2);
      return contexts;
    };
    const fresh = async (artifacts: LoadedArtifacts) => {
      const gamma = open(artifacts, join(await tempDir("redeploy-tools-fresh"), "state.json"));
      const contexts = await run(gamma, "Import the board deck");
      pi.disposeNow(gamma);
      return cachedPart(contexts[0] as TranscriptContext);
    };
    const freshA = await fresh(deployed);
    const freshB = await fresh(redeployed);
    expect(freshB).not.toEqual(freshA);

    const first = open(deployed, statePath);
    await run(first, "Import the board deck");
    let transcript = first.agent.state.messages.slice();
    pi.disposeNow(first);

    const onB = open(redeployed, statePath, transcript);
    for (const context of await run(onB, "Carry on")) expect(cachedPart(context)).toEqual(freshB);
    transcript = onB.agent.state.messages.slice();
    pi.disposeNow(onB);

    const back = open(deployed, statePath, transcript);
    for (const context of await run(back, "And again")) expect(cachedPart(context)).toEqual(freshA);
  });

  it("on the AgentSession path: the same, with the session entries moved between servers", async () => {
    const statePath = join(await tempDir("redeploy-tools-session"), "state.json");
    const open = async (artifacts: LoadedArtifacts, path: string, entries?: readonly unknown[]) => {
      const setup = await fauxSessionSetup(pi.faux());
      const sessionManager = entries === undefined ? setup.sessionManager : await sessionManagerFromEntries(setup.cwd, entries);
      return pi.disposeAfterTest(
        await createGammaSession({ artifacts, variant: "base", store: new FileStateStore(path), executors: recordingExecutors(), ...setup, sessionManager, ...NO_KNOWLEDGE_HINTS }),
      );
    };
    type Opened = Awaited<ReturnType<typeof open>>;
    const run = async (gamma: Opened, text: string) => {
      const contexts: TranscriptContext[] = [];
      pi.faux().setResponses(turn(contexts));
      await gamma.session.prompt(text);
      expect(contexts).toHaveLength(2);
      return contexts;
    };
    const entriesOf = (gamma: Opened) => [gamma.session.sessionManager.getHeader(), ...gamma.session.sessionManager.getEntries()];
    const fresh = async (artifacts: LoadedArtifacts) => {
      const gamma = await open(artifacts, join(await tempDir("redeploy-tools-session-fresh"), "state.json"));
      const contexts = await run(gamma, "Import the board deck");
      pi.disposeNow(gamma);
      return cachedPart(contexts[0] as TranscriptContext);
    };
    const freshA = await fresh(deployed);
    const freshB = await fresh(redeployed);
    expect(freshB).not.toEqual(freshA);

    const first = await open(deployed, statePath);
    await run(first, "Import the board deck");
    let entries = entriesOf(first);
    pi.disposeNow(first);

    const onB = await open(redeployed, statePath, entries);
    for (const context of await run(onB, "Carry on")) expect(cachedPart(context)).toEqual(freshB);
    entries = entriesOf(onB);
    pi.disposeNow(onB);

    const back = await open(deployed, statePath, entries);
    for (const context of await run(back, "And again")) expect(cachedPart(context)).toEqual(freshA);
  });
});
