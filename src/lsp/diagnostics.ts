import { DiagnosticSeverity, type Diagnostic as LspDiagnostic } from "vscode-languageserver/node";
import type { Diagnostic, Severity } from "../diagnostics/diagnostic.js";
import { toLspRange, type ProjectPaths } from "./locations.js";

/** What a published diagnostic carries for code actions: the buffer version it was found in (absent: the file on disk). */
export interface FindingData {
  version?: number;
}

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  note: DiagnosticSeverity.Information,
};

/** One finding as the protocol carries it: the rule id as code, its doc as codeDescription, its related place as relatedInformation. */
export function toLspDiagnostic(finding: Diagnostic, paths: ProjectPaths, version: number | undefined): LspDiagnostic {
  const range = { start: { line: finding.line, column: finding.column }, end: { line: finding.endLine, column: finding.endColumn } };
  const diagnostic: LspDiagnostic = {
    range: toLspRange(range),
    severity: SEVERITY[finding.severity],
    code: finding.ruleId,
    codeDescription: { href: finding.url },
    source: "gamma-prompt",
    message: finding.message,
  };
  if (finding.related) {
    const { related } = finding;
    const relatedRange = { start: { line: related.line, column: related.column }, end: { line: related.endLine, column: related.endColumn } };
    diagnostic.relatedInformation = [{ location: paths.location(related.file, relatedRange), message: related.message }];
  }
  const data: FindingData = version === undefined ? {} : { version };
  diagnostic.data = data;
  return diagnostic;
}
