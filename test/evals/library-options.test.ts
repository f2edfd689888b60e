/**
 * `runEvals` called from code names its own options in a usage error
 * (`model`, `replay: true`, `runs`, ...) and in what it says about the
 * model and the cassettes; the command line, which calls it too, keeps
 * naming its flags (here and in test/evals/cli.test.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EvalUsageError, formatSummary, runEvals, type EvalResults } from "../../src/index.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { evalProject } from "./helpers/project.js";

async function usageError(run: Promise<unknown>): Promise<string> {
  const error = await run.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EvalUsageError);
  return (error as Error).message;
}

describe("runEvals, called as a library", () => {
  const root = ".";

  it("names the options a library caller passes, not the command line's flags", async () => {
    expect(await usageError(runEvals({ root }))).toBe(
      "Unexpected evaluation without a model, expected model (provider/id, e.g. openai/gpt-5) or scriptedModel, or replay: true to run the recorded cassettes",
    );
    expect(await usageError(runEvals({ root, replay: true, record: true }))).toBe("Unexpected record: true with replay: true, expected one of them: a replay answers from the cassettes a recording writes");
    expect(await usageError(runEvals({ root, replay: true, model: "openai/gpt-5" }))).toBe("Unexpected model with replay: true, expected one of them: a replay answers from the cassettes, as the model they name");
    expect(await usageError(runEvals({ root, replay: true, scriptedModel: { name: "scripted", respond: () => ({ text: "x" }) } }))).toBe(
      "Unexpected scriptedModel with replay: true, expected one of them: a replay answers from the cassettes, as the model they name",
    );
    expect(await usageError(runEvals({ root, model: "openai/gpt-5", baseUrl: "ftp://x" }))).toBe('Unexpected baseUrl "ftp://x", expected an http:// or https:// URL (e.g. http://127.0.0.1:8080/v1)');
    expect(await usageError(runEvals({ root, model: "openai/gpt-5", runs: 0 }))).toBe("Unexpected runs 0, expected a whole number of at least 1");
    expect(await usageError(runEvals({ root, model: "openai/gpt-5", concurrency: 0 }))).toBe("Unexpected concurrency 0, expected a whole number of at least 1");
    expect(await usageError(runEvals({ root, model: "openai/gpt-5", threshold: 2 }))).toBe("Unexpected threshold 2, expected a share from 0 to 1");
  });

  describe("about the model and the cassettes", () => {
    const saved = { ...process.env };
    beforeEach(() => {
      delete process.env["OPENAI_API_KEY"];
    });
    afterEach(() => {
      process.env = { ...saved };
    });

    it("names model and replay: true, as the command line names --model and --replay", async () => {
      const project = evalProject({ scenarios: ["blocking-question"] });
      expect(await usageError(runEvals({ root: project, model: "gpt-5" }))).toBe('Unexpected model "gpt-5", expected provider/id, e.g. openai/gpt-5 or anthropic/claude-sonnet-4-5');
      expect(await usageError(runEvals({ root: project, model: "openai/gpt-5" }))).toBe(
        'Unexpected missing API key for provider "openai", expected it in the environment variable OPENAI_API_KEY (pi-ai reads keys from the environment); without a key, run the recorded cassettes with replay: true',
      );
      const format = await runCliInProcessFrom(project, "eval", "--model", "gpt-5");
      expect([format.code, format.stderr]).toEqual([2, 'gamma-prompt eval: Unexpected --model "gpt-5", expected provider/id, e.g. openai/gpt-5 or anthropic/claude-sonnet-4-5\n']);
    });

    it("says to re-record a stale cassette with record: true, in the run and in formatSummary's verdict; the command line says --record", async () => {
      const project = evalProject({ scenarios: ["blocking-question"], cassettes: true });
      const file = join(project, "evals", "blocking-question.yaml");
      writeFileSync(file, readFileSync(file, "utf8").replace("for Friday's board meeting", "for Monday's board meeting"));
      const { results } = await runEvals({ root: project, replay: true, runs: 1 });
      expect(results?.scenarios[0]?.runResults[0]?.error).toMatch(/; re-record it with record: true$/);
      expect(formatSummary(results as EvalResults).trimEnd().split("\n").at(-1)).toBe("1 stale cassette not evaluated (re-record with record: true)");
      const run = await runCliInProcessFrom(project, "eval", "--replay", "--runs", "1");
      expect(run.stdout).toMatch(/; re-record it with --record\n/);
      expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("1 stale cassette not evaluated (re-record with --record)");
    });
  });
});
