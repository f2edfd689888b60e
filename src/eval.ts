/**
 * `gamma-prompt eval` as a library call. The engine runs the runtime on Pi,
 * so it loads on the first call: importing the compiler library never needs
 * the Pi packages (optional peer dependencies).
 */
import type { EvalOptions, EvalOutcome } from "./evals/index.js";
import { checkEvalOptions } from "./evals/options.js";
import { EvalUsageError } from "./evals/usage-error.js";
import { shownValue } from "./protocol/arguments.js";

export type { EvalOptions, EvalOutcome, ModelCallContext, ModelContentPart, ModelMessage, ModelTool, ScriptedCall, ScriptedModel, ScriptedTurn } from "./evals/index.js";
export { EvalUsageError };

/**
 * Runs evaluation scenarios through the real runtime and aggregates pass
 * rates with 95% Wilson intervals. Throws EvalUsageError (before any run) for
 * a bad option, an unknown model, a missing key or missing cassettes;
 * scenario files with problems come back as diagnostics, and nothing runs.
 */
export async function runEvals(options: EvalOptions): Promise<EvalOutcome> {
  const given: unknown = options;
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw new EvalUsageError(`Unexpected runEvals options ${shownValue(given)}, expected an object such as { root: ".", replay: true }`);
  }
  // Checked before the engine loads: without the Pi packages a bad option is still said as such.
  checkEvalOptions(options);
  const engine = await import("./evals/index.js");
  return engine.runEvals(options);
}
