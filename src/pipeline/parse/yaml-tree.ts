import type { Document, Node } from "yaml";
import { readPlainFrontmatter, type YamlTree } from "./plain-frontmatter.js";
import type { Range } from "../../diagnostics/diagnostic.js";
import type { RuleId } from "../../diagnostics/rules/index.js";
import type { Severity } from "../../diagnostics/rules/rule.js";
import type { LineIndex } from "./positions.js";
import { yamlLibrary } from "./yaml-library.js";
import { isStackExhaustion, MAX_NESTING_DEPTH, NESTING_MESSAGE } from "./nesting.js";
import { yamlNestingOverflow, unclosedConstruct } from "./yaml-unclosed.js";
import { PARSER_REASON_LIMIT, quoted, shortened } from "../../diagnostics/quote.js";
import { indentContinuations, writtenOffset, type MarginReading } from "./yaml-margin.js";

/**
 * Frontmatter YAML as plain data plus the source range of every value and
 * key, addressed by JSON pointer (the same form as ajv's instancePath).
 * Mappings become null-prototype objects, so a `__proto__` key is an
 * ordinary key and pollutes nothing. Aliases are expanded by hand under a
 * node budget, so a "billion laughs" document fails fast instead of hanging.
 */
export type { YamlTree } from "./plain-frontmatter.js";

export interface YamlProblem {
  ruleId: RuleId;
  range: Range;
  message: string;
  /** Below the rule's own severity where, under the profile in use, the finding rests on a guess; the rule's own when absent. */
  severity?: Severity;
}

/** Nodes an alias may expand to, in total per document; real manifests need a handful. */
export const MAX_ALIAS_NODES = 1000;

export function parseYamlTree(yamlText: string, baseOffset: number, index: LineIndex): YamlTree | YamlProblem[] {
  // The readers recurse per level: a deeper frontmatter is refused before either reads it.
  const tooDeep = yamlNestingOverflow(yamlText, MAX_NESTING_DEPTH);
  if (tooDeep !== undefined) return [{ ruleId: "skill/yaml-unsupported", range: index.range(baseOffset + tooDeep, baseOffset + tooDeep + 1), message: NESTING_MESSAGE }];
  return readPlainFrontmatter(yamlText, baseOffset, index) ?? parseWithYamlLibrary(yamlText, baseOffset, index);
}

/** The full YAML 1.2 parser, loaded on first use: frontmatter of plain `key: value` lines never needs it. */
export function parseWithYamlLibrary(yamlText: string, baseOffset: number, index: LineIndex): YamlTree | YamlProblem[] {
  const { parseDocument } = yamlLibrary();
  const options = { prettyErrors: false, uniqueKeys: true, strict: true } as const;
  let document = parseDocument(yamlText, options);
  let text = yamlText;
  let margin: MarginReading | undefined;
  if (document.errors.length > 0) {
    // Text that fails only because a quoted value or a flow collection goes on at the margin is read as
    // PyYAML, js-yaml and skills-ref read it (yaml-margin.ts); anything else keeps the parser's errors.
    const reading = indentContinuations(yamlText);
    const indented = reading === undefined ? undefined : parseDocument(reading.text, options);
    if (reading !== undefined && indented !== undefined && indented.errors.length === 0 && insertionsInsideFlow(indented, reading)) {
      document = indented;
      text = reading.text;
      margin = reading;
    }
  }
  const written = (offset: number): number => (margin === undefined ? offset : writtenOffset(margin, offset));
  const rangeOf = (start: number, end: number): Range => index.range(baseOffset + written(start), baseOffset + written(end));
  // A node's range runs to where the next token starts: a block value (a list, a `|` scalar) would end at
  // column 1 of the next line. Findings end at the value's last character instead.
  const valueRangeOf = (start: number, end: number): Range => {
    let last = end;
    while (last > start && /\s/.test(text[last - 1] ?? "")) last--;
    return rangeOf(start, last);
  };
  const problems: YamlProblem[] = [];
  const seenLines = new Set<number>();
  const first = document.errors[0];
  if (first !== undefined && document.errors.some((error) => isStackExhaustion(error.message))) {
    return [{ ruleId: "skill/yaml-unsupported", range: rangeOf(first.pos[0], first.pos[1]), message: NESTING_MESSAGE }];
  }
  const unclosed = first === undefined ? undefined : unclosedConstruct(yamlText, first.message, first.pos[0]);
  // An unclosed `[` or quote: one finding where it opens; what the parser said after it follows from it.
  if (unclosed !== undefined) return [{ ruleId: "skill/yaml-syntax", range: index.characterAt(baseOffset + unclosed.offset), message: unclosed.message }];
  for (const error of document.errors) {
    const start = error.pos[0];
    let end = error.pos[1];
    let key = "";
    if (error.code === "DUPLICATE_KEY") {
      // yaml points at the key's first character; widen to the whole key as written.
      key = /^(?:"[^"\n]*"|'[^'\n]*'|[^:\n]*[^:\s])/.exec(yamlText.slice(start))?.[0] ?? "";
      end = Math.max(end, start + key.length);
    } else if (error.code === "BLOCK_AS_IMPLICIT_KEY") {
      // yaml points at the value's first character; the finding spans the value to quote, to its line's end,
      // so an editor shows the ": " inside it (a long description's is far from where the value starts).
      const lineEnd = yamlText.indexOf("\n", start);
      const value = yamlText.slice(start, lineEnd === -1 ? yamlText.length : lineEnd).replace(/\s+$/, "");
      if (value.includes(": ")) end = Math.max(end, start + value.length);
    }
    // A point the parser names by one code unit covers its whole character (never half an emoji).
    const range = end > start + 1 ? rangeOf(start, end) : index.characterAt(baseOffset + start);
    // One YAML mistake often cascades into several errors on the same line.
    if (seenLines.has(range.start.line)) continue;
    seenLines.add(range.start.line);
    problems.push(error.code === "MULTIPLE_DOCS" ? secondDocument(text, start, range) : describeYamlError(error.code, error.message, range, key));
  }
  for (const warning of document.warnings) {
    if (warning.code !== "TAG_RESOLVE_FAILED") continue;
    const tag = text.slice(warning.pos[0], warning.pos[1]).split(/\s/)[0] ?? "";
    problems.push({ ruleId: "skill/yaml-unsupported", range: rangeOf(warning.pos[0], warning.pos[1]), message: `Unexpected YAML tag ${tag}, expected a plain value without a tag` });
  }
  if (problems.length > 0) return problems;
  const walker = new TreeWalker(document, valueRangeOf);
  const value = walker.walk(document.contents, "", undefined);
  if (walker.problem) return [walker.problem];
  return { value, valueRanges: walker.valueRanges, keyRanges: walker.keyRanges, ...(margin === undefined ? {} : { margin }) };
}

/**
 * Every line the reading indented lies inside a quoted value or a flow collection as the library read the
 * indented text, where leading spaces stand for nothing: the value is the one the text as written stands for.
 */
function insertionsInsideFlow(document: Document, reading: MarginReading): boolean {
  const { isCollection, isScalar, visit } = yamlLibrary();
  const spans: Array<[number, number]> = [];
  visit(document, (_key, node) => {
    if (!node || typeof node !== "object" || !("range" in node) || !node.range) return;
    if ((isScalar(node) && (node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE")) || (isCollection(node) && node.flow === true)) {
      spans.push([node.range[0], node.range[1]]);
      // Nothing inside a flow collection or a quoted value needs a look of its own.
      return visit.SKIP;
    }
    return undefined;
  });
  let shift = 0;
  return reading.insertions.every(({ at, count }) => {
    const start = at + shift;
    shift += count;
    return spans.some(([from, to]) => from < start && start + count <= to);
  });
}

/**
 * A second YAML document inside the frontmatter. The library's own message names its API
 * ("please use YAML.parseAllDocuments()"); the author needs the line that starts it: a line beginning
 * with `---` (such as a stray `--- Apache-2.0`; `---` alone would have closed the frontmatter), or text
 * after a `...` line, which ends the first document.
 */
function secondDocument(text: string, start: number, range: Range): YamlProblem {
  const lineEnd = text.indexOf("\n", start);
  const line = text.slice(start, lineEnd === -1 ? text.length : lineEnd).trimEnd();
  if (line.startsWith("---")) {
    return {
      ruleId: "skill/yaml-syntax",
      range,
      message: `Unexpected line ${quoted(line)} inside the frontmatter: a line that starts with "---" is a YAML document marker, which starts a second document, expected one mapping of keys: remove the line or write what follows "---" as a key's value (key: text); if the line is meant to close the frontmatter, leave "---" alone on it`,
    };
  }
  if (/(?:^|\n)\.\.\.(?:[ \t][^\n]*)?\n[\s\S]*$/.test(text.slice(0, start))) {
    return {
      ruleId: "skill/yaml-syntax",
      range,
      message: `Unexpected text after a "..." line inside the frontmatter: "..." at the start of a line is a YAML document end marker, and what follows it is a second document, expected one mapping of keys: remove the "..." line`,
    };
  }
  return { ruleId: "skill/yaml-syntax", range, message: "Unexpected second YAML document inside the frontmatter, expected one mapping of keys up to its closing \"---\"" };
}

function describeYamlError(code: string, message: string, range: Range, key: string): YamlProblem {
  // The parser's message can quote the rest of the line (a megabyte, in a hostile file): cut to a readable length.
  const reason = shortened((message.split("\n")[0] ?? message).trim().replace(/\.$/, ""), PARSER_REASON_LIMIT);
  switch (code) {
    case "TAB_AS_INDENT":
      return { ruleId: "skill/yaml-tab-indent", range, message: "Unexpected tab used for indentation, expected spaces" };
    case "DUPLICATE_KEY":
      return { ruleId: "skill/yaml-duplicate-key", range, message: `Unexpected second ${/^["']/.test(key) ? key : `"${key}"`} key, expected each key once per mapping` };
    case "BLOCK_AS_IMPLICIT_KEY":
      return { ruleId: "skill/yaml-syntax", range, message: `Unexpected YAML syntax (${reason}), expected a quoted value where a value contains ": "` };
    default:
      return { ruleId: "skill/yaml-syntax", range, message: `Unexpected YAML syntax (${reason}), expected valid YAML 1.2` };
  }
}

class TreeWalker {
  readonly valueRanges = new Map<string, Range>();
  readonly keyRanges = new Map<string, Range>();
  problem: YamlProblem | undefined;
  private aliasNodes = 0;

  constructor(
    private readonly document: Document,
    private readonly rangeOf: (start: number, end: number) => Range,
  ) {}

  /**
   * Converts a node to plain data. `inherited` is the range of the alias the
   * node was reached through: values inside an expansion point at the alias.
   */
  walk(node: unknown, pointer: string, inherited: Range | undefined): unknown {
    if (this.problem) return undefined;
    if (node === null || node === undefined) return null;
    const yamlNode = node as Node;
    const ownRange = yamlNode.range ? this.rangeOf(yamlNode.range[0], yamlNode.range[1]) : undefined;
    const range = inherited ?? ownRange;
    if (range && !this.valueRanges.has(pointer)) this.valueRanges.set(pointer, range);
    if (inherited && ++this.aliasNodes > MAX_ALIAS_NODES) {
      this.problem = { ruleId: "skill/yaml-alias-limit", range: inherited, message: `Unexpected alias expanding to more than ${MAX_ALIAS_NODES} nodes, expected plain values without deep aliases` };
      return undefined;
    }
    const { isAlias, isMap, isScalar, isSeq } = yamlLibrary();
    if (isAlias(node)) {
      const target = node.resolve(this.document);
      const aliasRange = range ?? this.rangeOf(0, 0);
      if (!target) {
        this.problem = { ruleId: "skill/yaml-unsupported", range: aliasRange, message: `Unexpected alias *${node.source} without a matching anchor, expected an anchor &${node.source} before it` };
        return undefined;
      }
      return this.walk(target, pointer, aliasRange);
    }
    if (isScalar(node)) return node.value;
    if (isSeq(node)) {
      return node.items.map((item, position) => this.walk(item, `${pointer}/${position}`, inherited));
    }
    if (isMap(node)) {
      const result: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      for (const pair of node.items) {
        const key = pair.key;
        if (!isScalar(key)) {
          const keyRange = (key as Node | null)?.range;
          this.problem = {
            ruleId: "skill/yaml-unsupported",
            range: inherited ?? (keyRange ? this.rangeOf(keyRange[0], keyRange[1]) : this.rangeOf(0, 0)),
            message: "Unexpected collection or alias used as a key, expected a plain key",
          };
          return undefined;
        }
        const name = String(key.value);
        const child = `${pointer}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`;
        const keyRange = inherited ?? (key.range ? this.rangeOf(key.range[0], key.range[1]) : undefined);
        if (keyRange) this.keyRanges.set(child, keyRange);
        const value = pair.value as Node | null;
        // An empty value (`name:`) has an empty range; point at its key instead.
        if (!inherited && keyRange && (!value?.range || value.range[0] === value.range[1])) this.valueRanges.set(child, keyRange);
        result[name] = this.walk(value, child, inherited);
      }
      return result;
    }
    return null;
  }
}
