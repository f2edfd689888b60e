/**
 * The block structure of a Markdown body as CommonMark (and GFM) reads it,
 * in one pass over its lines: which block quotes and list items are open on
 * each line, and where the headings are (ATX `## …` and setext, a paragraph
 * underlined with `===` or `---`). Fenced and indented code, HTML blocks and
 * thematic breaks hold no containers, so a `>` or `-` inside them nests
 * nothing. The work per line is bounded by the line's length and the open
 * containers, which the caller's depth limit bounds: the pass is linear.
 *
 * Not modelled, each only ever hiding a container or a heading, never making
 * one up: GFM footnote definitions (their indented content reads as code
 * here), and link reference definitions before a setext underline.
 */

/** A heading; `line` is the 0-based index of its text line (a setext heading's first line). */
export interface HeadingBlock {
  line: number;
  /** 1 to 6; a setext heading is 1 (`===`) or 2 (`---`). */
  level: number;
  /** The heading's inline content: the closing `#`s of an ATX heading and the indentation of a setext one removed, lines joined by a space. */
  text: string;
  /** Inside a block quote. */
  quoted: boolean;
}

export interface BlockOutline {
  headings: HeadingBlock[];
  /** 0-based index of the first line on which more than `maxDepth` block quotes and list items are open; the pass stops there. */
  tooDeep?: number;
}

type Container = { kind: "quote" } | { kind: "item"; width: number; hasContent: boolean };

type Leaf =
  | { kind: "none" }
  | { kind: "paragraph"; line: number; text: string[] }
  | { kind: "fence"; char: string; length: number }
  | { kind: "indented" }
  | { kind: "html"; end: RegExp | undefined };

const NO_LEAF: Leaf = { kind: "none" };
const FENCE_OPEN = /^(`{3,}|~{3,})(.*)$/;
/** Tried at a position of the line (sticky): a list item may have started before it. */
const THEMATIC = /(?:(?:\*[ ]*){3,}|(?:-[ ]*){3,}|(?:_[ ]*){3,})$/y;
const SETEXT = /(?:=+|-+)[ ]*$/y;
const ORDERED = /^(\d{1,9})[.)]/;
/** HTML block starts 1 to 6 and, for 1 to 5, the text that ends them (6 ends at a blank line). */
const HTML_STARTS: Array<[RegExp, RegExp | undefined]> = [
  [/^<(?:script|pre|style|textarea)(?:[ >]|$)/i, /<\/(?:script|pre|style|textarea)>/i],
  [/^<!--/, /-->/],
  [/^<\?/, /\?>/],
  [/^<![A-Za-z]/, />/],
  [/^<!\[CDATA\[/, /\]\]>/],
  [
    /^<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[ >]|\/>|$)/i,
    undefined,
  ],
];

/** Lines split at line feeds; a carriage return before the feed, or alone, ends a line too. */
export function outlineBlocks(lines: readonly string[], maxDepth: number): BlockOutline {
  const outline = new Outliner(maxDepth);
  for (let index = 0; index < lines.length && outline.tooDeep === undefined; index++) {
    const whole = lines[index] ?? "";
    const line = whole.endsWith("\r") ? whole.slice(0, -1) : whole;
    if (!line.includes("\r")) outline.line(line, index);
    else for (const part of line.split("\r")) if (outline.tooDeep === undefined) outline.line(part, index);
  }
  return { headings: outline.headings, ...(outline.tooDeep === undefined ? {} : { tooDeep: outline.tooDeep }) };
}

class Outliner {
  readonly headings: HeadingBlock[] = [];
  tooDeep: number | undefined;
  private containers: Container[] = [];
  private leaf: Leaf = NO_LEAF;

  constructor(private readonly maxDepth: number) {}

  line(raw: string, index: number): void {
    const text = raw.includes("\t") ? expandTabs(raw) : raw;
    // Nothing but spaces from `at` on: the rest of the line is blank.
    let last = text.length - 1;
    while (last >= 0 && text.charCodeAt(last) === 32) last--;
    const blankFrom = (at: number): boolean => last < at;
    let pos = 0;
    let matched = 0;
    for (const container of this.containers) {
      if (container.kind === "quote") {
        const indent = spacesAt(text, pos);
        if (indent > 3 || text.charAt(pos + indent) !== ">") break;
        pos += indent + 1;
        if (text.charAt(pos) === " ") pos++;
      } else if (blankFrom(pos)) {
        if (!container.hasContent) break;
      } else {
        if (spacesAt(text, pos) < container.width) break;
        pos += container.width;
      }
      matched++;
    }
    const allMatched = matched === this.containers.length;
    // A list item that interrupts a paragraph must have text and, if ordered, start at 1. The GFM parser
    // (micromark) holds every list item opened later on the line to the same, inside the first one too, and
    // treats a line after indented code (blank lines between included) as interrupting it.
    const interrupting = allMatched && (this.leaf.kind === "paragraph" || this.leaf.kind === "indented");
    if (allMatched && this.continueLeaf(text, pos, blankFrom(pos))) return;
    const paragraph = this.leaf.kind === "paragraph" ? this.leaf : undefined;
    let opened = false;
    // The paragraph is the innermost block on this line until a block starts: only then does it limit what may start.
    const inParagraph = (): boolean => paragraph !== undefined && !opened && allMatched;
    const open = (): void => {
      if (opened) return;
      opened = true;
      this.containers.length = matched;
      this.leaf = NO_LEAF;
    };
    const push = (next: Container): boolean => {
      open();
      this.containers.push(next);
      matched = this.containers.length;
      if (this.containers.length > this.maxDepth) this.tooDeep = index;
      return this.tooDeep === undefined;
    };
    for (;;) {
      const indent = spacesAt(text, pos);
      const at = pos + indent;
      if (indent >= 4) {
        if ((paragraph === undefined || opened) && !blankFrom(at)) {
          open();
          this.leaf = { kind: "indented" };
          return this.markContent();
        }
        break;
      }
      const first = text.charAt(at);
      if (first === ">") {
        pos = at + 1;
        if (text.charAt(pos) === " ") pos++;
        if (!push({ kind: "quote" })) return;
        continue;
      }
      if (first === "#" || first === "`" || first === "~" || first === "<") {
        if (this.leafStart(text.slice(at), index, inParagraph(), open)) return this.markContent();
        break;
      }
      if (inParagraph() && paragraph && (first === "=" || first === "-") && matchesAt(SETEXT, text, at)) {
        this.headings.push({ line: paragraph.line, level: first === "=" ? 1 : 2, text: paragraph.text.join(" ").trim(), quoted: this.quoted() });
        this.leaf = NO_LEAF;
        return;
      }
      if ((first === "*" || first === "-" || first === "_") && matchesAt(THEMATIC, text, at)) {
        open();
        return this.markContent();
      }
      const item = listItem(text, at, indent, interrupting, blankFrom);
      if (!item) break;
      pos = item.contentAt;
      if (!push({ kind: "item", width: item.width, hasContent: false })) return;
    }
    if (blankFrom(pos)) {
      open();
      return;
    }
    const content = text.slice(pos).trim();
    // A line no block start claimed continues the open paragraph: lazily when some container did not match.
    if (!opened && paragraph) {
      paragraph.text.push(content);
      return;
    }
    open();
    this.leaf = { kind: "paragraph", line: index, text: [content] };
    this.markContent();
  }

  /** An ATX heading, a code fence or an HTML block starting `rest`; `open` closes what this line did not continue. */
  private leafStart(rest: string, index: number, interrupting: boolean, open: () => void): boolean {
    const first = rest.charAt(0);
    if (first === "#") {
      const level = atxLevel(rest);
      if (level === 0) return false;
      open();
      this.headings.push({ line: index, level, text: atxText(rest.slice(level)), quoted: this.quoted() });
      return true;
    }
    if (first === "<") {
      const end = htmlStart(rest, interrupting);
      if (end === false) return false;
      open();
      // Types 1 to 5 may end on the line that starts them.
      if (!(end && end.test(rest))) this.leaf = { kind: "html", end };
      return true;
    }
    const fence = FENCE_OPEN.exec(rest);
    if (!fence || (first === "`" && (fence[2] ?? "").includes("`"))) return false;
    open();
    this.leaf = { kind: "fence", char: first, length: (fence[1] ?? "").length };
    return true;
  }

  /** Whether the open leaf takes the whole line (code and HTML do; a paragraph takes it only when no block starts). */
  private continueLeaf(text: string, pos: number, blank: boolean): boolean {
    const leaf = this.leaf;
    if (leaf.kind === "fence") {
      const indent = spacesAt(text, pos);
      const at = pos + indent;
      if (indent <= 3 && text.charAt(at) === leaf.char) {
        let end = at;
        while (text.charAt(end) === leaf.char) end++;
        if (end - at >= leaf.length && isBlank(text, end)) this.leaf = NO_LEAF;
      }
      return true;
    }
    if (leaf.kind === "indented") {
      if (blank || spacesAt(text, pos) >= 4) return true;
      this.leaf = NO_LEAF;
      return false;
    }
    if (leaf.kind === "html") {
      if (leaf.end === undefined) {
        if (blank) this.leaf = NO_LEAF;
      } else if (leaf.end.test(text.slice(pos))) this.leaf = NO_LEAF;
      return true;
    }
    if (leaf.kind === "paragraph" && blank) {
      this.leaf = NO_LEAF;
      return true;
    }
    return false;
  }

  private quoted(): boolean {
    return this.containers.some((container) => container.kind === "quote");
  }

  /** Every open list item now holds a block, so a blank line no longer ends it. */
  private markContent(): void {
    for (const container of this.containers) if (container.kind === "item") container.hasContent = true;
  }
}

/**
 * A list item's marker at `at` (after `indent` spaces): where its content
 * starts and how far later lines must be indented to continue it. One that
 * would interrupt a paragraph must have content and, if ordered, start at 1.
 */
function listItem(text: string, at: number, indent: number, interrupting: boolean, blankFrom: (at: number) => boolean): { contentAt: number; width: number } | undefined {
  const first = text.charAt(at);
  let markerEnd: number;
  if (first === "-" || first === "*" || first === "+") markerEnd = at + 1;
  else {
    const ordered = ORDERED.exec(text.slice(at, at + 11));
    if (!ordered) return undefined;
    if (interrupting && Number(ordered[1]) !== 1) return undefined;
    markerEnd = at + ordered[0].length;
  }
  const after = text.charAt(markerEnd);
  if (after !== "" && after !== " ") return undefined;
  const empty = blankFrom(markerEnd);
  if (interrupting && empty) return undefined;
  const spaces = spacesAt(text, markerEnd);
  // No text after the marker, or indented code right after it: the content starts one space after the marker.
  const padding = empty || spaces >= 5 ? 1 : spaces;
  return { contentAt: markerEnd + Math.min(padding, spaces), width: indent + (markerEnd - at) + padding };
}

/** The end pattern of the HTML block starting `rest` (undefined: a blank line ends it), or false when none starts. */
function htmlStart(rest: string, interrupting: boolean): RegExp | undefined | false {
  for (const [start, end] of HTML_STARTS) if (start.test(rest)) return end;
  return !interrupting && isLoneTag(rest) ? undefined : false;
}

/**
 * HTML block start 7: a complete open or closing tag alone on its line. A
 * hand-written scan: one regular expression for it can backtrack on long
 * runs of attributes.
 */
function isLoneTag(rest: string): boolean {
  let at = 1;
  const closing = rest.charAt(at) === "/";
  if (closing) at++;
  const nameStart = at;
  while (/[A-Za-z0-9-]/.test(rest.charAt(at)) && (at > nameStart || /[A-Za-z]/.test(rest.charAt(at)))) at++;
  if (at === nameStart) return false;
  for (;;) {
    const spaceStart = at;
    while (rest.charAt(at) === " ") at++;
    const char = rest.charAt(at);
    if (char === ">" || (!closing && rest.startsWith("/>", at))) return isBlank(rest, at + (char === ">" ? 1 : 2));
    if (closing || at === spaceStart || !/[A-Za-z_:]/.test(char)) return false;
    while (/[A-Za-z0-9_.:-]/.test(rest.charAt(at))) at++;
    let look = at;
    while (rest.charAt(look) === " ") look++;
    if (rest.charAt(look) !== "=") continue;
    look++;
    while (rest.charAt(look) === " ") look++;
    const quote = rest.charAt(look);
    if (quote === '"' || quote === "'") {
      const close = rest.indexOf(quote, look + 1);
      if (close === -1) return false;
      at = close + 1;
    } else {
      const valueStart = look;
      while (look < rest.length && !/["'=<>` ]/.test(rest.charAt(look))) look++;
      if (look === valueStart) return false;
      at = look;
    }
  }
}

/** The level of the ATX heading `rest` opens: one to six `#` then a space or the line's end; 0 when it opens none. */
function atxLevel(rest: string): number {
  let level = 0;
  while (rest.charCodeAt(level) === 35) level++;
  const after = rest.charAt(level);
  return level <= 6 && (after === "" || after === " ") ? level : 0;
}

/** ATX heading content without its closing sequence (a run of `#` that is the whole content or follows a space). */
function atxText(content: string): string {
  const trimmed = content.trim();
  let end = trimmed.length;
  while (end > 0 && trimmed.charCodeAt(end - 1) === 35) end--;
  if (end === 0) return "";
  return end === trimmed.length || trimmed.charAt(end - 1) !== " " ? trimmed : trimmed.slice(0, end).trimEnd();
}

function matchesAt(pattern: RegExp, text: string, at: number): boolean {
  pattern.lastIndex = at;
  return pattern.test(text);
}

function spacesAt(text: string, from: number): number {
  let at = from;
  while (text.charCodeAt(at) === 32) at++;
  return at - from;
}

function isBlank(text: string, from: number): boolean {
  for (let at = from; at < text.length; at++) if (text.charCodeAt(at) !== 32) return false;
  return true;
}

/** Tabs as spaces to the next multiple of four: how CommonMark reads them wherever they shape blocks. */
function expandTabs(line: string): string {
  let out = "";
  let column = 0;
  for (const char of line) {
    if (char === "\t") {
      const width = 4 - (column % 4);
      out += " ".repeat(width);
      column += width;
    } else {
      out += char;
      column += char.length;
    }
  }
  return out;
}
