import type { Range } from "../../diagnostics/diagnostic.js";
import type { RuleId } from "../../diagnostics/rules/index.js";
import type { LineIndex } from "./positions.js";

/** Where the frontmatter and the body of a SKILL.md are, as offsets into its normalised text. */
export interface FrontmatterSplit {
  /** Range of the opening `---` line. */
  opening: Range;
  yamlStart: number;
  yamlEnd: number;
  /** Range of the closing `---` line. */
  closing: Range;
  /** Body without leading blank lines, ending in exactly one newline (empty when there is no body). */
  body: string;
  /** 1-based line in SKILL.md where `body` starts. */
  bodyStartLine: number;
}

export interface SplitProblem {
  ruleId: RuleId;
  range: Range;
  message: string;
}

const FENCE_LINE = /^---[ \t]*$/;

export function splitFrontmatter(index: LineIndex): FrontmatterSplit | SplitProblem {
  const text = index.text;
  if (text.trim() === "") {
    return { ruleId: "skill/empty-file", range: index.lineRange(1), message: "Unexpected empty file, expected frontmatter between --- lines and a Markdown body" };
  }
  const firstBreak = text.indexOf("\n");
  const firstLine = firstBreak === -1 ? text : text.slice(0, firstBreak);
  if (!FENCE_LINE.test(firstLine)) {
    return { ruleId: "skill/missing-frontmatter", range: index.lineRange(1), message: `Unexpected first line ${JSON.stringify(truncate(firstLine))}, expected "---" opening the frontmatter` };
  }
  const opening = index.lineRange(1);
  for (let line = 2; line <= index.lineCount; line++) {
    const start = index.lineStart(line);
    const next = text.indexOf("\n", start);
    const content = next === -1 ? text.slice(start) : text.slice(start, next);
    if (!FENCE_LINE.test(content)) continue;
    let bodyStartLine = line + 1;
    while (bodyStartLine <= index.lineCount && index.text.slice(index.lineStart(bodyStartLine), lineEnd(text, index.lineStart(bodyStartLine))).trim() === "") {
      bodyStartLine++;
    }
    const bodyText = bodyStartLine <= index.lineCount ? text.slice(index.lineStart(bodyStartLine)).trimEnd() : "";
    return {
      opening,
      yamlStart: firstBreak + 1,
      yamlEnd: start,
      closing: index.lineRange(line),
      body: bodyText === "" ? "" : `${bodyText}\n`,
      bodyStartLine,
    };
  }
  return { ruleId: "skill/unclosed-frontmatter", range: opening, message: `Unexpected end of file inside the frontmatter, expected a closing "---" line` };
}

function lineEnd(text: string, start: number): number {
  const next = text.indexOf("\n", start);
  return next === -1 ? text.length : next;
}

function truncate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
