import { verifies, type OrderedListShape } from "./body-shape.js";

/**
 * A line scanner for the Markdown that skill bodies are made of: headings,
 * paragraphs, fenced code, thematic breaks and top-level lists whose items
 * hold paragraphs, code and nested bullets. For that subset it finds the same
 * ordered lists as a full CommonMark parse at a fraction of the cost. On
 * anything outside the subset (HTML blocks, block quotes, tabs in indentation,
 * nested ordered lists, setext headings, entities, ...) it returns undefined
 * and the caller falls back to the full parser, so the answer never depends
 * on which path ran.
 */
export function scanOrderedLists(lines: readonly string[], firstLine: number): OrderedListShape[] | undefined {
  try {
    return new Scanner(firstLine).run(lines);
  } catch (error) {
    if (error === BAIL) return undefined;
    throw error;
  }
}

const BAIL = Symbol("outside the scanner's subset");
const bail = (): never => {
  throw BAIL;
};

type LineKind = "blank" | "paragraph" | "other";

interface Fence {
  char: string;
  length: number;
  /** Content indent of the list item holding the fence; 0 at top level. */
  base: number;
}

interface OpenList {
  ordered: boolean;
  /** `.` or `)` for ordered lists, the bullet character otherwise. */
  delimiter: string;
  /** Content indent of the current item: lines indented this far belong to it. */
  contentIndent: number;
  /** The current item holds a nested bullet list, so deeper indentation is ambiguous here. */
  nested: boolean;
  shape: OrderedListShape | undefined;
  itemText: string;
}

const ORDERED = /^( {0,3})(\d{1,9})([.)])(?:( +)(.*))?$/;
const BULLET = /^( {0,3})([-*+])(?:( +)(.*))?$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const THEMATIC = /^ {0,3}([-*_])(?:[ ]*\1){2,}[ ]*$/;
const SETEXT = /^ {0,3}(?:=+|-+)[ ]*$/;
const HEADING = /^ {0,3}#{1,6}(?:[ ]|$)/;
/** Starts of blocks the scanner does not model. */
const UNMODELLED = /^ {0,3}(?:[<>]|\[[^\]]*\]:)/;
/** Constructs whose rendered text differs from their source text. */
const ENTITY_OR_REFERENCE = /&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);|\]\[/i;
/**
 * Every block pattern above allows at most three leading spaces before its
 * first character, so the character after a line's leading spaces decides
 * which of them can match at all: most prose lines skip every regex.
 */
const BLOCK_START_CHARS = "<>[`~=-*_#+0123456789";
const THEMATIC_START_CHARS = "-*_";
const BULLET_START_CHARS = "-*+";

/** The character after `indent` leading spaces, or "" when no block pattern can match there. */
function blockStart(line: string, indent: number): string {
  if (indent > 3) return "";
  const first = line.charAt(indent);
  return BLOCK_START_CHARS.includes(first) ? first : "";
}

const isDigit = (char: string): boolean => char >= "0" && char <= "9";

class Scanner {
  private readonly lists: OrderedListShape[] = [];
  private fence: Fence | undefined;
  private list: OpenList | undefined;
  private previous: LineKind = "blank";
  /** Top-level indented code is open (blank lines keep it open): like a paragraph, only a list at 1 may follow it. */
  private indentedCode = false;

  constructor(private readonly firstLine: number) {}

  run(lines: readonly string[]): OrderedListShape[] {
    lines.forEach((line, position) => this.line(line, this.firstLine + position));
    this.closeList();
    return this.lists;
  }

  private line(line: string, lineNumber: number): void {
    const indent = leadingSpaces(line);
    const blank = indent === line.length;
    if (this.fence && this.inFence(line, indent, blank)) return;
    if (blank) {
      this.previous = "blank";
      return;
    }
    const afterCode = this.indentedCode;
    this.indentedCode = false;
    if (this.list && indent >= this.list.contentIndent) {
      this.itemLine(line.slice(this.list.contentIndent), indent - this.list.contentIndent);
      return;
    }
    const first = blockStart(line, indent);
    if (first !== "" && THEMATIC_START_CHARS.includes(first) && THEMATIC.test(line)) {
      // A thematic break, or after a top-level paragraph a setext underline: either way no list continues.
      this.closeList();
      this.previous = "other";
      return;
    }
    const ordered = isDigit(first) ? ORDERED.exec(line) : null;
    if (ordered) return this.orderedMarker(ordered, lineNumber, afterCode);
    const bullet = first !== "" && BULLET_START_CHARS.includes(first) ? BULLET.exec(line) : null;
    if (bullet) return this.bulletMarker(bullet);
    if (this.list) {
      if (this.previous === "paragraph" && (first === "" || isPlainText(line))) {
        // A lazy continuation line of the item's paragraph.
        this.list.itemText += `\n${line}`;
        return;
      }
      this.closeList();
    }
    this.topLevel(line, indent, first);
  }

  /** Handles a line while a fence is open; false when the line ended the fence's list item. */
  private inFence(line: string, indent: number, blank: boolean): boolean {
    const fence = this.fence as Fence;
    if (!blank && fence.base > 0 && indent < fence.base) {
      // Code is never lazy: a less indented line ends the item and the fence with it.
      this.fence = undefined;
      this.previous = "other";
      return false;
    }
    const content = line.slice(fence.base);
    const closing = FENCE.exec(content);
    if (closing?.[1] && closing[1][0] === fence.char && closing[1].length >= fence.length && closing[2]?.trim() === "") {
      this.fence = undefined;
      this.previous = "other";
    }
    if (this.list && fence.base > 0) this.list.itemText += `\n${content}`;
    return true;
  }

  private itemLine(content: string, relativeIndent: number): void {
    const list = this.list as OpenList;
    const text = content.trimStart();
    if (relativeIndent >= 4) {
      // Indented code, or a continuation line; with nested bullets it could be either.
      if (list.nested || /^(?:`{3}|~{3})/.test(text)) bail();
      if (this.previous !== "paragraph") this.previous = "other";
    } else if (blockStart(content, relativeIndent) === "") {
      this.previous = "paragraph";
    } else {
      if (UNMODELLED.test(content) || ORDERED.test(content)) bail();
      const fence = FENCE.exec(content);
      if (fence?.[1]) this.openFence(fence[1], fence[2] ?? "", list.contentIndent);
      else if (SETEXT.test(content) && this.previous === "paragraph") bail();
      else if (THEMATIC.test(content) || HEADING.test(content)) this.previous = "other";
      else if (BULLET.test(content)) {
        const rest = BULLET.exec(content)?.[4] ?? "";
        if (rest.trim() === "" || startsBlock(rest)) bail();
        list.nested = true;
        this.previous = "paragraph";
      } else this.previous = "paragraph";
    }
    list.itemText += `\n${text}`;
  }

  private orderedMarker(match: RegExpExecArray, lineNumber: number, afterCode: boolean): void {
    const [, spaces = "", digits = "", delimiter = "", gap = "", rest = ""] = match;
    if (rest.trim() === "" || gap.length > 4 || startsBlock(rest)) bail();
    const list = this.list;
    if (list && list.ordered && list.delimiter === delimiter) {
      this.finishItem();
      list.shape?.items.push({ line: lineNumber, verifies: false });
    } else {
      if (list?.ordered) bail(); // a change of delimiter starts a new list only in some cases
      if (!list && Number(digits) !== 1) {
        // Whether a list not starting at 1 may follow indented code differs between parsers' readings of the spec.
        if (afterCode) bail();
        // Only a list starting at 1 may interrupt a top-level paragraph; otherwise this is paragraph text.
        // (A paragraph inside a list item is not interrupted: the marker line is outside that item.)
        if (this.previous === "paragraph") return;
      }
      this.closeList();
      const shape: OrderedListShape = { line: lineNumber, column: spaces.length + 1, items: [{ line: lineNumber, verifies: false }] };
      this.list = { ordered: true, delimiter, contentIndent: 0, nested: false, shape, itemText: "" };
    }
    const open = this.list as OpenList;
    open.contentIndent = spaces.length + digits.length + 1 + gap.length;
    open.nested = false;
    open.itemText = rest;
    this.previous = "paragraph";
  }

  private bulletMarker(match: RegExpExecArray): void {
    const [, spaces = "", bullet = "", gap = "", rest = ""] = match;
    if (rest.trim() === "" || gap.length > 4 || startsBlock(rest)) bail();
    const list = this.list;
    if (!(list && !list.ordered && list.delimiter === bullet)) {
      this.closeList();
      this.list = { ordered: false, delimiter: bullet, contentIndent: 0, nested: false, shape: undefined, itemText: "" };
    }
    const open = this.list as OpenList;
    open.contentIndent = spaces.length + 1 + gap.length;
    open.nested = false;
    open.itemText = "";
    this.previous = "paragraph";
  }

  private topLevel(line: string, indent: number, first: string): void {
    if (indent >= 4) {
      // Indented code, unless it continues a paragraph; neither can start a list.
      if (this.previous !== "paragraph") {
        this.previous = "other";
        this.indentedCode = true;
      }
      return;
    }
    if (first === "") {
      this.previous = "paragraph";
      return;
    }
    if (UNMODELLED.test(line)) bail();
    const fence = FENCE.exec(line);
    if (fence?.[1]) {
      this.openFence(fence[1], fence[2] ?? "", 0);
      return;
    }
    if (HEADING.test(line) || (SETEXT.test(line) && this.previous === "paragraph")) {
      this.previous = "other";
      return;
    }
    this.previous = "paragraph";
  }

  private openFence(marker: string, info: string, base: number): void {
    // A backtick fence's info string may not contain backticks; such a line is inline code.
    if (marker[0] === "`" && info.includes("`")) bail();
    this.fence = { char: marker[0] ?? "`", length: marker.length, base };
    this.previous = "other";
  }

  private finishItem(): void {
    const list = this.list;
    const item = list?.shape?.items.at(-1);
    if (!list || !item) return;
    if (ENTITY_OR_REFERENCE.test(list.itemText)) bail();
    item.verifies = verifies(withoutDestinations(list.itemText));
  }

  private closeList(): void {
    if (!this.list) return;
    this.finishItem();
    if (this.list.shape) this.lists.push(this.list.shape);
    this.list = undefined;
    if (this.fence && this.fence.base > 0) this.fence = undefined;
  }
}

function leadingSpaces(line: string): number {
  let count = 0;
  while (count < line.length && line.charCodeAt(count) === 32) count++;
  // Tabs in indentation, or after a list marker, expand to tab stops; the scanner leaves that to the full parser.
  if (line.charCodeAt(count) === 9 || (line.includes("\t") && TAB_AFTER_MARKER.test(line))) bail();
  return count;
}

const TAB_AFTER_MARKER = /^ *(?:\d{1,9}[.)]|[-*+]) *\t/;

/** An item's first line that opens a block other than a paragraph. */
function startsBlock(rest: string): boolean {
  return /^(?:[`~]{3}|#{1,6}(?:\s|$)|[<>]|[-*+](?:\s|$)|\d{1,9}[.)](?:\s|$)|\[[^\]]*\]:)/.test(rest) || THEMATIC.test(rest) || SETEXT.test(rest);
}

function isPlainText(line: string): boolean {
  return !(HEADING.test(line) || FENCE.test(line) || UNMODELLED.test(line) || THEMATIC.test(line));
}

/**
 * Link destinations removed (`[a](x)` reads `[a]`): what replacing
 * `/\]\([^)]*\)/g` with `]` gives, in one pass (when no `)` follows one
 * `](`, none follows a later one).
 */
function withoutDestinations(text: string): string {
  let result = "";
  let from = 0;
  for (let at = text.indexOf("]("); at !== -1; at = text.indexOf("](", from)) {
    const end = text.indexOf(")", at + 2);
    if (end === -1) break;
    result += `${text.slice(from, at)}]`;
    from = end + 1;
  }
  return result + text.slice(from);
}
