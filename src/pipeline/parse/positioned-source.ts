import { jsonSyntaxError } from "./json-error-offset.js";
import type { Document, DocumentOptions, LineCounter, Node, ParseOptions } from "yaml";
import { createDiagnostic, FILE_START, type Diagnostic, type Range } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../stage-data.js";
import { readPlainYaml } from "./plain-yaml.js";
import { yamlLibrary } from "./yaml-library.js";
import { isStackExhaustion, jsonNestingOverflow, MAX_NESTING_DEPTH, NESTING_MESSAGE } from "./nesting.js";
import { LineIndex } from "./positions.js";
import { yamlNestingOverflow, unclosedConstruct } from "./yaml-unclosed.js";
import { messageOf } from "../../protocol/error-message.js";
import { PARSER_REASON_LIMIT, shortened } from "../../diagnostics/quote.js";

/**
 * A parsed YAML or JSON source that remembers where each value came from, so
 * schema errors and cross-reference errors point at the offending key or item.
 * JSON files are located through the YAML parser (JSON is YAML 1.2) but their
 * values come from JSON.parse, so JSON's stricter syntax still applies.
 * Positions are worked out on first use: they are needed only to report a
 * finding, and a clean source never loads the YAML library for them.
 */
export interface PositionedSource {
  file: string;
  value: unknown;
  readonly document: Document.Parsed;
  readonly lineCounter: LineCounter;
}

export type PathSegment = string | number;

const YAML_OPTIONS = { prettyErrors: false, uniqueKeys: true } as const;

const SECOND_DOCUMENT_MESSAGE =
  'Unexpected second YAML document: a line that starts with "---" (a document marker), or text after a "..." line (a document end), starts another, expected one document: remove that line, or write its text as a value';

export function parseYamlSource(source: SourceFile): PositionedSource | Diagnostic {
  // Both readers recurse per level: a deeper source is refused before either reads it.
  const tooDeep = yamlNestingOverflow(source.text, MAX_NESTING_DEPTH);
  if (tooDeep !== undefined) return createDiagnostic("source/invalid-yaml", source.path, new LineIndex(source.text).range(tooDeep, tooDeep + 1), NESTING_MESSAGE);
  // Plain data (the usual prompts/ files) is read without the library, to the same value.
  const plain = readPlainYaml(source.text);
  if (plain) return positioned(source, plain.value, YAML_OPTIONS);
  const { LineCounter, parseDocument } = yamlLibrary();
  const lineCounter = new LineCounter();
  const document = parseDocument(source.text, { lineCounter, ...YAML_OPTIONS });
  const error = document.errors[0];
  if (error) {
    // Positions from the text itself: the library's line counter misses a line break inside a token that spans lines.
    const lines = new LineIndex(source.text);
    const unclosed = unclosedConstruct(source.text, error.message, error.pos[0]);
    if (unclosed !== undefined) return createDiagnostic("source/invalid-yaml", source.path, lines.characterAt(unclosed.offset), unclosed.message);
    const range = error.pos[1] > error.pos[0] + 1 ? lines.range(error.pos[0], error.pos[1]) : lines.characterAt(error.pos[0]);
    if (document.errors.some((each) => isStackExhaustion(each.message))) return createDiagnostic("source/invalid-yaml", source.path, range, NESTING_MESSAGE);
    // The library's message names its own API ("please use YAML.parseAllDocuments()"): say what the file holds.
    if (error.code === "MULTIPLE_DOCS") return createDiagnostic("source/invalid-yaml", source.path, range, SECOND_DOCUMENT_MESSAGE);
    return createDiagnostic("source/invalid-yaml", source.path, range, `Unexpected YAML syntax: ${firstLine(error.message)}`);
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
  } catch (thrown) {
    return createDiagnostic("source/invalid-yaml", source.path, FILE_START, `Unexpected YAML content: ${firstLine(messageOf(thrown))}`);
  }
  return { file: source.path, value, document, lineCounter };
}

export function parseJsonSource(source: SourceFile): PositionedSource | Diagnostic {
  const tooDeep = jsonNestingOverflow(source.text);
  if (tooDeep !== undefined) return createDiagnostic("source/invalid-json", source.path, new LineIndex(source.text).range(tooDeep, tooDeep + 1), NESTING_MESSAGE);
  let value: unknown;
  try {
    value = JSON.parse(source.text);
  } catch (thrown) {
    const { offset, message } = jsonSyntaxError(source.text, thrown);
    return createDiagnostic("source/invalid-json", source.path, new LineIndex(source.text).characterAt(offset), `Unexpected JSON syntax: ${message}`);
  }
  return positioned(source, value, { uniqueKeys: false });
}

/** A source whose value is known; its document and line positions are parsed when a finding first asks. */
function positioned(source: SourceFile, value: unknown, options: ParseOptions & DocumentOptions): PositionedSource {
  let parsed: { document: Document.Parsed; lineCounter: LineCounter } | undefined;
  const positions = (): { document: Document.Parsed; lineCounter: LineCounter } => {
    if (!parsed) {
      const { LineCounter, parseDocument } = yamlLibrary();
      const lineCounter = new LineCounter();
      parsed = { document: parseDocument(source.text, { lineCounter, ...options }), lineCounter };
    }
    return parsed;
  };
  return {
    file: source.path,
    value,
    get document(): Document.Parsed {
      return positions().document;
    },
    get lineCounter(): LineCounter {
      return positions().lineCounter;
    },
  };
}

/** The range of the value at `path`, or of its key when `key` is set; falls back to the nearest ancestor. */
export function rangeAt(located: PositionedSource, path: readonly PathSegment[], key = false): Range {
  const { isMap, isNode, isPair, isSeq } = yamlLibrary();
  let node: unknown = located.document.contents;
  let found: Node | undefined = isNode(node) ? node : undefined;
  for (let index = 0; index < path.length; index++) {
    const segment = path[index];
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && String(scalarValue(item.key)) === String(segment));
      if (!pair) break;
      const last = index === path.length - 1;
      if (last && key && isNode(pair.key)) return nodeRange(located, pair.key);
      node = pair.value;
    } else if (isSeq(node) && typeof segment === "number") {
      node = node.items[segment];
    } else {
      break;
    }
    if (isNode(node)) found = node;
    else break;
  }
  return found ? nodeRange(located, found) : FILE_START;
}

export function offsetsToRange(lineCounter: LineCounter, start: number, end: number): Range {
  const from = lineCounter.linePos(start);
  const to = lineCounter.linePos(Math.max(start, end));
  return { start: { line: from.line, column: from.col }, end: { line: to.line, column: to.col } };
}

export function valueAt(value: unknown, path: readonly PathSegment[]): unknown {
  let current = value;
  for (const segment of path) {
    if (typeof current !== "object" || current === null) return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function nodeRange(located: PositionedSource, node: Node): Range {
  const range = node.range;
  if (!range) return FILE_START;
  return offsetsToRange(located.lineCounter, range[0], range[1]);
}

function scalarValue(node: unknown): unknown {
  return yamlLibrary().isScalar(node) ? node.value : node;
}

/** A parser's message, its first line, bounded (it can quote the rest of a line of any length). */
function firstLine(text: string): string {
  return shortened((text.split("\n")[0] ?? text).trim(), PARSER_REASON_LIMIT);
}
