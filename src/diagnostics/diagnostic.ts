import { ruleDocUrl, ruleRegistry, type RuleId } from "./rules/index.js";
import type { Severity } from "./rules/rule.js";
import { escapeControls } from "./printable.js";

export type { Severity } from "./rules/rule.js";

/** A 1-based line and column pair. Columns count UTF-16 code units, as editors do. */
export interface Position {
  line: number;
  column: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/**
 * One finding, as data. `file` is relative to the project root with forward
 * slashes; reporters decide how it is printed. This shape is the public JSON
 * contract of `--format json`.
 */
export interface Diagnostic {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: Severity;
  ruleId: RuleId;
  message: string;
  /** The rule's documentation. */
  url: string;
  /** Another place the finding involves (the first of two duplicates, say), with what it is. */
  related?: RelatedLocation;
}

/** A second location of a finding, printed after the main one. */
export interface RelatedLocation {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  message: string;
}

/** The start of a file, for findings about the file as a whole. */
export const FILE_START: Range = { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } };

/**
 * The one place diagnostics are made: severity comes from the rule registry,
 * so a rule's severity cannot disagree between call sites.
 */
export function createDiagnostic(ruleId: RuleId, file: string, range: Range, message: string, related?: { file: string; range: Range; message: string }): Diagnostic {
  const diagnostic: Diagnostic = {
    file,
    line: range.start.line,
    column: range.start.column,
    endLine: range.end.line,
    endColumn: range.end.column,
    severity: ruleRegistry[ruleId].severity,
    ruleId,
    message: withControlsEscaped(message),
    url: ruleDocUrl(ruleId),
  };
  if (related) {
    const { start, end } = related.range;
    diagnostic.related = { file: related.file, line: start.line, column: start.column, endLine: end.line, endColumn: end.column, message: withControlsEscaped(related.message) };
  }
  return diagnostic;
}

/**
 * A message as plain text whatever source text it quotes: a control
 * character a message builder let through (a key, a name, a link target
 * written with an escape) is shown as its JSON escape, as `quoted` shows it.
 * Tab and line breaks stay: they are the reporters' to flatten or escape,
 * each as its format requires (stylish: messageRow).
 */
function withControlsEscaped(message: string): string {
  return escapeControls(message, { keepLineBreaks: true });
}

/** Stable order for output: by file, then position, then rule id. */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column || (a.ruleId < b.ruleId ? -1 : a.ruleId > b.ruleId ? 1 : 0);
}

export interface DiagnosticCounts {
  errorCount: number;
  warningCount: number;
  /** Notes are counted apart: they never fail a run. */
  noteCount: number;
}

/**
 * What a run adds to its findings for a reporter: the counts, and for lint the profile, how many skills were
 * checked and the fixes. Each field is named as lint's result names it, so the lint result itself is one.
 */
export interface ReportContext extends Omit<DiagnosticCounts, "noteCount"> {
  /** Counted from the findings when left out (callers that predate notes pass only the other two). */
  noteCount?: number;
  profile?: string;
  /** How many SKILL.md files were checked. */
  skillFileCount?: number;
  /** @deprecated The earlier name of {@link skillFileCount}, still read when that is absent. */
  skillCount?: number;
  /** `lint --fix` / `--fix-dry-run`: the changes, and whether they were written; the JSON report records them, stylish lists those written. */
  fixes?: readonly FixRecord[];
  fixesWritten?: boolean;
  /** `--fix-dry-run`: the changes as one unified diff. */
  fixDiff?: string;
  /** `--fix` / `--fix-dry-run`: the files with fixable findings left as they are, and why (a symbolic link, a file changed while lint ran). */
  fixesSkipped?: ReadonlyArray<{ file: string; reason: string }>;
}

/** One change `lint --fix` made or would make: where the fixed finding was, its rule, and what changed. */
export interface FixRecord {
  file: string;
  line: number;
  column: number;
  ruleId: RuleId;
  message: string;
}

/**
 * Appends findings one by one. `target.push(...found)` passes each finding as an argument, and a SKILL.md
 * within the size limit can hold more links than a call takes arguments (about 120,000): the spread then
 * throws "Maximum call stack size exceeded" and one file stops the whole lint.
 */
export function appendDiagnostics(target: Diagnostic[], found: Iterable<Diagnostic>): void {
  for (const diagnostic of found) target.push(diagnostic);
}

export function countDiagnostics(diagnostics: readonly Diagnostic[]): DiagnosticCounts {
  let errorCount = 0;
  let warningCount = 0;
  let noteCount = 0;
  for (const diagnostic of diagnostics) {
    if (diagnostic.severity === "error") errorCount++;
    else if (diagnostic.severity === "warning") warningCount++;
    else noteCount++;
  }
  return { errorCount, warningCount, noteCount };
}

/** Each finding once: the config is read by lint and by the project's checks, and a finding both make is reported once. */
export function withoutRepeats(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((diagnostic) => {
    const key = [diagnostic.file, diagnostic.line, diagnostic.column, diagnostic.ruleId, diagnostic.message].join("\u0000");
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
