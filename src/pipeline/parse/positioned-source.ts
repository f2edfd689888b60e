import { isMap, isNode, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from "yaml";
import { createDiagnostic, FILE_START, type Diagnostic, type Range } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../stage-data.js";

/**
 * A parsed YAML or JSON source that remembers where each value came from, so
 * schema errors and cross-reference errors point at the offending key or item.
 * JSON files are located through the YAML parser (JSON is YAML 1.2) but their
 * values come from JSON.parse, so JSON's stricter syntax still applies.
 */
export interface PositionedSource {
  file: string;
  value: unknown;
  /** Parsed on first use for JSON sources: positions are needed only to report a finding. */
  readonly document: Document.Parsed;
  readonly lineCounter: LineCounter;
}

export type PathSegment = string | number;

export function parseYamlSource(source: SourceFile): PositionedSource | Diagnostic {
  const lineCounter = new LineCounter();
  const document = parseDocument(source.text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const error = document.errors[0];
  if (error) {
    const range = offsetsToRange(lineCounter, error.pos[0], error.pos[1]);
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
  const lineCounter = new LineCounter();
  let value: unknown;
  try {
    value = JSON.parse(source.text);
  } catch (thrown) {
    const message = messageOf(thrown);
    const position = /position (\d+)/.exec(message);
    const offset = position ? Number(position[1]) : 0;
    parseDocument(source.text, { lineCounter });
    const range = offsetsToRange(lineCounter, offset, offset + 1);
    return createDiagnostic("source/invalid-json", source.path, range, `Unexpected JSON syntax: ${firstLine(message).replace(/ in JSON at position \d+.*$/, "")}`);
  }
  let document: Document.Parsed | undefined;
  return {
    file: source.path,
    value,
    lineCounter,
    get document(): Document.Parsed {
      document ??= parseDocument(source.text, { lineCounter, uniqueKeys: false });
      return document;
    },
  };
}

/** The range of the value at `path`, or of its key when `key` is set; falls back to the nearest ancestor. */
export function rangeAt(located: PositionedSource, path: readonly PathSegment[], key = false): Range {
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
  return isScalar(node) ? node.value : node;
}



function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? text).trim();
}
