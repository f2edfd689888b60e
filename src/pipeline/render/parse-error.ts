import type { Range } from "../../diagnostics/diagnostic.js";
import { LineIndex } from "../parse/positions.js";
import { messageOf } from "../../protocol/error-message.js";

/**
 * A Handlebars parse error in words, at the tag that causes it. Handlebars
 * reports an unclosed block where the file ends, in its parser's token names
 * (`expected 'OPEN_INVERSE_CHAIN', 'INVERSE', 'OPEN_ENDBLOCK'`); the author
 * needs the `{{#if}}` that is never closed. The tags are scanned on their own
 * (comments, escaped `\{{` and raw text aside) to find the block or the `{{`
 * left open; any other error has its token names translated.
 */
export interface ExplainedParseError {
  /** Where the problem is; undefined when only the parser's own position is known. */
  range?: Range;
  message: string;
}

interface OpenBlock {
  name: string;
  /** `#` or `^`: how the tag opened, to spell it back. */
  sigil: string;
  start: number;
  end: number;
}

type TagProblem =
  | { kind: "unclosed-tag"; start: number }
  | { kind: "unclosed-comment"; start: number }
  | { kind: "mismatch"; open: OpenBlock; closer: string }
  | { kind: "stray-closer"; closer: string; start: number; end: number }
  | { kind: "unclosed-block"; open: OpenBlock };

export function explainParseError(text: string, error: unknown): ExplainedParseError {
  const message = messageOf(error);
  const problem = scanTags(text);
  const index = new LineIndex(text);
  if (problem !== undefined) {
    switch (problem.kind) {
      case "unclosed-tag":
        return { range: index.range(problem.start, problem.start + 2), message: "Unexpected end of the file: `{{` opened here is never closed, expected `}}`" };
      case "unclosed-comment":
        return { range: index.range(problem.start, problem.start + 5), message: "Unexpected end of the file: the comment `{{!--` opened here is never closed, expected `--}}`" };
      case "mismatch":
        return {
          range: index.range(problem.open.start, problem.open.end),
          message: `Unexpected \`{{/${problem.closer}}}\` closing \`{{${problem.open.sigil}${problem.open.name}}}\` opened here, expected \`{{/${problem.open.name}}}\``,
        };
      case "stray-closer":
        return { range: index.range(problem.start, problem.end), message: `Unexpected \`{{/${problem.closer}}}\` that closes no open block, expected a \`{{#${problem.closer}}}\` before it` };
      case "unclosed-block":
        return {
          range: index.range(problem.open.start, problem.open.end),
          message: `Unexpected end of the file: \`{{${problem.open.sigil}${problem.open.name}}}\` opened here is never closed, expected \`{{/${problem.open.name}}}\` after its content`,
        };
    }
  }
  return { message: `Unexpected template syntax: ${inWords(message)}` };
}

/** The first tag problem in reading order, or undefined when the tags pair up (the error is inside a tag). */
function scanTags(text: string): TagProblem | undefined {
  const stack: OpenBlock[] = [];
  for (let at = text.indexOf("{{"); at >= 0; at = text.indexOf("{{", at)) {
    if (at > 0 && text[at - 1] === "\\") {
      at += 2;
      continue;
    }
    if (text.startsWith("{{!--", at) || text.startsWith("{{~!--", at)) {
      const end = text.indexOf("--", text.indexOf("!--", at) + 3);
      const close = end < 0 ? -1 : text.indexOf("}}", end);
      if (close < 0) return { kind: "unclosed-comment", start: at };
      at = close + 2;
      continue;
    }
    const close = text.indexOf("}}", at + 2);
    if (close < 0) return { kind: "unclosed-tag", start: at };
    const end = close + 2 + (text[close + 2] === "}" ? 1 : 0);
    const inner = text.slice(at + 2, close).replace(/^[{~]*\s*/, "");
    const opener = /^([#^])[>*]?\s*([^\s}~()]+)/.exec(inner);
    const closer = /^\/\s*([^\s}~]+)/.exec(inner);
    if (opener && !(opener[1] === "^" && opener[2] === "")) {
      stack.push({ sigil: opener[1] ?? "#", name: opener[2] ?? "", start: at, end });
    } else if (closer) {
      const name = closer[1] ?? "";
      const open = stack.pop();
      if (open === undefined) return { kind: "stray-closer", closer: name, start: at, end };
      if (open.name !== name) return { kind: "mismatch", open, closer: name };
    }
    at = end;
  }
  const open = stack.at(-1);
  return open === undefined ? undefined : { kind: "unclosed-block", open };
}

/** Handlebars' token names, as an author writes them. */
const TOKEN_WORDS: Readonly<Record<string, string>> = {
  EOF: "the end of the file",
  CLOSE: "`}}`",
  CLOSE_UNESCAPED: "`}}}`",
  CLOSE_RAW_BLOCK: "`}}}}`",
  OPEN: "`{{`",
  OPEN_BLOCK: "`{{#`",
  OPEN_INVERSE: "`{{^`",
  OPEN_ENDBLOCK: "`{{/…}}`",
  OPEN_INVERSE_CHAIN: "`{{else …}}`",
  INVERSE: "`{{else}}`",
  OPEN_PARTIAL: "`{{>`",
  OPEN_PARTIAL_BLOCK: "`{{#>`",
  OPEN_UNESCAPED: "`{{{`",
  OPEN_RAW_BLOCK: "`{{{{`",
  OPEN_SEXPR: "`(`",
  CLOSE_SEXPR: "`)`",
  OPEN_BLOCK_PARAMS: "`as |…|`",
  CLOSE_BLOCK_PARAMS: "`|`",
  EQUALS: "`=`",
  SEP: "`.` or `/`",
  ID: "a name",
  STRING: "a string",
  NUMBER: "a number",
  BOOLEAN: "true or false",
  UNDEFINED: "undefined",
  NULL: "null",
  DATA: "an @name",
  COMMENT: "a comment",
  CONTENT: "text",
  INVALID: "a character Handlebars does not allow there",
};

function inWords(message: string): string {
  const expecting = /Expecting (.+), got '([^']*)'/.exec(message);
  if (expecting) {
    const expected = [...new Set([...(expecting[1] ?? "").matchAll(/'([A-Z_]+)'/g)].map((match) => TOKEN_WORDS[match[1] ?? ""] ?? match[1] ?? ""))];
    return `found ${TOKEN_WORDS[expecting[2] ?? ""] ?? expecting[2]}, expected ${expected.length > 1 ? `${expected.slice(0, -1).join(", ")} or ${expected.at(-1)}` : (expected[0] ?? "")}`;
  }
  return ((message.split("\n")[0] ?? message).trim()).replace(/ - \d+:\d+$/, "");
}
