import type { Diagnostic, DiagnosticCounts } from "../diagnostic.js";

/**
 * The public JSON contract: exactly one document,
 * `{"diagnostics":[{file,line,column,endLine,endColumn,severity,ruleId,message,url,related?}],"errorCount":n,"warningCount":n,"noteCount":n}`,
 * keys in that order (`related`, when present, is `{file,line,column,endLine,endColumn,message}`), followed by one newline.
 */
export function formatJson(diagnostics: readonly Diagnostic[], counts: DiagnosticCounts): string {
  const document = {
    diagnostics: diagnostics.map((diagnostic) => ({
      file: diagnostic.file,
      line: diagnostic.line,
      column: diagnostic.column,
      endLine: diagnostic.endLine,
      endColumn: diagnostic.endColumn,
      severity: diagnostic.severity,
      ruleId: diagnostic.ruleId,
      message: diagnostic.message,
      url: diagnostic.url,
      ...(diagnostic.related ? { related: { ...diagnostic.related } } : {}),
    })),
    errorCount: counts.errorCount,
    warningCount: counts.warningCount,
    noteCount: counts.noteCount,
  };
  return `${JSON.stringify(document)}\n`;
}
