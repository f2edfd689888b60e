import type { Diagnostic, DiagnosticCounts } from "../diagnostic.js";
import { formatGithub } from "./github.js";
import { formatJson } from "./json.js";
import { formatStylish } from "./stylish.js";

export type ReporterName = "stylish" | "json" | "github";

export const REPORTER_NAMES: readonly ReporterName[] = ["stylish", "json", "github"];

export function isReporterName(name: string): name is ReporterName {
  return (REPORTER_NAMES as readonly string[]).includes(name);
}

/** Renders diagnostics (already sorted) in the named format; the caller writes the text to stdout. */
export function formatDiagnostics(name: ReporterName, diagnostics: readonly Diagnostic[], counts: DiagnosticCounts): string {
  switch (name) {
    case "stylish":
      return formatStylish(diagnostics, counts);
    case "json":
      return formatJson(diagnostics, counts);
    case "github":
      return formatGithub(diagnostics);
  }
}
