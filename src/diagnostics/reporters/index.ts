import { countDiagnostics, type Diagnostic, type DiagnosticCounts, type ReportContext } from "../diagnostic.js";
import { expectObject, expectOneOf, shownValue } from "../../protocol/arguments.js";
import { formatGithub } from "./github.js";
import { formatJson } from "./json.js";
import { formatSarif } from "./sarif.js";
import { formatStylish } from "./stylish.js";
import type { ReporterName } from "./names.js";

export type { ReportContext } from "../diagnostic.js";
export { DEFAULT_REPORTER, isReporterName, REPORTER_NAMES, type ReporterName } from "./names.js";

type Reporter = (diagnostics: readonly Diagnostic[], context: ReportContext & DiagnosticCounts) => string;

/** Every reporter by the name `--format` selects it with (names.ts lists the names, in this order). */
const REPORTERS: Record<ReporterName, Reporter> = {
  stylish: formatStylish,
  json: formatJson,
  github: (diagnostics) => formatGithub(diagnostics),
  sarif: (diagnostics) => formatSarif(diagnostics),
};

/** Renders diagnostics (already sorted) in the named format; the caller writes the text to stdout. */
export function formatDiagnostics(name: ReporterName, diagnostics: readonly Diagnostic[], context: ReportContext): string {
  if (!Object.hasOwn(REPORTERS, name)) expectOneOf(name, "format", Object.keys(REPORTERS));
  if (!Array.isArray(diagnostics)) throw new TypeError(`Unexpected diagnostics ${shownValue(diagnostics)}, expected an array of findings (lint's or build's diagnostics)`);
  diagnostics.forEach((diagnostic: unknown, index) => {
    const finding = diagnostic as Partial<Record<keyof Diagnostic, unknown>> | null;
    if (typeof finding !== "object" || finding === null || typeof finding.file !== "string" || typeof finding.ruleId !== "string" || typeof finding.message !== "string" || !Number.isInteger(finding.line) || !Number.isInteger(finding.column)) {
      throw new TypeError(`Unexpected diagnostics[${index}] ${shownValue(diagnostic)}, expected a finding such as lint returns ({ file, line, column, severity, ruleId, message })`);
    }
  });
  expectObject(context as unknown, "formatDiagnostics context", "the lint result, or an object such as { errorCount, warningCount }");
  return REPORTERS[name](diagnostics, { ...context, noteCount: context.noteCount ?? countDiagnostics(diagnostics).noteCount });
}

/** The registry and the name list agree (a test holds them to it). */
export function registeredReporterNames(): string[] {
  return Object.keys(REPORTERS);
}
