import type { Diagnostic, DiagnosticCounts, ReportContext } from "../diagnostic.js";
import { escapeControls, messageRow } from "../printable.js";

/**
 * The human format: a header per file, then one aligned row per finding
 * (`line:column  severity  message  ruleId`), then a summary line that
 * counts notes apart from problems.
 * Diagnostics arrive sorted; files appear in that order. File names are
 * printed with their control characters escaped, as messages are: a name on
 * disk cannot add lines or terminal commands to the output.
 * After `lint --fix` the report starts with the fixes written and the files
 * left unfixed ({@link fixLines}).
 */
export function formatStylish(diagnostics: readonly Diagnostic[], counts: ReportContext & DiagnosticCounts): string {
  return fixLines(counts) + findingsReport(diagnostics, counts);
}

/**
 * What `lint --fix` did, one line each: `fixed file:line:column  ruleId  change`
 * for every fix written (none for a dry run, whose changes are the diff), then
 * `not fixed file: reason` for every file with fixable findings left as it is.
 */
export function fixLines(context: ReportContext): string {
  const fixed = context.fixesWritten === true && context.fixes ? context.fixes.map((record) => `fixed ${escapeControls(record.file)}:${record.line}:${record.column}  ${record.ruleId}  ${messageRow(record.message)}\n`).join("") : "";
  const notFixed = (context.fixesSkipped ?? []).map((entry) => `not fixed ${escapeControls(entry.file)}: ${escapeControls(entry.reason)}\n`).join("");
  return fixed + notFixed;
}

function findingsReport(diagnostics: readonly Diagnostic[], counts: ReportContext & DiagnosticCounts): string {
  // Lint names what it checked and under which profile even when all is well, so nobody wonders which rules ran.
  const skills = counts.skillFileCount ?? counts.skillCount;
  const scope = counts.profile === undefined ? "" : ` · ${skills === undefined ? "" : `${skills} ${plural(skills, "skill")}, `}profile ${counts.profile}`;
  if (diagnostics.length === 0) return scope === "" ? "" : `✔ no problems${scope}\n`;
  const byFile = new Map<string, Diagnostic[]>();
  for (const diagnostic of diagnostics) {
    const list = byFile.get(diagnostic.file);
    if (list) list.push(diagnostic);
    else byFile.set(diagnostic.file, [diagnostic]);
  }
  const blocks: string[] = [];
  for (const [file, list] of byFile) {
    const rows = list.map((diagnostic) => [`${diagnostic.line}:${diagnostic.column}`, diagnostic.severity, messageRow(diagnostic.message), diagnostic.ruleId]);
    const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
    const lines = rows.map((row, index) => {
      const line = `  ${row.map((cell, column) => (column < 3 ? cell.padEnd(widths[column] ?? 0) : cell)).join("  ")}`.trimEnd();
      const related = list[index]?.related;
      return related ? `${line}\n    ${messageRow(related.message)}: ${escapeControls(related.file)}:${related.line}:${related.column}` : line;
    });
    blocks.push(`${escapeControls(file)}\n${lines.join("\n")}\n`);
  }
  // Notes are shown and counted, but they are not problems: a run with notes alone is clean.
  const problems = counts.errorCount + counts.warningCount;
  const notes = counts.noteCount > 0 ? `${counts.noteCount} ${plural(counts.noteCount, "note")}` : "";
  const summary =
    problems === 0
      ? `✔ no problems, ${notes}${scope}`
      : `✖ ${problems} ${plural(problems, "problem")} (${counts.errorCount} ${plural(counts.errorCount, "error")}, ${counts.warningCount} ${plural(counts.warningCount, "warning")})${notes === "" ? "" : `, ${notes}`}${scope}`;
  return `\n${blocks.join("\n")}\n${summary}\n`;
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}
