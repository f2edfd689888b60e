import type { Range } from "../../diagnostics/diagnostic.js";
import type { LineIndex } from "./positions.js";
import type { MarginReading } from "./yaml-margin.js";

/**
 * A reader for the frontmatter most skills have: `key: value` lines whose
 * values are single-line strings (plain, or quoted without escapes), lists
 * of such strings (or `[]`), and one level of nested mapping (metadata,
 * a knowledge note's appliesTo) whose keys are indented by two and whose values are such strings or
 * lists indented by four, or whose keys are indented by four and whose values are all such strings. It gives
 * exactly the tree and ranges the YAML library gives for the same text (a
 * test holds the two to one answer over every fixture and the real skill
 * collections), without loading that library: a lint of a few skills is
 * mostly start-up, and the library's load is a large share of it.
 *
 * It reads a top-level block scalar too (`description: |`, `>-`) in its
 * simplest shape (see readBlockScalar), a top-level plain value wrapped onto
 * the lines under its key (readPlainLines), and a top-level `true` or `false`.
 *
 * Anything else returns undefined and goes to the full YAML parser: quotes,
 * comments, other block scalars, flow collections, anchors, tags, nested
 * mappings, blank lines, tabs, duplicate keys, and every other plain value
 * that YAML's core schema reads as something other than a string (null,
 * numbers). validate/portable-yaml.ts relies on this: frontmatter this reader
 * answers holds no flow collection but `[]`, no anchor, tag or tab.
 */

/** Frontmatter as plain data with ranges: what both this reader and the full YAML parser (yaml-tree.ts) give. */
export interface YamlTree {
  value: unknown;
  /** JSON pointer -> range of the value (or, for an empty value, of its key). */
  valueRanges: Map<string, Range>;
  /** JSON pointer -> range of the key that holds the value. */
  keyRanges: Map<string, Range>;
  /**
   * Set when the text was read with the lines of a quoted value or a flow collection indented past the margin
   * YAML 1.2 sets for them (yaml-margin.ts), as PyYAML, js-yaml and skills-ref read it; its offsets are into the
   * frontmatter's text. The ranges above are where the text is written.
   */
  margin?: MarginReading;
}

const KEY_LINE = /^([A-Za-z][A-Za-z0-9_-]*):(?: (.*))?$/;
/** A key of the nested mapping, indented by two, or by four when its values are all single-line (a list then takes the library). */
const NESTED_KEY_LINE = /^( {2}| {4})([A-Za-z][A-Za-z0-9_-]*): (.+)$/;
const ITEM_LINE = /^( {0,2})- (.*)$/;
const NESTED_OPEN_LINE = /^ {2}([A-Za-z][A-Za-z0-9_-]*):$/;
const NESTED_ITEM_LINE = /^ {4}- (.*)$/;
/** Characters a plain scalar may not start with, or that make YAML read it another way. */
const UNSAFE_START = /^(?:[?:,[\]{}#&*!|>'"%@`\s~]|-(?:\s|$))/;
/** Inside a value: ": " or " #" change the meaning, a trailing ":" or whitespace changes the range, controls and tabs are not plain. */
const UNSAFE_INSIDE = /: | #|:$|\s$|[\u0000-\u001f\u007f\u0085\u2028\u2029\ufeff]/;
/** Plain values YAML 1.2's core schema reads as null, a boolean or a number. */
export const CORE_SCHEMA_NON_STRING =
  /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
/** Quoted on one line, with nothing that needs unescaping. */
const QUOTED = /^(?:"([^"\\\u0000-\u001f\u007f\u0085\u2028\u2029\ufeff]*)"|'([^'\u0000-\u001f\u007f\u0085\u2028\u2029\ufeff]*)')$/;

/** The string a single-line value stands for, or undefined when the full parser must decide. */
export function stringValue(written: string): string | undefined {
  const quoted = QUOTED.exec(written);
  if (quoted) return quoted[1] ?? quoted[2];
  if (written === "" || UNSAFE_START.test(written) || UNSAFE_INSIDE.test(written) || CORE_SCHEMA_NON_STRING.test(written)) return undefined;
  return written;
}

/** A block scalar's header as most frontmatter writes it: literal or folded, clipped or stripped, no indentation indicator, no comment. */
const BLOCK_HEADER = /^[|>]-?$/;
/** What a block scalar line in this reader may not hold: tabs and other controls, and line breaks YAML 1.1 knew. */
const UNSAFE_IN_BLOCK = /[\u0000-\u001f\u007f\u0085\u2028\u2029\ufeff]/;

/**
 * A top-level block scalar (`description: |` or `>-` and the lines under it)
 * in its simplest shape: every line indented by the first one's indent and
 * none ending in a space (a folded one: none indented further either), no
 * blank line in it or after it, and the next line a top-level key. Then
 * YAML's value is the lines without that indent, joined by line feeds
 * (literal) or spaces (folded), with one line feed after them unless the
 * header strips it; the range runs from the header to the last character.
 */
function readBlockScalar(yamlText: string, from: number, header: string): { value: string; end: number; next: number } | undefined {
  const lines: string[] = [];
  let indent = 0;
  let end = from;
  for (const { line, spaces, lineEnd } of linesUnderKey(yamlText, from)) {
    if (lines.length === 0) indent = spaces;
    if (spaces < indent || spaces === line.length || line.endsWith(" ") || UNSAFE_IN_BLOCK.test(line)) return undefined;
    if (header.startsWith(">") && spaces !== indent) return undefined;
    lines.push(line.slice(indent));
    end = lineEnd;
  }
  if (lines.length === 0) return undefined;
  const text = lines.join(header.startsWith(">") ? " " : "\n");
  return { value: header.endsWith("-") ? text : `${text}\n`, end, next: end + 1 };
}

/** The lines from `from` up to the next one that starts at the margin (a top-level key), each with its offsets and its indent in spaces. */
function* linesUnderKey(yamlText: string, from: number): Generator<{ offset: number; lineEnd: number; line: string; spaces: number }> {
  for (let offset = from; offset < yamlText.length; ) {
    const lineEnd = yamlText.indexOf("\n", offset);
    const line = yamlText.slice(offset, lineEnd);
    const spaces = /^ */.exec(line)?.[0].length ?? 0;
    if (spaces === 0 && line !== "") return;
    yield { offset, lineEnd, line, spaces };
    offset = lineEnd + 1;
  }
}

/**
 * A plain value written on the lines under its `key:` (a long description
 * wrapped by hand): YAML folds them into one line, each line's indent
 * dropped and the lines joined by spaces. Read only when every line is
 * indented, none is blank, and each would be a plain string on its own
 * (so none starts a comment, a quote or a list, or holds ": ").
 */
function readPlainLines(yamlText: string, from: number): { value: string; start: number; end: number; next: number } | undefined {
  const words: string[] = [];
  let start = from;
  let end = from;
  for (const { offset, line, spaces, lineEnd } of linesUnderKey(yamlText, from)) {
    const text = line.slice(spaces);
    if (spaces === 0 || stringValue(text) !== text) return undefined;
    if (words.length === 0) start = offset + spaces;
    words.push(text);
    end = lineEnd;
  }
  return words.length === 0 ? undefined : { value: words.join(" "), start, end, next: end + 1 };
}

/** The plain values YAML's core schema reads as booleans. */
const BOOLEANS = new Map<string, boolean>([
  ["true", true],
  ["True", true],
  ["TRUE", true],
  ["false", false],
  ["False", false],
  ["FALSE", false],
]);

export function readPlainFrontmatter(yamlText: string, baseOffset: number, index: LineIndex): YamlTree | undefined {
  if (yamlText === "" || !yamlText.endsWith("\n")) return undefined;
  const rangeOf = (start: number, end: number): Range => index.range(baseOffset + start, baseOffset + end);
  const value = Object.create(null) as Record<string, unknown>;
  const valueRanges = new Map<string, Range>();
  const keyRanges = new Map<string, Range>();
  let list: { pointer: string; items: string[]; start: number; end: number; indent: number } | undefined;
  let mapping: { pointer: string; entries: Record<string, unknown>; start: number; end: number; indent: number } | undefined;
  /** A list inside the nested mapping, and a nested `key:` line waiting for its first item. */
  let nestedList: { pointer: string; items: string[]; start: number; end: number } | undefined;
  let nestedOpened: { key: string; pointer: string } | undefined;
  /** A `key:` line with nothing after it: the next line says whether a list or a mapping follows. */
  let opened: { key: string; pointer: string } | undefined;
  const closeNestedList = (): void => {
    if (nestedList) valueRanges.set(nestedList.pointer, rangeOf(nestedList.start, nestedList.end));
    nestedList = undefined;
  };
  const closeBlock = (): void => {
    closeNestedList();
    if (list) valueRanges.set(list.pointer, rangeOf(list.start, list.end));
    if (mapping) valueRanges.set(mapping.pointer, rangeOf(mapping.start, mapping.end));
    list = undefined;
    mapping = undefined;
  };
  let offset = 0;
  while (offset < yamlText.length) {
    let lineEnd = yamlText.indexOf("\n", offset);
    const line = yamlText.slice(offset, lineEnd);
    const item = ITEM_LINE.exec(line);
    const nested = item ? undefined : NESTED_KEY_LINE.exec(line);
    const nestedOpen = item || nested ? undefined : NESTED_OPEN_LINE.exec(line);
    const nestedItem = item || nested || nestedOpen ? undefined : NESTED_ITEM_LINE.exec(line);
    if (opened && item) {
      const items: string[] = [];
      value[opened.key] = items;
      list = { pointer: opened.pointer, items, start: 0, end: 0, indent: 0 };
      opened = undefined;
    } else if (opened && (nested || nestedOpen)) {
      const entries = Object.create(null) as Record<string, unknown>;
      value[opened.key] = entries;
      const indent = nested ? (nested[1] ?? "").length : 2;
      mapping = { pointer: opened.pointer, entries, start: offset + indent, end: 0, indent };
      opened = undefined;
    } else if (opened) {
      // `key:` with a plain value on the lines under it; with nothing under it, a null the full parser reports.
      const plain = readPlainLines(yamlText, offset);
      if (plain === undefined) return undefined;
      value[opened.key] = plain.value;
      valueRanges.set(opened.pointer, rangeOf(plain.start, plain.end));
      opened = undefined;
      offset = plain.next;
      continue;
    }
    if (nestedOpened && !nestedItem) return undefined; // a nested `key:` with nothing under it is a null too
    if (nestedItem) {
      if (!mapping || (!nestedOpened && !nestedList)) return undefined;
      if (nestedOpened) {
        const items: string[] = [];
        mapping.entries[nestedOpened.key] = items;
        nestedList = { pointer: nestedOpened.pointer, items, start: offset + 4, end: 0 };
        nestedOpened = undefined;
      }
      const current = nestedList as NonNullable<typeof nestedList>;
      const text = nestedItem[1] ?? "";
      const itemValue = stringValue(text);
      if (itemValue === undefined) return undefined;
      const itemStart = offset + 6;
      valueRanges.set(`${current.pointer}/${current.items.length}`, rangeOf(itemStart, itemStart + text.length));
      current.items.push(itemValue);
      current.end = itemStart + text.length;
      mapping.end = current.end;
    } else if ((nested || nestedOpen) && mapping) {
      closeNestedList();
      // Every key of a mapping at its one indent; a nested list only under the keys indented by two.
      const indent = nested ? (nested[1] ?? "").length : 2;
      if (indent !== mapping.indent) return undefined;
      const key = (nested ? nested[2] : nestedOpen?.[1]) ?? "";
      if (Object.prototype.hasOwnProperty.call(mapping.entries, key)) return undefined;
      const pointer = `${mapping.pointer}/${key}`;
      keyRanges.set(pointer, rangeOf(offset + indent, offset + indent + key.length));
      if (nested) {
        const written = nested[3] ?? "";
        const scalar = stringValue(written);
        if (scalar === undefined) return undefined;
        const start = offset + indent + key.length + 2;
        valueRanges.set(pointer, rangeOf(start, start + written.length));
        mapping.entries[key] = scalar;
        mapping.end = start + written.length;
      } else {
        nestedOpened = { key, pointer };
      }
    } else if (item) {
      const indent = (item[1] ?? "").length;
      const text = item[2] ?? "";
      const itemValue = stringValue(text);
      if (!list || (list.items.length > 0 && indent !== list.indent) || itemValue === undefined) return undefined;
      if (list.items.length === 0) {
        list.indent = indent;
        list.start = offset + indent;
      }
      const itemStart = offset + indent + 2;
      valueRanges.set(`${list.pointer}/${list.items.length}`, rangeOf(itemStart, itemStart + text.length));
      list.items.push(itemValue);
      list.end = itemStart + text.length;
    } else {
      closeBlock();
      const entry = KEY_LINE.exec(line);
      if (!entry) return undefined;
      const key = entry[1] ?? "";
      const text = entry[2];
      if (Object.prototype.hasOwnProperty.call(value, key)) return undefined;
      const pointer = `/${key}`;
      keyRanges.set(pointer, rangeOf(offset, offset + key.length));
      if (text === undefined) opened = { key, pointer };
      else if (text === "") return undefined; // `key: ` with a trailing space
      else if (BLOCK_HEADER.test(text)) {
        const block = readBlockScalar(yamlText, lineEnd + 1, text);
        if (block === undefined) return undefined;
        value[key] = block.value;
        valueRanges.set(pointer, rangeOf(offset + key.length + 2, block.end));
        lineEnd = block.next - 1;
      } else if (text === "[]") {
        value[key] = [];
        const start = offset + key.length + 2;
        valueRanges.set(pointer, rangeOf(start, start + 2));
      } else {
        const scalar = stringValue(text) ?? BOOLEANS.get(text);
        if (scalar === undefined) return undefined;
        value[key] = scalar;
        const start = offset + key.length + 2;
        valueRanges.set(pointer, rangeOf(start, start + text.length));
      }
    }
    offset = lineEnd + 1;
  }
  if (opened || nestedOpened) return undefined;
  closeBlock();
  // The whole mapping, as the full parser gives it: from its first key to its last character.
  valueRanges.set("", rangeOf(0, yamlText.length - 1));
  return { value, valueRanges, keyRanges };
}
