import type { Diagnostic, ReportContext } from "../diagnostic.js";
import { formatGithub } from "./github.js";
import { formatJson } from "./json.js";
import { formatSarif } from "./sarif.js";
import { formatStylish } from "./stylish.js";

export type { ReportContext } from "../diagnostic.js";

type Reporter = (diagnostics: readonly Diagnostic[], context: ReportContext) => string;

/** Every reporter by the name `--format` selects it with; the first is the default. */
const REPORTERS = {
  stylish: formatStylish,
  json: formatJson,
  github: (diagnostics) => formatGithub(diagnostics),
  sarif: (diagnostics) => formatSarif(diagnostics),
} as const satisfies Record<string, Reporter>;

export type ReporterName = keyof typeof REPORTERS;

export const REPORTER_NAMES = Object.keys(REPORTERS) as ReporterName[];

export const DEFAULT_REPORTER: ReporterName = "stylish";

export function isReporterName(name: string): name is ReporterName {
  return Object.prototype.hasOwnProperty.call(REPORTERS, name);
}

/** Renders diagnostics (already sorted) in the named format; the caller writes the text to stdout. */
export function formatDiagnostics(name: ReporterName, diagnostics: readonly Diagnostic[], context: ReportContext): string {
  return REPORTERS[name](diagnostics, context);
}
