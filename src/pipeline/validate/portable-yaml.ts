import type { Range } from "../../diagnostics/diagnostic.js";
import type { FrontmatterSplit } from "../parse/frontmatter.js";
import { isMapping, type ParsedSkillFile } from "../parse/parse.js";
import type { LineIndex } from "../parse/positions.js";
import { readPlainFrontmatter } from "../parse/plain-frontmatter.js";
import { yamlLibrary } from "../parse/yaml-library.js";
import { writtenOffset, type MarginConstruct, type MarginReading } from "../parse/yaml-margin.js";
import { portableAllowedTools } from "./allowed-tools.js";

/**
 * Frontmatter that YAML 1.2 reads but the Agent Skills reference validator
 * (skills-ref, which parses with strictyaml) cannot. Each construct here was
 * run through skills-ref: flow collections (`[]`, `[a, b]`, `{}`), anchors,
 * aliases and tags are refused outright; a tab is refused anywhere but inside
 * quotes, block scalars and comments; and the validator ends the frontmatter
 * at the first `---` it finds, even inside a value or a comment, so it reads
 * something other than what was written; a file that starts with a byte
 * order mark does not start with `---` for it. A fix is attached where the value
 * stays exactly the same (a one-line flow list or mapping of plain words
 * written as a block, a tab between tokens written as a space).
 *
 * The other way round: a quoted value or a flow collection whose later lines
 * start left of the key that holds it is read by skills-ref, PyYAML and
 * js-yaml, but refused by a YAML 1.2 parser that keeps to the specification's
 * indentation (parse/yaml-margin.ts). gamma-prompt reads it as the others do,
 * and says where the first such line of each value is.
 */

/** One construct, where it is written, and the edit that writes it portably (offsets into the normalised text), or the byte order mark to drop. */
export interface PortableYamlProblem {
  range: Range;
  message: string;
  fix?: { start: number; end: number; insert: string } | "drop-byte-order-mark";
}

const WHY = "the Agent Skills reference validator (skills-ref) cannot read it";
/** Characters every refused construct except `---` starts with: a frontmatter without them needs no parse. */
const MAY_NEED_PARSE = /[[{&*!\t]/;

interface CstNode {
  type: string;
  offset: number;
  source?: string;
  indent?: number;
  [part: string]: unknown;
}

/** The top-level `allowed-tools` value as read, and where it is written. */
export interface AllowedToolsValue {
  value: unknown;
  range: Range;
}

/** The top-level `allowed-tools` value and where it is written, when the frontmatter has one. */
export function allowedToolsOf(parsed: ParsedSkillFile): AllowedToolsValue | undefined {
  const { tree } = parsed;
  const range = tree?.valueRanges.get("/allowed-tools");
  if (!tree || !range || !isMapping(tree.value)) return undefined;
  return { value: tree.value["allowed-tools"], range };
}

/**
 * A flow-style list written as `allowed-tools` is not advised as a block list
 * where one space-separated string can hold it: the specification wants that
 * string (as skill/allowed-tools-format says), and it is portable YAML too.
 * Its rewrite is that rule's, so such a finding has no fix of its own here.
 */
export function portableYamlProblems(split: FrontmatterSplit, index: LineIndex, byteOrderMark = false, allowedTools?: AllowedToolsValue, margin?: MarginReading): PortableYamlProblem[] {
  const text = index.text;
  const yamlText = text.slice(split.yamlStart, split.yamlEnd);
  const problems: PortableYamlProblem[] = [];
  for (const construct of margin?.constructs ?? []) problems.push(marginProblem(construct, split.yamlStart, index));
  if (byteOrderMark) {
    problems.push({
      range: split.opening,
      message: `Unexpected byte order mark before the opening "---", expected the file to start with "---": the Agent Skills reference validator (skills-ref) and quick_validate.py cannot read it`,
      fix: "drop-byte-order-mark",
    });
  }
  const dashes = yamlText.indexOf("---");
  if (dashes !== -1) {
    const at = split.yamlStart + dashes;
    problems.push({
      range: index.range(at, at + 3),
      message: `Unexpected "---" inside the frontmatter, expected it only on the closing line: the Agent Skills reference validator (skills-ref) ends the frontmatter at the first "---" it finds`,
    });
  }
  if (!MAY_NEED_PARSE.test(yamlText)) return problems;
  // Frontmatter the plain reader takes holds no anchor, tag, tab or flow collection but `key: []`: no YAML library needed.
  if (readPlainFrontmatter(yamlText, split.yamlStart, index)) {
    for (const match of yamlText.matchAll(/^[A-Za-z][A-Za-z0-9_-]*: (\[\])$/gm)) {
      const at = split.yamlStart + (match.index ?? 0) + match[0].length - 2;
      problems.push({ range: index.range(at, at + 2), message: `Unexpected flow-style list "[]", expected the key left out (an empty value): ${WHY}` });
    }
    return problems;
  }
  const { Parser } = yamlLibrary();
  const toFile = fileOffsets(split, margin);
  for (const document of new Parser().parse(margin?.text ?? yamlText)) walk(document as unknown as CstNode, (node) => visit(node, text, toFile, index, problems, allowedTools));
  return problems.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.column - b.range.start.column);
}

/** Offsets into the text the parser reads (the frontmatter, or its margin reading) as offsets into the file's normalised text. */
function fileOffsets(split: FrontmatterSplit, margin: MarginReading | undefined): (offset: number) => number {
  return (offset) => split.yamlStart + (margin === undefined ? offset : writtenOffset(margin, offset));
}

const CONSTRUCTS: Record<MarginConstruct["opener"], string> = { '"': "a quoted value", "'": "a quoted value", "[": "a flow-style list", "{": "a flow-style mapping" };

/** The first line of a value that YAML 1.2 refuses at its column. */
function marginProblem(construct: MarginConstruct, base: number, index: LineIndex): PortableYamlProblem {
  const at = base + construct.first;
  const column = index.position(at).column;
  const more = construct.lines > 1 ? ` (and ${construct.lines - 1} more of its lines)` : "";
  const holder = construct.holder === "key" ? "the key" : "the `-`";
  return {
    range: index.characterAt(at),
    message: `Unexpected line of ${CONSTRUCTS[construct.opener]} at column ${column}${more}, expected it indented past ${holder} that holds the value (column ${construct.column} or further): a strict YAML 1.2 parser (such as the npm package yaml) refuses the frontmatter, though skills-ref, PyYAML and js-yaml read it`,
  };
}

/** Every comment in the frontmatter, as offsets into the normalised text (from `#` to the end of its line). */
export function frontmatterComments(split: FrontmatterSplit, index: LineIndex, margin?: MarginReading): Array<{ start: number; end: number }> {
  const yamlText = index.text.slice(split.yamlStart, split.yamlEnd);
  if (!yamlText.includes("#")) return [];
  const comments: Array<{ start: number; end: number }> = [];
  const { Parser } = yamlLibrary();
  const toFile = fileOffsets(split, margin);
  for (const document of new Parser().parse(margin?.text ?? yamlText)) {
    walk(document as unknown as CstNode, (node) => {
      if (node.type === "comment") comments.push({ start: toFile(node.offset), end: toFile(node.offset + (node.source ?? "").length) });
      return true;
    });
  }
  return comments.sort((a, b) => a.start - b.start);
}

/** Returns false when the node's inside needs no further look (a flow collection is reported once, whole). */
function visit(node: CstNode, text: string, toFile: (offset: number) => number, index: LineIndex, problems: PortableYamlProblem[], allowedTools?: AllowedToolsValue): boolean {
  const start = toFile(node.offset);
  const source = node.source ?? "";
  switch (node.type) {
    case "flow-collection": {
      const end = toFile(flowEnd(node));
      const written = text.slice(start, end);
      const empty = /^[[{]\s*[\]}]$/.test(written);
      const kind = written.startsWith("[") ? "list" : "mapping";
      const range = index.range(start, end);
      const toolsAdvice = !empty && kind === "list" && allowedTools !== undefined && samePosition(range, allowedTools.range) ? portableAllowedTools(allowedTools.value) : undefined;
      if (toolsAdvice !== undefined) {
        problems.push({ range, message: `Unexpected flow-style list ${quote(written)} for "allowed-tools" (the Agent Skills reference validator, skills-ref, cannot read it), expected ${toolsAdvice}` });
        return false;
      }
      const expected = empty ? "the key left out (an empty value)" : kind === "list" ? `a block list (one "- item" line each)` : `a block mapping (one "key: value" line each)`;
      const problem: PortableYamlProblem = { range, message: `Unexpected flow-style ${kind} ${quote(written)}, expected ${expected}: ${WHY}` };
      const fix = empty ? undefined : blockFix(node, text, start, end);
      if (fix) problem.fix = fix;
      problems.push(problem);
      return false;
    }
    case "anchor":
    case "alias":
      problems.push({ range: index.range(start, toFile(node.offset + source.length)), message: `Unexpected ${node.type} ${quote(source)}, expected the value written out in full: ${WHY}` });
      return true;
    case "tag":
      problems.push({ range: index.range(start, toFile(node.offset + source.length)), message: `Unexpected tag ${quote(source)}, expected the value without a tag: ${WHY}` });
      return true;
    case "space":
      if (source.includes("\t")) {
        const end = toFile(node.offset + source.length);
        const after = text[end];
        // A tab between tokens stands for nothing: a space (or nothing at the end of a line) reads the same.
        problems.push({ range: index.range(start, end), message: `Unexpected tab, expected a space: ${WHY}`, fix: { start, end, insert: after === "\n" || after === undefined ? "" : " " } });
      }
      return true;
    case "scalar": {
      const tab = source.indexOf("\t");
      if (tab !== -1) problems.push({ range: index.range(toFile(node.offset + tab), toFile(node.offset + tab + 1)), message: `Unexpected tab inside an unquoted value, expected the value quoted or a space instead: ${WHY}` });
      return true;
    }
    default:
      return true;
  }
}

function samePosition(a: Range, b: Range): boolean {
  return a.start.line === b.start.line && a.start.column === b.start.column;
}

/** Visits every CST node (documents, collections, their items' parts, scalars and source tokens) in source order. */
function walk(node: CstNode, visitor: (node: CstNode) => boolean): void {
  if (!visitor(node)) return;
  for (const part of ["start", "props", "key", "sep", "value", "items", "end"]) {
    const child = node[part];
    if (Array.isArray(child)) {
      for (const item of child as unknown[]) {
        if (isNode(item)) walk(item, visitor);
        // A collection item: { start, key?, sep?, value? }.
        else if (typeof item === "object" && item !== null) for (const inner of ["start", "key", "sep", "value"]) visitItemPart((item as Record<string, unknown>)[inner], visitor);
      }
    } else if (isNode(child)) walk(child, visitor);
  }
}

function visitItemPart(part: unknown, visitor: (node: CstNode) => boolean): void {
  if (Array.isArray(part)) for (const token of part as unknown[]) if (isNode(token)) walk(token, visitor);
  if (isNode(part)) walk(part, visitor);
}

function isNode(value: unknown): value is CstNode {
  return typeof value === "object" && value !== null && typeof (value as CstNode).type === "string" && typeof (value as CstNode).offset === "number";
}

/** The offset just past a flow collection's closing bracket. */
function flowEnd(node: CstNode): number {
  const end = (node["end"] as CstNode[] | undefined) ?? [];
  const closing = end.find((token) => token.type === "flow-seq-end" || token.type === "flow-map-end");
  return closing ? closing.offset + 1 : node.offset + 1;
}

/**
 * `key: [a, "b c"]` on one line as a block list under the key, each item as
 * written (quotes kept); `key: {a: b}` as a block mapping. Only when the
 * key is alone on its line before the collection and every item is one
 * scalar on that line: anything else (nesting, comments, a list item that
 * holds the collection) keeps the finding without a fix.
 */
function blockFix(node: CstNode, text: string, start: number, end: number): PortableYamlProblem["fix"] {
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  const lead = /^( *)[^\s#:][^#\n]*?:( +)$/.exec(text.slice(lineStart, start));
  const lineEnd = text.indexOf("\n", end);
  if (!lead || text.slice(end, lineEnd === -1 ? text.length : lineEnd).includes("\n")) return undefined;
  const indent = `${lead[1] ?? ""}  `;
  const lines: string[] = [];
  const list = text[start] === "[";
  for (const item of (node["items"] as Array<Record<string, unknown>>) ?? []) {
    const value = item["value"];
    const key = item["key"];
    const parts = [...((item["start"] as CstNode[] | undefined) ?? []), ...((item["sep"] as CstNode[] | undefined) ?? [])];
    if (parts.some((token) => token.type !== "comma" && token.type !== "space" && token.type !== "map-value-ind")) return undefined;
    const scalar = (candidate: unknown): string | undefined =>
      isNode(candidate) && ["scalar", "single-quoted-scalar", "double-quoted-scalar"].includes(candidate.type) && !/[\n\t]/.test(candidate.source ?? "") ? candidate.source : undefined;
    const written = scalar(value);
    if (written === undefined || (list ? key !== undefined : scalar(key) === undefined)) return undefined;
    lines.push(list ? `${indent}- ${written}` : `${indent}${scalar(key) ?? ""}: ${written}`);
  }
  if (lines.length === 0) return undefined;
  const spaces = lead[2] ?? "";
  return { start: start - spaces.length, end, insert: `\n${lines.join("\n")}` };
}

function quote(written: string): string {
  const short = written.length > 40 ? `${written.slice(0, 40)}…` : written;
  return JSON.stringify(short);
}
