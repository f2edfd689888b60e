import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { ruleRegistry, type RuleId } from "../../diagnostics/rules/index.js";
import type { SourceFile } from "../../stage-data.js";
import { didYouMean } from "../../protocol/suggest.js";
import { quoted } from "../../diagnostics/quote.js";

/**
 * Inline suppression, as a YAML comment in the frontmatter:
 *
 *   # gamma-prompt-disable-next-line skill/description-trigger -- the catalog entry is generated
 *   description: Toolkit for …
 *
 * `gamma-prompt-disable-next-line RULE[, RULE…]` suppresses those rules'
 * findings on the next line that is not a comment; `gamma-prompt-disable
 * RULE[, RULE…]` suppresses them in the whole file. The reason after `--` is
 * for the reader. A comment that suppresses nothing, or names an unknown
 * rule, is itself reported (`skill/unused-suppression`), so stale ones do
 * not pile up.
 */

const DIRECTIVE = /^(\s*#\s*)(gamma-prompt-disable(?:-next-line)?)(?=\s|$)(.*)$/;

interface Suppression {
  line: number;
  column: number;
  endColumn: number;
  rules: string[];
  /** Line the suppression covers, or undefined for the whole file. */
  target: number | undefined;
  used: Set<string>;
}

/** Removes suppressed findings of one file and adds a finding per unused or unknown suppression. */
export function applySuppressions(source: SourceFile, diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const suppressions = readSuppressions(source.text);
  if (suppressions.length === 0) return [...diagnostics];
  const kept: Diagnostic[] = [];
  for (const diagnostic of diagnostics) {
    const match = suppressions.find((suppression) => suppression.rules.includes(diagnostic.ruleId) && (suppression.target === undefined || suppression.target === diagnostic.line));
    if (match && diagnostic.ruleId !== "skill/unused-suppression") match.used.add(diagnostic.ruleId);
    else kept.push(diagnostic);
  }
  const known = Object.keys(ruleRegistry);
  for (const suppression of suppressions) {
    const range = { start: { line: suppression.line, column: suppression.column }, end: { line: suppression.line, column: suppression.endColumn } };
    if (suppression.rules.length === 0) {
      kept.push(createDiagnostic("skill/unused-suppression", source.path, range, "Unexpected suppression without a rule id, expected `# gamma-prompt-disable-next-line RULE -- reason`"));
      continue;
    }
    for (const rule of suppression.rules) {
      if (!Object.prototype.hasOwnProperty.call(ruleRegistry, rule)) {
        kept.push(createDiagnostic("skill/unused-suppression", source.path, range, `Unexpected unknown rule ${quoted(rule)} in a suppression comment, expected a rule id from \`gamma-prompt explain\`${didYouMean(rule, known)}`));
      } else if (!suppression.used.has(rule)) {
        const scope = suppression.target === undefined ? "in this file" : `on line ${suppression.target}`;
        kept.push(createDiagnostic("skill/unused-suppression", source.path, range, `Unexpected suppression of ${rule as RuleId} that suppresses nothing ${scope}, expected it removed (the finding is gone) or the rule id corrected`));
      }
    }
  }
  return kept;
}

function readSuppressions(text: string): Suppression[] {
  if (!text.includes("gamma-prompt-disable")) return [];
  const lines = text.split("\n");
  if (!/^---[ \t]*$/.test(lines[0] ?? "")) return [];
  const suppressions: Suppression[] = [];
  for (let index = 1; index < lines.length; index++) {
    const line = lines[index] ?? "";
    if (/^---[ \t]*$/.test(line)) break;
    const match = DIRECTIVE.exec(line);
    if (!match) continue;
    const [, lead = "", directive = "", rest = ""] = match;
    const list = rest.split(/\s--\s|\s--$/)[0] ?? "";
    const rules = list.split(/[\s,]+/).filter((rule) => rule !== "");
    let target: number | undefined;
    if (directive.endsWith("-next-line")) {
      let next = index + 1;
      while (next < lines.length && /^\s*(#.*)?$/.test(lines[next] ?? "")) next++;
      target = next + 1;
    }
    suppressions.push({ line: index + 1, column: lead.length + 1, endColumn: line.trimEnd().length + 1, rules, target, used: new Set() });
  }
  return suppressions;
}
