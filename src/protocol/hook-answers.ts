/**
 * What a host's hook returns, for the callers that must not let it out: a
 * hook may be async, and a promise it rejects where no one awaits it would
 * be an unhandled rejection, which ends the process.
 */

/** Whether a hook answered with a promise (any thenable). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/** A hook's answer whose rejection has no one left to reach: dropped, never unhandled. */
export function swallowRejection(value: unknown): void {
  if (isThenable(value)) value.then(undefined, () => {});
}
