import type { Diagnostic, ReportContext } from "../diagnostic.js";

/**
 * The public JSON contract: exactly one document,
 * `{"diagnostics":[{file,line,column,endLine,endColumn,severity,ruleId,message,url,related?}],"errorCount":n,"warningCount":n,"noteCount":n}`,
 * keys in that order (`related`, when present, is `{file,line,column,endLine,endColumn,message}`), followed by one newline.
 * After `lint --fix` or `--fix-dry-run` it ends with `"fixes":[{file,line,column,ruleId,message}],"fixesWritten":bool`,
 * and with `--fix-dry-run` `"diff"` (the unified diff of the changes); when a file with fixable findings was left as it is
 * (a symbolic link, a file changed while lint ran), `"fixesSkipped":[{file,reason}]` follows.
 */
export function formatJson(diagnostics: readonly Diagnostic[], counts: ReportContext): string {
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
    ...(counts.fixes
      ? {
          fixes: counts.fixes.map(({ file, line, column, ruleId, message }) => ({ file, line, column, ruleId, message })),
          fixesWritten: counts.fixesWritten === true,
          ...(counts.fixDiff !== undefined ? { diff: counts.fixDiff } : {}),
          ...(counts.fixesSkipped !== undefined && counts.fixesSkipped.length > 0 ? { fixesSkipped: counts.fixesSkipped.map(({ file, reason }) => ({ file, reason })) } : {}),
        }
      : {}),
  };
  return `${JSON.stringify(document)}\n`;
}
