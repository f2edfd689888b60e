import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runEvals } from "../../src/evals/index.js";
import { canonicalJson } from "../../src/pipeline/emit/canonical-json.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { startWireServer, type WireServer } from "../wire/server.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { evalProject, repoRoot, withoutNetwork } from "./helpers/project.js";
// The same scripted model scripts/record-eval-cassettes.mjs records the shipped cassettes with.
// @ts-expect-error: a plain ES module without types
import { goodAgent } from "../../scripts/good-agent.mjs";

const artifacts = loadArtifacts({ distDir: join(repoRoot, "dist") });

describe("--record then --replay", () => {
  it("records through the scripted model, byte for byte the shipped cassettes, and replays to the same verdicts with no network", async () => {
    const root = evalProject({ scenarios: ["topic-only-deck", "edit-with-artifact-update"] });
    const recorded = await runEvals({ root, record: true, runs: 2, concurrency: 2, scriptedModel: goodAgent });
    expect(recorded.results?.passed).toBe(true);
    for (const scenario of ["topic-only-deck", "edit-with-artifact-update"]) {
      const folder = join(root, "evals", "cassettes", scenario);
      expect(readdirSync(folder).sort()).toEqual(["1.json", "2.json"]);
      for (const run of ["1.json", "2.json"]) expect(readFileSync(join(folder, run), "utf8")).toBe(readFileSync(join(repoRoot, "evals", "cassettes", scenario, run), "utf8"));
    }
    const replayed = await withoutNetwork(() => runEvals({ root, replay: true }));
    const verdicts = (results: typeof recorded.results) => results?.scenarios.map((scenario) => [scenario.name, scenario.expectations.map((expectation) => [expectation.id, expectation.passed])]);
    expect(verdicts(replayed.results)).toEqual(verdicts(recorded.results));
    expect(replayed.results).toMatchObject({ mode: "replay", model: "scripted/good-agent", runs: 2 });
  });

  it("routes the edit scenario's artifact_update with routeUpdate: steered in after the batch of the sixth tool call (the first read), before the re-read", async () => {
    const root = evalProject({ scenarios: ["edit-with-artifact-update"] });
    const seen: string[] = [];
    const watching = {
      name: "good-agent",
      respond: (call: { context: { messages: Array<{ role: string; content: unknown }> } }) => {
        seen.push(JSON.stringify(call.context.messages.at(-1)?.content ?? ""));
        return (goodAgent as { respond: (call: unknown) => unknown }).respond(call) as { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> };
      },
    };
    const { results } = await runEvals({ root, scriptedModel: watching });
    expect(results?.passed).toBe(true);
    const arrived = seen.findIndex((text) => text.includes("<artifact_update") && text.includes("A collaborator edited card 5"));
    // Call 4 is the first after the batch holding the sixth tool call (the first read of the deck).
    expect(arrived + 1).toBe(4);
  });
});

describe("runs in parallel with a bound", () => {
  it("keeps at most --concurrency runs in flight, and results in scenario and run order", async () => {
    const root = evalProject({ scenarios: ["blocking-question"] });
    let inFlight = 0;
    let most = 0;
    const slow = {
      name: "good-agent",
      respond: async (call: unknown) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        // Every other run gets its turn before this reply comes back.
        await new Promise((resolve) => setImmediate(resolve));
        inFlight -= 1;
        return (goodAgent as { respond: (call: unknown) => unknown }).respond(call) as { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> };
      },
    };
    const { results } = await runEvals({ root, scriptedModel: slow, runs: 5, concurrency: 2 });
    expect(most).toBe(2);
    expect(results?.scenarios[0]?.runResults.map((run) => [run.run, run.passed])).toEqual([1, 2, 3, 4, 5].map((run) => [run, true]));
  });
});

describe("--record through pi-ai's real OpenAI client", () => {
  let server: WireServer;
  const saved = process.env["OPENAI_API_KEY"];
  beforeEach(async () => {
    server = await startWireServer();
    process.env["OPENAI_API_KEY"] = "sk-eval-wire";
  });
  afterEach(async () => {
    await server.close();
    if (saved === undefined) delete process.env["OPENAI_API_KEY"];
    else process.env["OPENAI_API_KEY"] = saved;
  });

  it("records the provider's streamed replies as a cassette that replays offline to the same verdicts", async () => {
    const root = evalProject({ scenarios: ["blocking-question"] });
    server.script([
      { toolCalls: [{ name: "skill", arguments: { name: "deck-generation" } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "ls uploads/" } }] },
      {
        toolCalls: [
          {
            name: "todo",
            arguments: {
              tasks: [
                { id: "t1", title: "Understand", status: "complete", step: "deck-generation#1" },
                { id: "t2", title: "Plan", status: "complete", step: "deck-generation#2" },
                { id: "t3", title: "Ask for the notes", status: "blocked", note: "No notes in uploads/", step: "deck-generation#3" },
                { id: "t4", title: "Research", status: "in_progress", step: "deck-generation#4" },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ name: "message_user", arguments: { message: "I could not find your notes in uploads/. Could you upload them?", blockOnUser: true } }] },
    ]);
    const recorded = await runEvals({ root, model: "openai/gpt-5", baseUrl: `${server.url}/v1`, record: true });
    expect(recorded.results?.scenarios[0]?.runResults[0]).toMatchObject({ run: 1, passed: true, modelCalls: 4 });
    expect(recorded.results?.model).toBe("openai/gpt-5");
    // What reached the provider: pi-ai's real client with the key from the environment and the variant's exact bytes.
    expect(server.requests).toHaveLength(4);
    expect(server.requests.map((request) => [request.protocol, request.headers.authorization])).toEqual(Array(4).fill(["openai-responses", "Bearer sk-eval-wire"]));
    expect(JSON.stringify(server.requests[0]?.body)).toContain(JSON.stringify(artifacts.variants["base"]).slice(1, -1));
    const cassette = JSON.parse(readFileSync(join(root, "evals/cassettes/blocking-question/1.json"), "utf8")) as { model: string; calls: unknown[] };
    expect(cassette).toMatchObject({ format: "gamma-prompt/eval-cassette@1", model: "openai/gpt-5", scenario: "blocking-question", run: 1, cacheKey: artifacts.manifest.staticPrefix.cacheKey });
    expect(cassette.calls).toHaveLength(4);
    expect(readFileSync(join(root, "evals/cassettes/blocking-question/1.json"), "utf8")).toBe(canonicalJson(cassette));

    await server.close();
    server = await startWireServer();
    const replayed = await withoutNetwork(() => runEvals({ root, replay: true }));
    expect(server.requests).toHaveLength(0);
    expect(replayed.results).toMatchObject({ model: "openai/gpt-5", mode: "replay", passed: true });
  });
});

/** A provider endpoint on loopback that answers every request with this HTTP status and an error body. */
async function failingProvider(status: number): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests += 1;
    req.resume();
    req.on("end", () => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "the upstream model is overloaded", type: "server_error" } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests: () => requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A loopback port nothing listens on: connections are refused. */
async function closedPort(): Promise<string> {
  const provider = await failingProvider(500);
  await provider.close();
  return provider.url;
}

describe("a --record whose model call fails records nothing", () => {
  const saved = process.env["OPENAI_API_KEY"];
  beforeEach(() => {
    process.env["OPENAI_API_KEY"] = "sk-eval-wire";
  });
  afterEach(() => {
    if (saved === undefined) delete process.env["OPENAI_API_KEY"];
    else process.env["OPENAI_API_KEY"] = saved;
  });

  const cassettes = (root: string): Record<string, string> => {
    const folder = join(root, "evals/cassettes/blocking-question");
    return Object.fromEntries(readdirSync(folder).sort().map((name) => [name, readFileSync(join(folder, name), "utf8")]));
  };

  for (const [what, endpoint] of [
    ["answers 500", async () => failingProvider(500)],
    ["refuses the connection", async () => ({ url: await closedPort(), requests: () => 0, close: async () => {} })],
  ] as const) {
    it(`keeps the earlier cassettes byte for byte, exit 1 naming the error, when the provider ${what} (pi-ai's real client)`, async () => {
      const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
      const before = cassettes(root);
      expect(Object.keys(before)).toEqual(["1.json", "2.json", "3.json"]);
      const provider = await endpoint();
      let run;
      try {
        run = await runCliInProcessFrom(root, "eval", "--record", "--model", "openai/gpt-5", "--base-url", `${provider.url}/v1`, "evals/blocking-question.yaml");
      } finally {
        await provider.close();
      }
      // Nothing written, nothing removed, no staging folder left behind.
      expect(cassettes(root)).toEqual(before);
      expect(readdirSync(join(root, "evals/cassettes"))).toEqual(["blocking-question"]);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/\nnot recorded \(the earlier cassettes are kept as they were\):\n {2}blocking-question: run 1: model call 1 failed \(error\): .+\n/);
      expect(run.stdout).toContain("blocking-question                       0/1    0%  0%–79%           NOT RECORDED\n");
      expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("1 scenario not recorded");
      if (what === "answers 500") expect([run.stdout.includes("overloaded"), provider.requests() > 0]).toEqual([true, true]);
      // The kept cassettes still replay.
      const replay = await runCliInProcessFrom(root, "eval", "--replay", "evals/blocking-question.yaml");
      expect(replay.code).toBe(0);
    });
  }

  it("refuses to replay a cassette that recorded a failed call as the reply: stale, exit 1", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    const first = join(root, "evals/cassettes/blocking-question/1.json");
    const cassette = JSON.parse(readFileSync(first, "utf8")) as { calls: Array<{ context: string; reply: unknown }> };
    cassette.calls = [{ context: cassette.calls[0]?.context ?? "", reply: { content: [], errorMessage: "Connection error.", stopReason: "error" } }];
    writeFileSync(first, canonicalJson(cassette));
    const run = await runCliInProcessFrom(root, "eval", "--replay", "--threshold", "0", "evals/blocking-question.yaml");
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "  blocking-question run 1: stale cassette evals/cassettes/blocking-question/1.json: model call 1 is recorded as a failed call (error: Connection error.), not as the model's reply; re-record it with --record\n",
    );
    expect(run.stdout).not.toContain("passed (threshold");
  });
});
