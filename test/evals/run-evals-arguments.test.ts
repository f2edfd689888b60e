/**
 * `runEvals` called from plain JavaScript with what its options do not allow:
 * an EvalUsageError (as every option it cannot run with) naming the option
 * and showing the value as it was given, a string quoted, before any run.
 */
import { describe, expect, it } from "vitest";
import { EvalUsageError, runEvals } from "../../src/index.js";

/** A value a plain JavaScript caller passes, whatever the types say. */
const js = (value: unknown): never => value as never;

async function usageError(run: () => Promise<unknown>): Promise<string> {
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EvalUsageError);
  return (error as Error).message;
}

describe("runEvals, given options of the wrong type", () => {
  it.each([
    ["no options", () => runEvals(js(undefined)), 'Unexpected runEvals options undefined, expected an object such as { root: ".", replay: true }'],
    ["a folder alone", () => runEvals(js(".")), 'Unexpected runEvals options ".", expected an object such as { root: ".", replay: true }'],
    ["a root that is no string", () => runEvals(js({ root: 5, replay: true })), "Unexpected root 5, expected a string"],
    ["a distDir that is no string", () => runEvals(js({ root: ".", replay: true, distDir: 5 })), "Unexpected distDir 5, expected a string"],
    ["a model that is no string", () => runEvals(js({ root: ".", model: 5 })), "Unexpected model 5, expected a string"],
    ["scenarios as a string", () => runEvals(js({ root: ".", replay: true, scenarios: "evals/a.yaml" })), 'Unexpected scenarios "evals/a.yaml", expected an array of scenario files'],
    ["runs as a string", () => runEvals(js({ root: ".", replay: true, runs: "2" })), 'Unexpected runs "2", expected a whole number of at least 1'],
    ["concurrency as a string", () => runEvals(js({ root: ".", replay: true, concurrency: "4" })), 'Unexpected concurrency "4", expected a whole number of at least 1'],
    ["threshold as a string", () => runEvals(js({ root: ".", replay: true, threshold: "0.5" })), 'Unexpected threshold "0.5", expected a share from 0 to 1'],
    // Checked before the first run too: found wrong after the runs, they would waste them, and a recording's cassettes.
    ["a baseline given as its file's path", () => runEvals(js({ root: ".", replay: true, baseline: "base.json" })), 'Unexpected baseline "base.json", expected "format": "gamma-prompt/eval-results@1" (an earlier runEvals results document, parsed)'],
    ["an onProgress that is no function", () => runEvals(js({ root: ".", replay: true, onProgress: 5 })), "Unexpected onProgress 5, expected a function that takes (done, total)"],
    ["a scriptedModel without respond", () => runEvals(js({ root: ".", scriptedModel: { name: "x" } })), "Unexpected scriptedModel an object, expected { name, respond(call) } with a name and a respond function"],
    ["a scriptedModel beside a model", () => runEvals(js({ root: ".", model: "anthropic/claude-haiku-4-5", scriptedModel: { name: "x", respond: () => ({ text: "" }) } })), "Unexpected model with scriptedModel, expected one of them: the scripted model answers every call"],
  ])("%s: names the option", async (_name, run, message) => {
    expect(await usageError(run)).toBe(message);
  });
});
