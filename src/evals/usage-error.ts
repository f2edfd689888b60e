/** A problem with the evaluation's inputs (flags, model, key, baseline): exit code 2, before any run. */
export class EvalUsageError extends Error {
  override readonly name = "EvalUsageError";
}
