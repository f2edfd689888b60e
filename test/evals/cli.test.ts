import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getEnvApiKey, getProviders } from "@earendil-works/pi-ai/compat";
import { closestIds, keyVariable } from "../../src/evals/models.js";
import { progressBar } from "../../src/cli/commands/eval.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { spawnCli } from "../build/helpers.js";
import { evalProject, repoRoot } from "./helpers/project.js";

/** Providers pi-ai authenticates another way than one environment variable (OAuth, cloud credentials). */
const NOT_BY_ONE_VARIABLE = ["amazon-bedrock", "openai-codex"];

describe("gamma-prompt eval: the model and its key", () => {
  const saved = { ...process.env };
  beforeEach(() => {
    for (const provider of getProviders()) delete process.env[keyVariable(provider)];
    delete process.env["ANTHROPIC_OAUTH_TOKEN"];
  });
  afterEach(() => {
    process.env = { ...saved };
  });

  it("names the environment variable pi-ai reads for every provider", () => {
    for (const provider of getProviders().filter((name) => !NOT_BY_ONE_VARIABLE.includes(name))) {
      process.env[keyVariable(provider)] = `key-for-${provider}`;
      expect(getEnvApiKey(provider), provider).toBe(`key-for-${provider}`);
      delete process.env[keyVariable(provider)];
    }
  });

  it("stops with exit 2 on a missing key, naming the variable, before any run and without a stack trace (a real process)", () => {
    const root = evalProject({ scenarios: ["blocking-question"] });
    const env = { ...process.env };
    delete env["OPENAI_API_KEY"];
    const run = spawnCli(["eval", "--model", "openai/gpt-5", "--record"], { cwd: root, env });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      'gamma-prompt eval: Unexpected missing API key for provider "openai", expected it in the environment variable OPENAI_API_KEY (pi-ai reads keys from the environment); without a key, run the recorded cassettes with --replay\n',
    );
    expect(existsSync(join(root, "evals", "cassettes"))).toBe(false);
  });

  it("says to build first when dist/ is missing, as cost and report do", async () => {
    const root = evalProject({ scenarios: ["blocking-question"] });
    rmSync(join(root, "dist"), { recursive: true });
    const run = await runCliInProcessFrom(root, "eval", "--replay");
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe("gamma-prompt eval: no build at dist/: run `gamma-prompt build` first\n");
  });

  it("names an unknown provider or model and how to list the valid ones", async () => {
    const root = evalProject({ scenarios: ["blocking-question"] });
    const provider = await runCliInProcessFrom(root, "eval", "--model", "openia/gpt-5");
    expect(provider.code).toBe(2);
    expect(provider.stderr).toMatch(/^gamma-prompt eval: Unexpected provider "openia", expected one of pi-ai's providers: .*\banthropic\b.*\bopenai\b.* \(list a provider's models with gamma-prompt eval --list-models PROVIDER\)\n$/);
    const model = await runCliInProcessFrom(root, "eval", "--model", "openai/gpt-55");
    expect(model.code).toBe(2);
    expect(model.stderr).toMatch(/^gamma-prompt eval: Unexpected model "gpt-55" for provider "openai", expected one of pi-ai's \d+ models for it \(close: .*gpt-5\b.*\); list them with gamma-prompt eval --list-models openai\n$/);
    const listed = await runCliInProcessFrom(root, "eval", "--list-models", "openai");
    expect(listed.code).toBe(0);
    expect(listed.stdout.split("\n")).toContain("openai/gpt-5");
  });

  it("names the closest ids for an ordinary typo of a model id: another separator, a letter missing, a dash missing", async () => {
    const root = evalProject({ scenarios: ["blocking-question"] });
    for (const [spec, first] of [
      ["anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"],
      ["anthropic/claude-sonet-4-5", "claude-sonnet-4-5"],
      ["anthropic/sonnet-4-5", "claude-sonnet-4-5"],
      ["openai/gpt5", "gpt-5"],
    ] as const) {
      const model = await runCliInProcessFrom(root, "eval", "--model", spec);
      expect(model.code, spec).toBe(2);
      expect(model.stderr, spec).toMatch(new RegExp(`expected one of pi-ai's \\d+ models for it \\(close: ${first.replace(/[.]/g, "\\.")}[,)]`));
    }
    expect(closestIds("gpt-5-mni", ["gpt-4o", "gpt-5", "gpt-5-mini", "gpt-5-nano"])).toEqual(["gpt-5-mini", "gpt-5"]);
    expect(closestIds("llama", ["gpt-4o", "gpt-5"])).toEqual([]);
  });

  it("refuses an evaluation without a model, and --record with --replay, with exit 2", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    const none = await runCliInProcessFrom(root, "eval");
    expect([none.code, none.stderr]).toEqual([2, "gamma-prompt eval: Unexpected evaluation without a model, expected --model provider/id (e.g. openai/gpt-5), or --replay to run the recorded cassettes\n"]);
    const both = await runCliInProcessFrom(root, "eval", "--replay", "--record");
    expect(both.code).toBe(2);
    const runs = await runCliInProcessFrom(root, "eval", "--replay", "--runs", "0");
    expect([runs.code, runs.stderr]).toEqual([2, "gamma-prompt eval: Unexpected --runs 0, expected a whole number of at least 1\n"]);
    // Each value as typed, not the number it failed to become.
    for (const [flag, value, expected] of [
      ["--runs", "1.5", "a whole number of at least 1"],
      ["--concurrency", "x", "a whole number of at least 1"],
      ["--threshold", "abc", "a share from 0 to 1"],
      // Number() takes these; a share is written in decimals.
      ["--threshold", "0x1", "a share from 0 to 1"],
      ["--threshold", "1e0", "a share from 0 to 1"],
    ] as const) {
      const refused = await runCliInProcessFrom(root, "eval", "--replay", flag, value);
      expect([refused.code, refused.stderr]).toEqual([2, `gamma-prompt eval: Unexpected ${flag} ${value}, expected ${expected}\n`]);
    }
  });

  it("runs a scenario file named twice once, never reporting it as its own duplicate", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    const twice = await runCliInProcessFrom(root, "eval", "--replay", "--format", "json", "evals/blocking-question.yaml", "./evals/blocking-question.yaml");
    expect(twice.code).toBe(0);
    expect((JSON.parse(twice.stdout) as { scenarios: unknown[] }).scenarios).toHaveLength(1);
  });

  it("refuses more than 10000 --runs with one usage line, never an internal error", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    process.env["OPENAI_API_KEY"] = "sk-x";
    for (const value of ["10001", "4294967296", "99999999999999999999"]) {
      for (const mode of [["--replay"], ["--model", "openai/gpt-5"]]) {
        const refused = await runCliInProcessFrom(root, "eval", ...mode, "--runs", value);
        expect([refused.code, refused.stdout, refused.stderr]).toEqual([2, "", `gamma-prompt eval: Unexpected --runs ${value}, expected at most 10000 runs per scenario\n`]);
      }
    }
  });

  it("refuses a --base-url that is no http(s) URL, and --base-url with --replay, before any run (exit 2)", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    process.env["OPENAI_API_KEY"] = "sk-x";
    for (const value of ["notaurl", "ftp://x", "file:///tmp/x", "127.0.0.1:8080/v1", "http://"]) {
      const refused = await runCliInProcessFrom(root, "eval", "--model", "openai/gpt-5", "--base-url", value);
      expect([refused.code, refused.stdout, refused.stderr]).toEqual([2, "", `gamma-prompt eval: Unexpected --base-url ${JSON.stringify(value)}, expected an http:// or https:// URL (e.g. http://127.0.0.1:8080/v1)\n`]);
    }
    const replay = await runCliInProcessFrom(root, "eval", "--replay", "--base-url", "http://127.0.0.1:8080/v1");
    expect([replay.code, replay.stdout, replay.stderr]).toEqual([2, "", "gamma-prompt eval: Unexpected --base-url with --replay, expected one of them: a replay calls no endpoint, it answers from the cassettes\n"]);
  });

  it("prints --list-models as one JSON array of names with --format json", async () => {
    const root = evalProject({ scenarios: ["blocking-question"] });
    const text = await runCliInProcessFrom(root, "eval", "--list-models", "openai");
    const json = await runCliInProcessFrom(root, "eval", "--list-models", "openai", "--format", "json");
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(text.stdout.trimEnd().split("\n"));
    expect(JSON.parse(json.stdout)).toContain("openai/gpt-5");
    const providers = await runCliInProcessFrom(root, "eval", "--list-models", "--format", "json");
    expect(JSON.parse(providers.stdout)).toContain("openai");
  });
});

describe("gamma-prompt eval: scenarios and output", () => {
  it("prints scenario problems with file:line:column and rule ids, exit 1, and runs nothing", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    writeFileSync(join(root, "evals", "broken.yaml"), "name: broken\nvariant: base\nturns: [Make a deck.]\nexpect:\n  - id: budget\n    maxModelCalls: 0\n");
    const { code, stdout } = await runCliInProcessFrom(root, "eval", "--replay");
    expect(code).toBe(1);
    expect(stdout).toContain("evals/broken.yaml\n  6:20  error  Unexpected value at `expect[0].maxModelCalls`: it must be >= 1  eval/invalid-scenario\n");
  });

  it("refuses an evaluation without scenarios (exit 2), saying where they go, where the guide explains them and how to record", async () => {
    const root = evalProject({ scenarios: [] });
    const expected = (folder: string) =>
      `gamma-prompt eval: Unexpected evaluation without scenarios: no *.yaml in ${folder}, expected a scenario file there for each case to measure (how to write one: ${relative(root, join(repoRoot, "docs/guide/evaluations-and-audits.md"))}#scenarios), then its cassettes recorded with gamma-prompt eval --record --model provider/id; --replay replays them\n`;
    const empty = await runCliInProcessFrom(root, "eval", "--replay");
    expect([empty.code, empty.stdout, empty.stderr]).toEqual([2, "", expected("evals/")]);
    rmSync(join(root, "evals"), { recursive: true });
    const none = await runCliInProcessFrom(root, "eval", "--replay");
    expect([none.code, none.stdout, none.stderr]).toEqual([2, "", expected("evals/")]);
    const help = await runCliInProcessFrom(root, "eval", "--help");
    expect(help.stdout.replace(/\s+/g, " ")).toContain("2 usage: flags, an unknown model, a missing key, no scenarios (no evals/*.yaml and none named), missing cassettes");
  });

  it.skipIf(!existsSync("/proc/version"))("refuses before the first run an --output in a folder no file can be written to (exit 2), though a file is there", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    const { code, stdout, stderr } = await runCliInProcessFrom(root, "eval", "--replay", "--output", "/proc/version");
    expect([code, stdout]).toEqual([2, ""]);
    expect(stderr).toMatch(/^gamma-prompt eval: cannot write the results to \/proc\/version: .+ \((EACCES|ENOENT|EROFS|EPERM)\)\n$/);
  });

  it("writes no progress bar when stderr is not a terminal, and redraws one in place when it is", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    const { code, stderr } = await runCliInProcessFrom(root, "eval", "--replay");
    expect([code, stderr]).toEqual([0, ""]);
    let written = "";
    const bar = progressBar({ write: (chunk: string) => ((written += chunk), true) } as unknown as NodeJS.WritableStream);
    bar.update(1, 4);
    bar.update(4, 4);
    bar.clear();
    expect(written).toBe("\r\u001B[2Keval [######------------------] 1/4 runs\r\u001B[2Keval [########################] 4/4 runs\r\u001B[2K");
  });
});
