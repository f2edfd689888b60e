import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { ruleRegistry, type RuleId } from "../../diagnostics/rules/index.js";
import type { SourceFile } from "../../stage-data.js";
import { didYouMean } from "../../protocol/suggest.js";
import { quoted } from "../../diagnostics/quote.js";
import { yamlLibrary } from "../parse/yaml-library.js";
import { indentContinuations } from "../parse/yaml-margin.js";

/**
 * Inline suppression, as a YAML comment in the frontmatter:
 *
 *   # gamma-prompt-disable-next-line skill/description-trigger -- the catalog entry is generated
 *   description: Toolkit for …
 *
 * `gamma-prompt-disable-next-line RULE[, RULE…]` suppresses those rules'
 * findings on the next line that is not a comment, and on every line of a
 * value that starts there and goes on over the lines below (a block scalar
 * such as `description: |`, a quoted or plain string over several lines);
 * `gamma-prompt-disable RULE[, RULE…]` suppresses them in the whole file.
 * The reason after `--` is for the reader. Only a line YAML reads as a
 * comment is a directive: the same text inside a block scalar or a quoted
 * string is part of the value, and suppresses nothing. A comment that
 * suppresses nothing, names an unknown rule, or names a finding that cannot
 * be suppressed is itself reported (`skill/unused-suppression`), so stale
 * ones do not pile up and none hides a skill from the build.
 */

const DIRECTIVE = /^(\s*#\s*)(gamma-prompt-disable(?:-next-line)?)(?=\s|$)(.*)$/;

/** True when a comment's text (from its `#`) is a suppression directive. */
export function isSuppressionComment(comment: string): boolean {
  return DIRECTIVE.test(comment);
}

/**
 * Findings that mean the file could not be read as a skill. Suppressed, the
 * file would have no error left, and the skill would leave the build without
 * a word; so a suppression never hides one, and names one only to be reported.
 */
export const UNSUPPRESSIBLE_RULES: ReadonlySet<RuleId> = new Set<RuleId>([
  "skill/unreadable-file",
  "skill/file-too-large",
  "skill/empty-file",
  "skill/missing-frontmatter",
  "skill/unclosed-frontmatter",
  "skill/yaml-syntax",
  "skill/yaml-tab-indent",
  "skill/yaml-duplicate-key",
  "skill/yaml-alias-limit",
  "skill/yaml-unsupported",
  "skill/frontmatter-not-mapping",
  "skill/parse-failure",
]);

/**
 * Findings that leave the skill without a `name`, `description` or `type`
 * the build can read when they are about one of those keys: in a skill that
 * lacks one, they cannot be suppressed either.
 */
export const UNSUPPRESSIBLE_IN_UNREAD_SKILL: ReadonlySet<RuleId> = new Set<RuleId>(["skill/missing-key", "skill/value-type", "skill/type-value"]);

/** True when a suppression may hide `ruleId` in a skill; `unread`: the skill has no name, description or type the build reads. */
export function suppressible(ruleId: RuleId, unread: boolean): boolean {
  return !UNSUPPRESSIBLE_RULES.has(ruleId) && !(unread && UNSUPPRESSIBLE_IN_UNREAD_SKILL.has(ruleId));
}

interface Suppression {
  line: number;
  column: number;
  endColumn: number;
  rules: string[];
  /** First and last line the suppression covers, or undefined for the whole file. */
  target: { first: number; last: number } | undefined;
  used: Set<string>;
  /** Rules whose finding the suppression matched but may not hide. */
  refused: Set<string>;
}

/**
 * Removes suppressed findings of one file and adds a finding per unused, unknown or refused suppression.
 * `unread`: the file's skill has no name, description or type the build reads (see {@link suppressible}).
 * `covered`, when given, receives the findings a suppression names and covers, hidden or (in a skill the
 * build cannot read) refused: what `lint --fix` compares before and after a fix, which must never widen what
 * a comment covers.
 */
export function applySuppressions(source: SourceFile, diagnostics: readonly Diagnostic[], unread = false, covered?: Diagnostic[]): Diagnostic[] {
  const suppressions = readSuppressions(source.text);
  if (suppressions.length === 0) return [...diagnostics];
  const kept: Diagnostic[] = [];
  for (const diagnostic of diagnostics) {
    const match = suppressions.find((suppression) => suppression.rules.includes(diagnostic.ruleId) && (suppression.target === undefined || (diagnostic.line >= suppression.target.first && diagnostic.line <= suppression.target.last)));
    if (match && !suppressible(diagnostic.ruleId, unread)) {
      match.refused.add(diagnostic.ruleId);
      covered?.push(diagnostic);
      kept.push(diagnostic);
    } else if (match && diagnostic.ruleId !== "skill/unused-suppression") {
      match.used.add(diagnostic.ruleId);
      covered?.push(diagnostic);
    } else kept.push(diagnostic);
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
      } else if (UNSUPPRESSIBLE_RULES.has(rule as RuleId)) {
        kept.push(createDiagnostic("skill/unused-suppression", source.path, range, `Unexpected suppression of ${rule as RuleId}, which cannot be suppressed (while the file has that finding it is not read as a skill, and would leave the build without a word), expected the finding fixed and the comment removed`));
      } else if (suppression.refused.has(rule)) {
        kept.push(createDiagnostic("skill/unused-suppression", source.path, range, `Unexpected suppression of ${rule as RuleId} in a skill without a name, description or type the build can read, which would leave the build without a word, expected the finding fixed and the comment removed`));
      } else if (!suppression.used.has(rule)) {
        const scope = suppression.target === undefined ? "in this file" : suppression.target.first === suppression.target.last ? `on line ${suppression.target.first}` : `on lines ${suppression.target.first}-${suppression.target.last}`;
        kept.push(createDiagnostic("skill/unused-suppression", source.path, range, `Unexpected suppression of ${rule as RuleId} that suppresses nothing ${scope}, expected it removed (the finding is gone) or the rule id corrected`));
      }
    }
  }
  return kept;
}

function readSuppressions(text: string): Suppression[] {
  if (!text.includes("gamma-prompt-disable")) return [];
  const lines = text.split("\n");
  const yaml = frontmatterLines(lines);
  if (yaml === undefined) return [];
  const suppressions: Suppression[] = [];
  for (const line of yaml.comments) {
    const match = DIRECTIVE.exec(lines[line - 1] ?? "");
    if (!match) continue;
    const [, lead = "", directive = "", rest = ""] = match;
    const list = rest.split(/\s--\s|\s--$/)[0] ?? "";
    const rules = list.split(/[\s,]+/).filter((rule) => rule !== "");
    let target: Suppression["target"];
    if (directive.endsWith("-next-line")) {
      let next = line + 1;
      while (next <= yaml.closing && (yaml.comments.has(next) || (lines[next - 1] ?? "").trim() === "")) next++;
      target = { first: next, last: yaml.spans.get(next) ?? next };
    }
    suppressions.push({ line, column: lead.length + 1, endColumn: (lines[line - 1] ?? "").trimEnd().length + 1, rules, target, used: new Set(), refused: new Set() });
  }
  return suppressions;
}

/** The frontmatter as YAML reads it, by 1-based line of SKILL.md. */
export interface FrontmatterLines {
  /** The lines that hold a comment and nothing else, in order: the only lines a directive is read from. */
  comments: Set<number>;
  /** A value that starts on one line and goes on over the next ones (a block scalar from its header, a quoted or plain string): its first line -> its last. */
  spans: Map<number, number>;
  /** The closing `---` line (one past the last line when the frontmatter is not closed). */
  closing: number;
}

/** Characters the YAML lexer puts between tokens that are not in the text. */
const LEXER_MARKERS = new Set(["\u0002", "\u0018", "\u001f"]);

/**
 * Reads the frontmatter's lines with the YAML library's lexer, which reads a
 * broken frontmatter too. `lines`: the file split at "\n" (a "\r" left at a
 * line's end is read as the line's end); undefined when the file does not
 * open a frontmatter.
 */
export function frontmatterLines(lines: readonly string[]): FrontmatterLines | undefined {
  if (!/^\uFEFF?---[ \t\r]*$/.test(lines[0] ?? "")) return undefined;
  let closing = lines.findIndex((line, index) => index > 0 && /^---[ \t\r]*$/.test(line));
  if (closing < 0) closing = lines.length;
  const written = lines.slice(1, closing).map((line) => line.replace(/\r$/, "")).join("\n");
  // A quoted value that goes on at the margin is lexed as it is read (parse/yaml-margin.ts): its lines are the same.
  const yaml = indentContinuations(written)?.text ?? written;
  const comments = new Set<number>();
  const spans = new Map<number, number>();
  // Line starts in `yaml`; its line 0 is line 2 of the file.
  const starts = [0];
  for (let at = yaml.indexOf("\n"); at >= 0; at = yaml.indexOf("\n", at + 1)) starts.push(at + 1);
  const lineOf = (offset: number): number => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 2;
  };
  const { Lexer, CST } = yamlLibrary();
  let offset = 0;
  let scalarNext = false;
  let header: number | undefined;
  for (const token of new Lexer().lex(yaml)) {
    if (LEXER_MARKERS.has(token)) {
      scalarNext ||= token === "\u001f";
      continue;
    }
    const start = offset;
    offset += token.length;
    const type = scalarNext ? "scalar" : CST.tokenType(token);
    scalarNext = false;
    if (type === "comment") {
      const line = lineOf(start);
      if (yaml.slice(starts[line - 2] ?? 0, start).trim() === "") comments.add(line);
    } else if (type === "block-scalar-header") header = lineOf(start);
    else if (type === "scalar" || type === "single-quoted-scalar" || type === "double-quoted-scalar") {
      const first = header ?? lineOf(start);
      header = undefined;
      const content = token.trimEnd();
      const last = content === "" ? first : lineOf(start + content.length - 1);
      if (last > first) spans.set(first, last);
    }
  }
  return { comments, spans, closing: closing + 1 };
}
