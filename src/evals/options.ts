/**
 * The checks of `runEvals`' options, in a module of their own that loads no
 * Pi package: a bad option is said as such (EvalUsageError naming it) before
 * the engine, which needs Pi, is loaded, so a project without Pi still
 * learns what is wrong with its call.
 */
import { shownValue } from "../protocol/arguments.js";
import { OPTION_NAMES, type OptionNames, type OptionSpelling } from "./option-names.js";
import { resultsProblem, type EvalMode } from "./results.js";
import { EvalUsageError } from "./usage-error.js";

export const DEFAULT_CONCURRENCY = 4;
/** The most runs per scenario: more says nothing an interval at this size does not, and every run is a model bill. */
export const MAX_RUNS = 10_000;

/** What the checks read of runEvals' options (its EvalOptions, as a plain JavaScript caller may pass them). */
export interface UncheckedEvalOptions {
  root?: unknown;
  distDir?: unknown;
  model?: unknown;
  baseUrl?: unknown;
  scenarios?: unknown;
  replay?: unknown;
  record?: unknown;
  scriptedModel?: unknown;
  baseline?: unknown;
  onProgress?: unknown;
  runs?: unknown;
  concurrency?: unknown;
  threshold?: unknown;
}

export interface CheckedEvalOptions {
  /** The options' names as the caller spells them (the CLI's flags, or the library's keys). */
  named: OptionNames;
  mode: EvalMode;
  runs: number | undefined;
  concurrency: number;
  threshold: number;
}

/** Throws EvalUsageError for the first option that is wrong; otherwise the mode and the numbers, defaults filled in. */
export function checkEvalOptions(options: UncheckedEvalOptions, spelling: OptionSpelling = "library"): CheckedEvalOptions {
  const named = OPTION_NAMES[spelling];
  for (const key of ["root", "distDir", "model", "baseUrl"] as const) {
    const value: unknown = options[key];
    if (value !== undefined && typeof value !== "string") throw new EvalUsageError(`Unexpected ${key === "model" || key === "baseUrl" ? named[key] : key} ${shownValue(value)}, expected a string`);
  }
  if (options.scenarios !== undefined && (!Array.isArray(options.scenarios) || !options.scenarios.every((file) => typeof file === "string"))) {
    throw new EvalUsageError(`Unexpected scenarios ${shownValue(options.scenarios)}, expected an array of scenario files`);
  }
  const mode: EvalMode = options.replay === true ? "replay" : options.record === true ? "record" : "live";
  if (options.replay === true && options.record === true) throw new EvalUsageError(`Unexpected ${named.record} with ${named.replay}, expected one of them: a replay answers from the cassettes a recording writes`);
  if (options.replay === true && (options.model !== undefined || options.scriptedModel !== undefined)) {
    throw new EvalUsageError(`Unexpected ${options.model !== undefined ? named.model : "scriptedModel"} with ${named.replay}, expected one of them: a replay answers from the cassettes, as the model they name`);
  }
  if (options.replay === true && options.baseUrl !== undefined) {
    throw new EvalUsageError(`Unexpected ${named.baseUrl} with ${named.replay}, expected one of them: a replay calls no endpoint, it answers from the cassettes`);
  }
  if (typeof options.baseUrl === "string") {
    const problem = baseUrlProblem(options.baseUrl, named.baseUrl);
    if (problem !== undefined) throw new EvalUsageError(problem);
  }
  if (options.scriptedModel !== undefined) {
    const scripted = options.scriptedModel as { name?: unknown; respond?: unknown } | null;
    if (typeof scripted !== "object" || scripted === null || typeof scripted.name !== "string" || scripted.name === "" || typeof scripted.respond !== "function") {
      throw new EvalUsageError(`Unexpected scriptedModel ${shownValue(options.scriptedModel)}, expected { name, respond(call) } with a name and a respond function`);
    }
    if (options.model !== undefined) throw new EvalUsageError(`Unexpected ${named.model} with scriptedModel, expected one of them: the scripted model answers every call`);
  }
  // Checked before the first run: a baseline or a callback found wrong after the runs would waste them (and a recording's cassettes).
  if (options.baseline !== undefined) {
    const problem = resultsProblem(options.baseline);
    if (problem !== undefined) throw new EvalUsageError(`Unexpected baseline ${shownValue(options.baseline)}, ${problem} (an earlier runEvals results document, parsed)`);
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== "function") throw new EvalUsageError(`Unexpected onProgress ${shownValue(options.onProgress)}, expected a function that takes (done, total)`);
  if (mode !== "replay" && options.model === undefined && options.scriptedModel === undefined) {
    throw new EvalUsageError(`Unexpected evaluation without a model, expected ${named.modelExpected}, or ${named.replay} to run the recorded cassettes`);
  }
  const runs = options.runs;
  if (runs !== undefined && (typeof runs !== "number" || !Number.isInteger(runs) || runs < 1)) throw new EvalUsageError(`Unexpected ${named.runs} ${shownValue(runs)}, expected a whole number of at least 1`);
  if (runs !== undefined && runs > MAX_RUNS) throw new EvalUsageError(`Unexpected ${named.runs} ${runs}, expected at most ${MAX_RUNS} runs per scenario`);
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (typeof concurrency !== "number" || !Number.isInteger(concurrency) || concurrency < 1) throw new EvalUsageError(`Unexpected ${named.concurrency} ${shownValue(concurrency)}, expected a whole number of at least 1`);
  const threshold = options.threshold ?? 1;
  if (typeof threshold !== "number" || !(threshold >= 0 && threshold <= 1)) throw new EvalUsageError(`Unexpected ${named.threshold} ${shownValue(threshold)}, expected a share from 0 to 1`);
  return { named, mode, runs, concurrency, threshold };
}

/** Why `--base-url` cannot be an endpoint for a provider's API (an absolute http or https URL), or undefined. */
export function baseUrlProblem(text: string, name = "--base-url"): string | undefined {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") || url.host === "") {
    return `Unexpected ${name} ${JSON.stringify(text)}, expected an http:// or https:// URL (e.g. http://127.0.0.1:8080/v1)`;
  }
  return undefined;
}
