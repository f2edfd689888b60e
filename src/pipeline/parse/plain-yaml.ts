import { CORE_SCHEMA_NON_STRING, stringValue } from "./plain-frontmatter.js";

/**
 * A reader for the plain YAML data files a project keeps in prompts/
 * (variants.yaml, injections.yaml): block mappings and sequences of plain or
 * simply quoted single-line strings, `[]`, `{}`, one-line lists of plain
 * names (`[a, b]`) and whole-line comments. It gives exactly the value the
 * YAML library gives (a test holds the two to one answer over every fixture
 * and near misses made from them), without loading that library: `check` of a
 * small project is mostly start-up, and the library's load is a large share.
 *
 * It reads values only: where a finding needs a position, the caller parses
 * the same text with the library then. Anything else returns undefined and
 * goes to the library: anchors, aliases, tags, block and multi-line scalars,
 * escapes, flow mappings, trailing comments, tabs, carriage returns, empty
 * values (null), duplicate keys, document markers, and every plain value that
 * YAML's core schema reads as something other than a string.
 */

interface Line {
  indent: number;
  /** The line after its indentation. */
  text: string;
}

const KEY = /^([A-Za-z][A-Za-z0-9_-]*):(?: +(.*))?$/;
const ITEM = /^-(?:( +)(.*))?$/;
const FLOW_NAME = /^[A-Za-z0-9][A-Za-z0-9_./-]*$/;

/** Thrown inside the reader when the library must decide; never escapes it. */
const UNSETTLED = Symbol("unsettled");

export function readPlainYaml(text: string): { value: unknown } | undefined {
  if (/[\t\r]/.test(text)) return undefined;
  const lines: Line[] = [];
  for (const line of text.split("\n")) {
    const indent = /^ */.exec(line)?.[0].length ?? 0;
    const content = line.slice(indent);
    if (content === "" || content.startsWith("#")) continue; // blank lines and whole-line comments carry no value
    lines.push({ indent, text: content });
  }
  const first = lines[0];
  if (!first || first.indent !== 0) return undefined;
  const reader = new BlockReader(lines);
  try {
    const value = reader.block(0);
    return reader.done() ? { value } : undefined;
  } catch (thrown) {
    if (thrown === UNSETTLED) return undefined;
    throw thrown;
  }
}

class BlockReader {
  private next = 0;

  constructor(private readonly lines: Line[]) {}

  done(): boolean {
    return this.next === this.lines.length;
  }

  /** The mapping or sequence whose first line is the next one, at `indent`. */
  block(indent: number): unknown {
    const line = this.lines[this.next];
    if (!line || line.indent !== indent) throw UNSETTLED;
    return ITEM.test(line.text) ? this.sequence(indent) : this.mapping(indent);
  }

  private mapping(indent: number): Record<string, unknown> {
    const entries: Record<string, unknown> = {};
    for (let line = this.lines[this.next]; line && line.indent === indent; line = this.lines[this.next]) {
      const entry = KEY.exec(line.text);
      if (!entry) throw UNSETTLED;
      const key = entry[1] ?? "";
      if (CORE_SCHEMA_NON_STRING.test(key) || Object.prototype.hasOwnProperty.call(entries, key)) throw UNSETTLED;
      this.next++;
      entries[key] = entry[2] === undefined ? this.nested(indent, true) : scalar(entry[2]);
    }
    this.expectOutdent(indent);
    return entries;
  }

  private sequence(indent: number): unknown[] {
    const items: unknown[] = [];
    for (let line = this.lines[this.next]; line && line.indent === indent; line = this.lines[this.next]) {
      const item = ITEM.exec(line.text);
      if (!item) break; // a mapping's next key after a list at the key's own indent
      const content = item[2];
      if (content === undefined) {
        this.next++;
        items.push(this.nested(indent, false));
      } else if (KEY.test(content) || ITEM.test(content)) {
        // `- key: value` opens a mapping (and `- - x` a list) at the column of its content.
        const column = indent + 1 + (item[1] ?? "").length;
        this.lines[this.next] = { indent: column, text: content };
        items.push(this.block(column));
      } else {
        this.next++;
        items.push(scalar(content));
      }
    }
    this.expectOutdent(indent);
    return items;
  }

  /** The value under a `key:` or `-` line with nothing after it: a deeper block, or a list at a key's own indent. */
  private nested(indent: number, underKey: boolean): unknown {
    const line = this.lines[this.next];
    if (line && line.indent > indent) return this.block(line.indent);
    if (underKey && line && line.indent === indent && ITEM.test(line.text)) return this.sequence(indent);
    throw UNSETTLED; // nothing under it: a null
  }

  /** A block ends where a line is less indented; a deeper line there is a continuation or an error. */
  private expectOutdent(indent: number): void {
    const line = this.lines[this.next];
    if (line && line.indent > indent) throw UNSETTLED;
  }
}

function scalar(written: string): unknown {
  if (written === "[]") return [];
  if (written === "{}") return {};
  if (written.startsWith("[") && written.endsWith("]")) {
    const names = written.slice(1, -1).split(", ");
    if (names.some((name) => !FLOW_NAME.test(name) || CORE_SCHEMA_NON_STRING.test(name))) throw UNSETTLED;
    return names;
  }
  const value = stringValue(written);
  if (value === undefined) throw UNSETTLED;
  return value;
}
