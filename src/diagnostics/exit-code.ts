import type { DiagnosticCounts } from "./diagnostic.js";

/** Exit codes CI can rely on (mirrored by src/cli/exit-codes.ts). */
export const EXIT_CLEAN = 0;
export const EXIT_FINDINGS = 1;

/**
 * The one place that decides whether findings fail a run: any error does, and
 * so do warnings beyond `maxWarnings` when a maximum is given.
 */
export function exitCodeFor(counts: DiagnosticCounts, maxWarnings?: number): typeof EXIT_CLEAN | typeof EXIT_FINDINGS {
  if (counts.errorCount > 0) return EXIT_FINDINGS;
  if (maxWarnings !== undefined && counts.warningCount > maxWarnings) return EXIT_FINDINGS;
  return EXIT_CLEAN;
}
