/**
 * How deep a YAML text nests block collections by indentation, read one line
 * at a time without recursion. Only lines that open a collection entry count:
 * `- ` items (several on one line nest: `- - x`) and plain `key:` keys. The
 * count is a floor of the real depth: where a line could be read two ways
 * (a quoted or tagged key, a sequence written at its key's indentation, text
 * continuing a plain value), it counts the smaller; it never counts a level
 * the parser would not build. Block scalar (`|`, `>`) content opens nothing.
 */

export interface BlockOpener {
  /** Offset of the `-` or of the key's first character. */
  offset: number;
  /** The level the entry's collection is at (the outermost collection is level 1). */
  depth: number;
}

export interface BlockLine {
  /** The entries the line opens, outermost first. */
  openers: BlockOpener[];
  /** The level of the collections around what follows the openers on the line (a flow collection there is one deeper); 0 where the line is no entry. */
  depth: number;
  /** The line is block scalar content: nothing in it opens anything. */
  scalarContent: boolean;
}

const NOTHING: BlockLine = { openers: [], depth: 0, scalarContent: false };

type Kind = "sequence" | "mapping";

interface OpenCollection {
  column: number;
  kind: Kind;
}

export class BlockNesting {
  /**
   * The block collections open at the current line, outermost first: each
   * more indented than the one before, or a sequence written at the column
   * of the key it is the value of (`key:` then `- item` below it).
   */
  private readonly open: OpenCollection[] = [];
  /** Column of the innermost entry of the last entry line: a more indented line belongs to that entry's value. */
  private parentColumn = -1;
  /** The last entry's value is still to come on a later, more indented line (it was empty, or only an anchor or tag). */
  private valueBelow = true;
  /** Column of the entry whose block scalar runs on; its content lines are more indented. */
  private scalarParent: number | undefined;

  /** Reads the block line that starts at `lineStart` (one not inside a flow collection or a quoted value). */
  line(text: string, lineStart: number): BlockLine {
    let at = lineStart;
    while (text[at] === " ") at++;
    const column = at - lineStart;
    const here = text[at];
    if (here === undefined || here === "\n" || here === "#") return NOTHING;
    if (this.scalarParent !== undefined) {
      if (column > this.scalarParent) return { ...NOTHING, scalarContent: true };
      this.scalarParent = undefined;
    }
    if (column === 0 && /^(?:---|\.\.\.)(?:[ \t\n]|$)/.test(text.slice(at, at + 4))) {
      // A document marker: a new document starts from nothing.
      this.open.length = 0;
      this.parentColumn = -1;
      this.valueBelow = true;
      return NOTHING;
    }
    const belowEntry = column > this.parentColumn;
    if (belowEntry && !this.valueBelow) return NOTHING; // text continuing the last entry's value
    const firstKind: Kind = text[at] === "-" && isSeparator(text[at + 1]) ? "sequence" : "mapping";
    // A key at the column of a sequence that was its mapping's value ends that sequence.
    while ((this.top()?.column ?? -1) > column || (this.top()?.column === column && this.top()?.kind !== firstKind && this.open.at(-2)?.column === column)) this.open.pop();
    const top = this.top();
    const compactSequence = top?.column === column && top.kind === "mapping" && firstKind === "sequence" && this.valueBelow && this.parentColumn === column;
    const sameCollection = top?.column === column && !compactSequence;
    if (!sameCollection && !belowEntry && !compactSequence) {
      // Indented as no open collection is: the parser decides what it is; count nothing.
      this.afterValue(column);
      return NOTHING;
    }
    const openers: BlockOpener[] = [];
    let innermost = column;
    const open = (offset: number, kind: Kind): void => {
      const entryColumn = offset - lineStart;
      if (openers.length > 0 || !sameCollection) this.open.push({ column: entryColumn, kind });
      openers.push({ offset, depth: this.open.length });
      innermost = entryColumn;
    };
    while (text[at] === "-" && isSeparator(text[at + 1])) {
      open(at, "sequence");
      at++;
      while (text[at] === " " || text[at] === "\t") at++;
    }
    const colon = plainKeyColon(text, at);
    if (colon !== undefined) {
      open(at, "mapping");
      at = colon + 1;
      while (text[at] === " " || text[at] === "\t") at++;
    }
    const depth = this.open.length;
    if (openers.length === 0) {
      // A value on its own line (`key:` then `  [a, b]` or `  |`): inside the collections around it.
      if (isBlockScalarIndicator(text, at)) this.scalarParent = this.parentColumn;
      this.afterValue(column);
      return { openers, depth: belowEntry ? depth : 0, scalarContent: false };
    }
    this.parentColumn = innermost;
    this.valueBelow = false;
    if (isBlockScalarIndicator(text, at)) this.scalarParent = innermost;
    else this.valueBelow = onlyPropertiesLeft(text, at);
    return { openers, depth, scalarContent: false };
  }

  private top(): OpenCollection | undefined {
    return this.open.at(-1);
  }

  /** After a line that opens no entry: more indented lines continue its text. */
  private afterValue(column: number): void {
    this.parentColumn = Math.min(this.parentColumn, column);
    this.valueBelow = false;
  }
}

function isSeparator(char: string | undefined): boolean {
  return char === undefined || char === " " || char === "\t" || char === "\n";
}

/** Characters that cannot start a plain key: flow and quote indicators, anchors, tags, aliases, block scalars, comments, directives. */
const NOT_A_PLAIN_KEY_START = new Set(["[", "]", "{", "}", ",", "#", "&", "*", "!", "|", ">", "'", '"', "%", "@", "`", "?", ":", "-", " ", "\t", "\n"]);

/** The offset of the `:` that ends a plain key starting at `at` (`name: x`, `name:`), or undefined when the line does not start with one. */
function plainKeyColon(text: string, at: number): number | undefined {
  const first = text[at];
  if (first === undefined) return undefined;
  // `-x`, `?x` and `:x` start plain text; the same indicators followed by a space do not.
  if (NOT_A_PLAIN_KEY_START.has(first) && !((first === "-" || first === "?" || first === ":") && !isSeparator(text[at + 1]))) return undefined;
  for (let position = at + 1; position < text.length; position++) {
    const char = text[position];
    if (char === "\n") return undefined;
    if (char === "#" && (text[position - 1] === " " || text[position - 1] === "\t")) return undefined;
    if (char === ":" && isSeparator(text[position + 1])) return position;
  }
  return undefined;
}

/** `|` or `>` with its optional indentation and chomping indicators, then a space, a comment or the line's end. */
function isBlockScalarIndicator(text: string, at: number): boolean {
  if (text[at] !== "|" && text[at] !== ">") return false;
  let position = at + 1;
  while (/[0-9+-]/.test(text[position] ?? "")) position++;
  return isSeparator(text[position]);
}

/** Nothing but an anchor or a tag (or nothing) before the line's end or comment: the value is on the lines below. */
function onlyPropertiesLeft(text: string, at: number): boolean {
  let position = at;
  for (;;) {
    const char = text[position];
    if (char === undefined || char === "\n" || char === "#") return true;
    if (char !== "&" && char !== "!") return false;
    while (!isSeparator(text[position])) position++;
    while (text[position] === " " || text[position] === "\t") position++;
  }
}
