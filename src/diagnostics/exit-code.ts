import type { DiagnosticCounts } from "./diagnostic.js";

/** The exit codes CI can rely on; the only place they are defined. */
export const EXIT_OK = 0;
/** Errors found, warnings over --max-warnings, or dist/ out of date. */
export const EXIT_FINDINGS = 1;
/** Bad usage, an environment that failed the command (an output that cannot be written) or an internal error. */
export const EXIT_USAGE = 2;

/**
 * The one place that decides whether findings fail a run: any error does, and
 * so do warnings beyond `maxWarnings` when a maximum is given. Notes never do.
 */
export function exitCodeFor(counts: Pick<DiagnosticCounts, "errorCount" | "warningCount">, maxWarnings?: number): typeof EXIT_OK | typeof EXIT_FINDINGS {
  if (counts.errorCount > 0) return EXIT_FINDINGS;
  if (maxWarnings !== undefined && counts.warningCount > maxWarnings) return EXIT_FINDINGS;
  return EXIT_OK;
}
