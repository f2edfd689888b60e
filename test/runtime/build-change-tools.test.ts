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
import { createGammaSession, sessionManagerFromEntries } from "../../src/runtime/pi-adapter.js";
import { FileStateStore } from "../../src/runtime/state.js";
import { removeTempDirs, repoRoot } from "../build/helpers.js";
import { copyParts, tempDir } from "../helpers/temp-project.js";
import { artifacts as deployed } from "../injections/helpers/gamma.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, toolUse } from "./helpers/pi.js";
import { agentOnFileStore, fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";

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

/** A stored session opened on one Pi path, as the scenario drives it. */
interface OpenedOnPath {
  prompt(text: string): Promise<void>;
  /** What the next server is handed: the Pi messages, or the session entries. */
  carried(): unknown[];
  /** A simulated restart: disposed now, not again after the test. */
  close(): void;
}

const onAgentPath = async (artifacts: LoadedArtifacts, statePath: string, carried?: unknown[]): Promise<OpenedOnPath> => {
  const gamma = agentOnFileStore(pi, { artifacts, variant: "base", statePath, events: [], messages: carried as AgentMessage[] | undefined });
  return {
    prompt: (text) => gamma.agent.prompt(gamma.controller.buildTurnMessages({ text }) as AgentMessage[]),
    carried: () => gamma.agent.state.messages.slice(),
    close: () => pi.disposeNow(gamma),
  };
};

const onSessionPath = async (artifacts: LoadedArtifacts, statePath: string, carried?: unknown[]): Promise<OpenedOnPath> => {
  const setup = await fauxSessionSetup(pi.faux());
  const sessionManager = carried === undefined ? setup.sessionManager : await sessionManagerFromEntries(setup.cwd, carried);
  const gamma = pi.disposeAfterTest(
    await createGammaSession({ artifacts, variant: "base", store: new FileStateStore(statePath), executors: recordingExecutors(), ...setup, sessionManager, ...NO_KNOWLEDGE_HINTS }),
  );
  return {
    prompt: (text) => gamma.session.prompt(text),
    carried: () => [gamma.session.sessionManager.getHeader(), ...gamma.session.sessionManager.getEntries()],
    close: () => pi.disposeNow(gamma),
  };
};

describe("a session moved to another build declares that build's tools at its head", () => {
  it.each([
    ["on the Agent path: the moved session's requests share the cached part of a new session on the serving build, both ways", onAgentPath],
    ["on the AgentSession path: the same, with the session entries moved between servers", onSessionPath],
  ] as const)("%s", async (_title, open) => {
    expect(JSON.stringify(redeployed.tools.find((tool) => tool.name === "write"))).not.toBe(JSON.stringify(deployed.tools.find((tool) => tool.name === "write")));
    const statePath = join(await tempDir("redeploy-tools-state"), "state.json");
    const run = async (opened: OpenedOnPath, text: string) => {
      const contexts: TranscriptContext[] = [];
      pi.faux().setResponses(turn(contexts));
      await opened.prompt(text);
      expect(contexts).toHaveLength(2);
      return contexts;
    };
    const fresh = async (artifacts: LoadedArtifacts) => {
      const opened = await open(artifacts, join(await tempDir("redeploy-tools-fresh"), "state.json"));
      const contexts = await run(opened, "Import the board deck");
      opened.close();
      return cachedPart(contexts[0] as TranscriptContext);
    };
    const freshA = await fresh(deployed);
    const freshB = await fresh(redeployed);
    expect(freshB).not.toEqual(freshA);

    const first = await open(deployed, statePath);
    await run(first, "Import the board deck");
    let carried = first.carried();
    first.close();

    const onB = await open(redeployed, statePath, carried);
    for (const context of await run(onB, "Carry on")) expect(cachedPart(context)).toEqual(freshB);
    carried = onB.carried();
    onB.close();

    const back = await open(deployed, statePath, carried);
    for (const context of await run(back, "And again")) expect(cachedPart(context)).toEqual(freshA);
  });
});
