import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runEvals } from "../../src/evals/index.js";
import type { EvalResults } from "../../src/evals/results.js";
import type { ScriptedModel } from "../../src/evals/index.js";
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

describe("a run stopped at maxModelCallsPerRun", () => {
  it("counts the model calls that went out: the same number as the cassette, the replay and the error message", async () => {
    const root = evalProject({ scenarios: ["blocking-question"] });
    writeFileSync(
      join(root, "evals", "looping.yaml"),
      "name: looping\nvariant: base\nmaxModelCallsPerRun: 3\nturns: [Make a deck about tide pools.]\nexpect:\n  - id: budget\n    maxModelCalls: 3\n",
    );
    let calls = 0;
    const looping = {
      name: "looping-agent",
      respond: () => {
        calls += 1;
        return { toolCalls: [{ name: "bash", arguments: { command: `ls uploads/ # ${calls}` } }] };
      },
    };
    const recorded = await runEvals({ root, record: true, scriptedModel: looping, scenarios: [join(root, "evals", "looping.yaml")] });
    const run = recorded.results?.scenarios[0]?.runResults[0];
    expect(run).toMatchObject({ run: 1, modelCalls: 3, error: "stopped after 3 model calls (the scenario's maxModelCallsPerRun)" });
    expect(calls).toBe(3);
    const cassette = JSON.parse(readFileSync(join(root, "evals/cassettes/looping/1.json"), "utf8")) as { calls: unknown[] };
    expect(cassette.calls).toHaveLength(3);
    const replayed = await runEvals({ root, replay: true, scenarios: [join(root, "evals", "looping.yaml")] });
    expect(replayed.results?.scenarios[0]?.runResults[0]).toMatchObject({ modelCalls: 3, error: "stopped after 3 model calls (the scenario's maxModelCallsPerRun)" });
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

/** Sets OPENAI_API_KEY for each test of the suite that calls it (pi-ai's client wants one), and puts the old value back. */
function useEvalApiKey(): void {
  const saved = process.env["OPENAI_API_KEY"];
  beforeEach(() => {
    process.env["OPENAI_API_KEY"] = "sk-eval-wire";
  });
  afterEach(() => {
    if (saved === undefined) delete process.env["OPENAI_API_KEY"];
    else process.env["OPENAI_API_KEY"] = saved;
  });
}

/** A loopback port nothing listens on: connections are refused. */
async function closedPort(): Promise<string> {
  const provider = await failingProvider(500);
  await provider.close();
  return provider.url;
}

describe("a --record whose model call fails records nothing", () => {
  useEvalApiKey();

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
      // The run got no reply: not evaluated, counted in no rate.
      expect(run.stdout).toContain("blocking-question                       0/0     —  —                NOT RECORDED\n");
      expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("1 scenario not recorded, 1 run not evaluated (no reply from the model)");
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

describe("a live run whose model call gets no reply is not evaluated (pi-ai's real client)", () => {
  useEvalApiKey();

  for (const [what, endpoint] of [
    ["answers 500", async () => failingProvider(500)],
    ["refuses the connection", async () => ({ url: await closedPort(), requests: () => 0, close: async () => {} })],
  ] as const) {
    it(`counts it in no rate and exits 1 at any threshold when the provider ${what}`, async () => {
      const root = evalProject({ scenarios: ["blocking-question"] });
      const provider = await endpoint();
      let json;
      let stylish;
      try {
        const flags = ["eval", "--model", "openai/gpt-5", "--base-url", `${provider.url}/v1`, "--runs", "2", "--concurrency", "1", "--threshold", "0", "evals/blocking-question.yaml"];
        json = await runCliInProcessFrom(root, ...flags, "--format", "json");
        stylish = await runCliInProcessFrom(root, ...flags);
      } finally {
        await provider.close();
      }
      expect(json.code).toBe(1);
      const results = JSON.parse(json.stdout) as EvalResults;
      expect(results).toMatchObject({ mode: "live", passed: false, unanswered: 2 });
      expect(results.scenarios[0]).toMatchObject({ passed: 0, runs: 0, pass: false, unanswered: 2 });
      expect(results.scenarios[0]?.expectations.every((expectation) => expectation.runs === 0)).toBe(true);
      for (const run of results.scenarios[0]?.runResults ?? []) {
        expect(run).toMatchObject({ passed: false, unanswered: true, failures: [] });
        expect(run.error).toMatch(/^model call 1 failed \(error\): .+/);
      }
      expect(stylish.code).toBe(1);
      expect(stylish.stdout).toContain("blocking-question                       0/0     —  —                NOT EVALUATED (2 runs without a model reply)\n");
      expect(stylish.stdout).toMatch(/\nnot evaluated \(no reply from the model; counted in no rate\):\n {2}blocking-question run 1: model call 1 failed \(error\): .+\n {2}blocking-question run 2: model call 1 failed \(error\): .+\n/);
      expect(stylish.stdout).not.toContain("\nfailures:");
      expect(stylish.stdout.trimEnd().split("\n").at(-1)).toBe("2 runs not evaluated (no reply from the model)");
    });
  }

  it("reports no regression against a baseline for runs that got no reply", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    const replayed = await runCliInProcessFrom(root, "eval", "--replay", "--output", "baseline.json", "evals/blocking-question.yaml");
    expect(replayed.code).toBe(0);
    const port = await closedPort();
    const run = await runCliInProcessFrom(root, "eval", "--model", "openai/gpt-5", "--base-url", `${port}/v1`, "--runs", "3", "--threshold", "0", "--baseline", "baseline.json", "--format", "json", "evals/blocking-question.yaml");
    expect(run.code).toBe(1);
    const results = JSON.parse(run.stdout) as EvalResults;
    expect(results.baseline?.regressions).toEqual([]);
    expect(results).toMatchObject({ passed: false, unanswered: 3 });
  });

  it("rates the runs that got replies and sets apart the one that did not", async () => {
    const root = evalProject({ scenarios: ["blocking-question"] });
    const wire = await startWireServer();
    // Every call answers with text only, except the first, which the provider refuses (400: not retried).
    let requests = 0;
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        requests += 1;
        if (requests === 1) {
          res.writeHead(400, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: "the request was refused", type: "invalid_request_error" } }));
          return;
        }
        void fetch(`${wire.url}${req.url ?? ""}`, { method: "POST", headers: { "content-type": "application/json" }, body: Buffer.concat(chunks) }).then(async (answer) => {
          res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/event-stream" });
          res.end(Buffer.from(await answer.arrayBuffer()));
        });
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const { port } = proxy.address() as AddressInfo;
    let outcome;
    try {
      outcome = await runEvals({ root, model: "openai/gpt-5", baseUrl: `http://127.0.0.1:${port}/v1`, runs: 3, concurrency: 1, threshold: 0 });
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await wire.close();
    }
    const scenario = outcome.results?.scenarios[0];
    expect(scenario?.runResults.map((run) => [run.run, run.unanswered === true])).toEqual([
      [1, true],
      [2, false],
      [3, false],
    ]);
    // Runs 2 and 3 got a reply (text, no tool call): evaluated, and failing.
    expect(scenario).toMatchObject({ runs: 2, passed: 0, unanswered: 1, pass: false });
    expect(outcome.results).toMatchObject({ passed: false, unanswered: 1 });
  });
});

describe("a model that declines (a refusal, a content filter) answered: its run is evaluated, and fails", () => {
  useEvalApiKey();

  it("live and recorded: the run counts in the rate as failed, and its cassette replays to the same verdict", async () => {
    const root = evalProject({ scenarios: ["blocking-question"] });
    const wire = await startWireServer();
    try {
      wire.script([{ text: "I can't help with that.", refused: true }]);
      const live = await runEvals({ root, model: "openai/gpt-5", baseUrl: `${wire.url}/v1` });
      expect(live.results?.scenarios[0]).toMatchObject({ runs: 1, passed: 0, pass: false });
      expect(live.results?.scenarios[0]?.runResults[0]?.unanswered).toBeUndefined();
      expect(live.results?.scenarios[0]?.runResults[0]?.error).toBe("Response incomplete: content_filter");
      wire.script([{ text: "I can't help with that.", refused: true }]);
      const recorded = await runEvals({ root, model: "openai/gpt-5", baseUrl: `${wire.url}/v1`, record: true });
      expect(recorded.results?.scenarios[0]).toMatchObject({ runs: 1, passed: 0 });
    } finally {
      await wire.close();
    }
    const cassette = JSON.parse(readFileSync(join(root, "evals/cassettes/blocking-question/1.json"), "utf8")) as { calls: Array<{ reply: Record<string, unknown> }> };
    expect(cassette.calls[0]?.reply).toMatchObject({ stopReason: "error", rawStopReason: "incomplete.content_filter" });
    const replayed = await withoutNetwork(() => runEvals({ root, replay: true }));
    expect(replayed.results?.scenarios[0]).toMatchObject({ runs: 1, passed: 0, pass: false });
  });
});

describe("a --record whose cassettes cannot be written", () => {
  it("is refused before the first model call (exit 2), naming the folder; a folder gone bad during the runs keeps the results and the old cassettes", async () => {
    const root = evalProject({ scenarios: ["topic-only-deck"] });
    // A file where the cassettes folder belongs: nothing can be written under it, whoever runs this.
    writeFileSync(join(root, "evals", "cassettes"), "not a folder\n");
    let calls = 0;
    const counting = {
      name: "good-agent",
      respond: (call: unknown) => {
        calls += 1;
        return (goodAgent as ScriptedModel).respond(call as Parameters<ScriptedModel["respond"]>[0]);
      },
    };
    await expect(runEvals({ root, record: true, scriptedModel: counting })).rejects.toThrow(
      /^Unexpected cassettes folder \S*evals\/cassettes\/topic-only-deck\/ that cannot be written \(EEXIST\), expected a folder this user can write before any model call is made$/,
    );
    expect(calls).toBe(0);
    expect(readFileSync(join(root, "evals", "cassettes"), "utf8")).toBe("not a folder\n");

    // The folder turns bad while the runs go on: the results are still given, the scenario not recorded.
    const later = evalProject({ scenarios: ["topic-only-deck"] });
    const spoiling = {
      name: "good-agent",
      respond: (call: unknown) => {
        const folder = join(later, "evals", "cassettes");
        if (statSync(folder, { throwIfNoEntry: false })?.isDirectory() !== false) {
          rmSync(folder, { recursive: true, force: true });
          writeFileSync(folder, "not a folder\n");
        }
        return (goodAgent as ScriptedModel).respond(call as Parameters<ScriptedModel["respond"]>[0]);
      },
    };
    const { results } = await runEvals({ root: later, record: true, scriptedModel: spoiling });
    expect(results?.passed).toBe(false);
    expect(results?.scenarios[0]?.notRecorded).toMatch(/^its cassettes could not be written to \S*evals\/cassettes\/topic-only-deck\/ \(E[A-Z]+\)$/);
    expect(results?.scenarios[0]?.runResults.length).toBe(1);
  });
});

describe("a --replay whose folders cannot be read", () => {
  it("says so with the folder's error (exit 2), never that nothing was recorded or written", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    const folder = join(root, "evals/cassettes/blocking-question");
    rmSync(folder, { recursive: true });
    // Not a folder where the scenario's cassettes belong (as unlistable as one without read permission).
    writeFileSync(folder, "");
    const replay = await runCliInProcessFrom(root, "eval", "--replay", "evals/blocking-question.yaml");
    expect(replay.code).toBe(2);
    expect(replay.stderr).toBe("gamma-prompt eval: Unexpected cassettes folder evals/cassettes/blocking-question/ that cannot be read (ENOTDIR), expected a folder of cassettes this user can read\n");

    const noFolder = evalProject({ scenarios: [] });
    rmSync(join(noFolder, "evals"), { recursive: true, force: true });
    writeFileSync(join(noFolder, "evals"), "");
    const listed = await runCliInProcessFrom(noFolder, "eval", "--replay");
    expect(listed.code).toBe(2);
    expect(listed.stderr).toBe("gamma-prompt eval: Unexpected scenarios folder evals/ that cannot be read (ENOTDIR), expected a folder of *.yaml scenarios this user can read\n");
  });
});
