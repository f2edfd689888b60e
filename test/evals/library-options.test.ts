/**
 * `runEvals` called from code names its own options in a usage error
 * (`model`, `replay: true`, `runs`, ...); the command line, which calls it
 * too, keeps naming its flags (test/evals/cli.test.ts).
 */
import { describe, expect, it } from "vitest";
import { EvalUsageError, runEvals } from "../../src/index.js";

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
    expect(await usageError(runEvals({ root, model: "openai/gpt-5", baseUrl: "ftp://x" }))).toBe('Unexpected baseUrl "ftp://x", expected an http:// or https:// URL (e.g. http://127.0.0.1:8080/v1)');
    expect(await usageError(runEvals({ root, model: "openai/gpt-5", runs: 0 }))).toBe("Unexpected runs 0, expected a whole number of at least 1");
    expect(await usageError(runEvals({ root, model: "openai/gpt-5", concurrency: 0 }))).toBe("Unexpected concurrency 0, expected a whole number of at least 1");
    expect(await usageError(runEvals({ root, model: "openai/gpt-5", threshold: 2 }))).toBe("Unexpected threshold 2, expected a share from 0 to 1");
  });
});
