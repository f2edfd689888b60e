/**
 * The links of a skill body as GitHub-flavoured Markdown reads them, found
 * by a line scanner instead of a full parse (a full GFM parse of every body
 * costs milliseconds per kilobyte; this costs microseconds). It models what
 * decides whether `[x](y)` is a link: fenced and indented code, HTML blocks,
 * inline code spans (also across lines), inline HTML and comments, block
 * quotes, list items, GFM tables and footnote definitions (`[^1]: …` is a
 * footnote, not a link reference definition).
 *
 * It is sound rather than complete: where GFM might read a line otherwise
 * than the scanner (a tab in the indentation, a link that spans lines, a
 * destination with escapes or entities, a pipe in a table row), the line or
 * the link is left out, so every link reported is one a GFM parser finds at
 * the same place with the same destination (test/parse/body-links.test.ts
 * compares it with remark-gfm). One kind of escaped destination is kept: one
 * whose only escapes are backslash escapes and whose reading still holds a
 * backslash (`..\..\README.md`, read `....\README.md`), a Windows path
 * whichever way it is read. Positions are 1-based lines and UTF-16 columns
 * in SKILL.md.
 */

export interface BodyLink {
  kind: "link" | "image" | "definition";
  /** The destination as GFM reads it, without the `<` `>` of the angle form. */
  target: string;
  /** The destination as written, when backslash escapes make GFM read it otherwise (then `target` holds a backslash GFM keeps). */
  written?: string;
  /** Where the destination starts. */
  line: number;
  column: number;
}

export interface BodyLinks {
  links: BodyLink[];
  /** Per body line (0-based): the line is prose or heading text, outside code and HTML, and read as GFM reads it. */
  prose: boolean[];
}

const DEFINITION = /^\[((?:[^\]\\\n[]|\\.)+)\]:[ \t]*(<[^>\n]*>|[^\s<][^\s]*)([ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$/;
const FENCE = /^(`{3,}|~{3,})(.*)$/;
const HTML_BLOCK_END: ReadonlyArray<[RegExp, RegExp | "blank"]> = [
  [/^<(?:script|pre|style|textarea)(?:\s|>|$)/i, /<\/(?:script|pre|style|textarea)>/i],
  [/^<!--/, /-->/],
  [/^<\?/, /\?>/],
  [/^<![A-Za-z]/, />/],
  [/^<!\[CDATA\[/, /\]\]>/],
  [
    /^<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:\s|\/?>|$)/i,
    "blank",
  ],
];
/** A complete open or closing tag alone on its line (HTML block type 7, which cannot interrupt a paragraph). */
const LONE_TAG = /^(?:<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)*\s*\/?>|<\/[A-Za-z][A-Za-z0-9-]*\s*>)\s*$/;
const LIST_MARKER = /^([-*+]|\d{1,9}[.)])([ \t]+|$)/;
/** An ATX heading or a thematic break (also a setext underline after a paragraph): one line, ending any paragraph. */
const BREAK_OR_HEADING = /^(?:#{1,6}(?:[ \t]|$)|([-*_])(?:[ \t]*\1){2,}[ \t]*$|=+[ \t]*$)/;
const DELIMITER_ROW = /^\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
/** Inline HTML and autolinks: markup, never link text (`<a href="x](y)">`, `<https://x>`). */
const INLINE_MARKUP = /<(?:[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?|\/[A-Za-z][A-Za-z0-9-]*\s*|[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[^\s<>@]+@[^\s<>@]+)>/g;

/** A line starting with a letter: no block can start there. */
const PLAIN_START = /^\p{L}/u;
/** What can hide a link or start one: brackets, backticks, markup, escapes. */
const SPECIAL = /[[`<\\]/;
/** Where plain text stops: a backtick, an escape or a comment. */
const SPAN_START = /[`\\<]/g;

interface Fence {
  char: string;
  length: number;
  indent: number;
  quotes: number;
  /** Content indent of the list item holding the fence: a less indented line ends the item and the fence (code is never lazy). */
  container: number;
}

/** `lines` is the body split at line feeds, when the caller has it already. */
export function scanBodyLinks(body: string, bodyStartLine: number, lines: readonly string[] = body.split("\n")): BodyLinks {
  const links: BodyLink[] = [];
  const prose = new Array<boolean>(lines.length).fill(false);
  let fence: Fence | undefined;
  let html: RegExp | "blank" | undefined;
  let table = false;
  /** The paragraph's inline state carried from line to line: an open code span, an open comment. */
  let inline = { openTicks: 0, comment: false };
  let paragraph = false;
  let quotes = 0;
  const items: number[] = [];
  for (let index = 0; index < lines.length; index++) {
    const raw = lines[index] ?? "";
    const line = bodyStartLine + index;
    if (fence === undefined && html === undefined && !table && quotes === 0 && PLAIN_START.test(raw) && !raw.includes("|")) {
      // Most lines start with a letter at the margin: paragraph text (a new paragraph, or a lazy continuation), never a block start.
      if (!paragraph) items.length = 0;
      prose[index] = readInline(raw, 0, line, links, inline);
      paragraph = true;
      continue;
    }
    // A line without the fence's character cannot close it, and a fence outside any quote or list item holds every line until then.
    if (fence !== undefined && fence.quotes === 0 && fence.container === 0 && !raw.includes(fence.char)) continue;
    const { depth, offset } = stripQuotes(raw);
    const rest = raw.slice(offset);
    const width = indentWidth(rest);
    const blank = rest.trim() === "";
    const endParagraph = (): void => {
      paragraph = false;
      table = false;
      inline = { openTicks: 0, comment: false };
    };
    if (fence && (depth < fence.quotes || (!blank && width < fence.container))) fence = undefined;
    if (fence) {
      const closing = FENCE.exec(rest.trimStart());
      if (closing?.[1] && closing[1][0] === fence.char && closing[1].length >= fence.length && (closing[2] ?? "").trim() === "" && width <= fence.indent) fence = undefined;
      continue;
    }
    if (html) {
      if (html === "blank" ? blank : html.test(rest)) html = undefined;
      continue;
    }
    if (blank) {
      endParagraph();
      quotes = depth;
      continue;
    }
    let content = rest.trimStart();
    const lazy = paragraph && !startsBlock(content);
    // Another quote depth is another container: the list items seen so far say nothing about it.
    if (depth !== quotes && !lazy) items.length = 0;
    quotes = depth;
    if (!lazy) while (items.length > 0 && width < (items.at(-1) ?? 0)) items.pop();
    if (!paragraph && width >= (items.at(-1) ?? 0) + 4) continue; // indented code
    if (/^[ ]*\t/.test(rest)) {
      // A tab in the indentation moves columns to tab stops: the line is not read (a fence it opens still hides what follows).
      if (FENCE.test(content)) fence = { char: content[0] ?? "`", length: /^(`+|~+)/.exec(content)?.[0].length ?? 3, indent: Number.MAX_SAFE_INTEGER, quotes: depth, container: 0 };
      paragraph = true;
      continue;
    }
    let column = offset + (rest.length - content.length);
    const opening = FENCE.exec(content);
    if (opening?.[1] && !(opening[1][0] === "`" && (opening[2] ?? "").includes("`"))) {
      fence = { char: opening[1][0] ?? "`", length: opening[1].length, indent: width, quotes: depth, container: items.at(-1) ?? 0 };
      endParagraph();
      continue;
    }
    const block = htmlBlock(content, paragraph);
    if (block) {
      if (block === "blank" || !block.test(content.slice(1))) html = block;
      endParagraph();
      continue;
    }
    if (BREAK_OR_HEADING.test(content)) {
      endParagraph();
      if (content.startsWith("#")) prose[index] = readInline(content, column, line, links, inline);
      inline = { openTicks: 0, comment: false };
      continue;
    }
    if (table) {
      if (!startsBlock(content)) {
        prose[index] = readCells(content, column, line, links);
        continue;
      }
      table = false;
    }
    // List markers open an item whose content starts after the marker.
    let atStart = !paragraph;
    for (let marker = LIST_MARKER.exec(content); marker && (atStart || canInterrupt(marker, content)); marker = LIST_MARKER.exec(content)) {
      const gap = marker[2] ?? "";
      if (gap.includes("\t")) break;
      const after = content.slice(marker[0].length);
      items.push(column - offset + (marker[1] ?? "").length + (after === "" || gap.length > 4 ? 1 : gap.length));
      content = after;
      column += marker[0].length;
      atStart = true;
      endParagraph();
      if (after === "") break;
    }
    if (content === "") continue;
    // An item may open with a fence or an HTML block (`- ~~~`, `- <div>`).
    const itemFence = FENCE.exec(content);
    if (itemFence?.[1] && !(itemFence[1][0] === "`" && (itemFence[2] ?? "").includes("`"))) {
      fence = { char: itemFence[1][0] ?? "`", length: itemFence[1].length, indent: column - offset, quotes: depth, container: items.at(-1) ?? 0 };
      continue;
    }
    const itemBlock = htmlBlock(content, false);
    if (itemBlock) {
      if (itemBlock === "blank" || !itemBlock.test(content.slice(1))) html = itemBlock;
      continue;
    }
    if (atStart && /^#{1,6}(?:[ \t]|$)/.test(content)) {
      prose[index] = readInline(content, column, line, links, { openTicks: 0, comment: false });
      continue;
    }
    if (atStart) {
      const definition = DEFINITION.exec(content);
      if (definition && !(definition[1] ?? "").startsWith("^")) {
        const written = definition[2] ?? "";
        const target = written.startsWith("<") ? written.slice(1, -1) : written;
        const at = content.indexOf(written, (definition[1] ?? "").length + 3);
        const read = reading(target);
        if (read !== undefined) links.push({ kind: "definition", ...read, line, column: column + at + 1 + (written.startsWith("<") ? 1 : 0) });
        continue;
      }
    }
    if (content.includes("|") && isTableHead(content, nextContent(lines, index))) {
      // A GFM table (it may interrupt a paragraph): this header row and the rows after the delimiter row are cells, split before anything else is read.
      prose[index] = readCells(content, column, line, links);
      endParagraph();
      table = true;
      index++;
      continue;
    }
    prose[index] = readInline(content, column, line, links, inline);
    paragraph = true;
  }
  return { links, prose };
}

/** The next line without its quote markers and indentation. */
function nextContent(lines: readonly string[], index: number): string {
  const next = lines[index + 1] ?? "";
  return next.slice(stripQuotes(next).offset).trimStart();
}

/** A header row followed by a delimiter row with as many cells. */
function isTableHead(content: string, next: string): boolean {
  return DELIMITER_ROW.test(next) && next.includes("|") === true && cellCount(content) === cellCount(next);
}

function cellCount(row: string): number {
  const trimmed = row.trim().replace(/^\|/, "");
  let cells = 1;
  for (let at = 0; at < trimmed.length; at++) if (trimmed[at] === "|" && !isEscaped(trimmed, at) && at < trimmed.length - 1) cells++;
  return cells;
}

/** A table row: cells split at unescaped pipes (GFM splits before code spans), each read on its own. */
function readCells(content: string, column: number, line: number, links: BodyLink[]): boolean {
  let certain = true;
  let start = 0;
  for (let at = 0; at <= content.length; at++) {
    if (at < content.length && (content[at] !== "|" || isEscaped(content, at))) continue;
    certain = readInline(content.slice(start, at), column + start, line, links, { openTicks: 0, comment: false }) && certain;
    start = at + 1;
  }
  return certain;
}

function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let before = at - 1; before >= 0 && text[before] === "\\"; before--) backslashes++;
  return backslashes % 2 === 1;
}

/** A line without a `>`: no quote marker to strip. */
const NO_QUOTES: Readonly<{ depth: number; offset: number }> = { depth: 0, offset: 0 };

/** Strips `>` markers (each after at most three spaces, with one optional space after it). */
function stripQuotes(raw: string): { depth: number; offset: number } {
  if (!raw.includes(">")) return NO_QUOTES;
  let depth = 0;
  let offset = 0;
  for (let match = /^ {0,3}> ?/.exec(raw); match; match = /^ {0,3}> ?/.exec(raw.slice(offset))) {
    depth++;
    offset += match[0].length;
  }
  return { depth, offset };
}

function indentWidth(text: string): number {
  let width = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x20) width++;
    else if (code === 0x09) width += 4 - (width % 4);
    else break;
  }
  return width;
}

/** A line that would start a new block even inside a paragraph (so it is no lazy continuation). */
function startsBlock(content: string): boolean {
  return FENCE.test(content) || /^(?:#{1,6}(?:[ \t]|$)|<|[-*+][ \t]+\S|1[.)][ \t]+\S|(?:([-*_])[ \t]*){3,}$)/.test(content);
}

function canInterrupt(marker: RegExpExecArray, content: string): boolean {
  const rest = content.slice(marker[0].length);
  return rest.trim() !== "" && (/^[-*+]$/.test(marker[1] ?? "") || /^1[.)]$/.test(marker[1] ?? ""));
}

function htmlBlock(content: string, paragraph: boolean): RegExp | "blank" | undefined {
  if (!content.startsWith("<")) return undefined;
  for (const [start, end] of HTML_BLOCK_END) if (start.test(content)) return end;
  return !paragraph && LONE_TAG.test(content) ? "blank" : undefined;
}

/**
 * Reads one line of paragraph text: masks code spans (an unclosed backtick
 * run masks the rest of the paragraph), inline HTML, comments and the
 * backslash escapes that could open or close a link, then takes the links
 * whose reading is certain. Returns
 * whether the line is prose (false when part of it is hidden by a span that
 * started earlier).
 */
function readInline(text: string, column: number, line: number, links: BodyLink[], state: { openTicks: number; comment: boolean }): boolean {
  // Most lines hold no bracket, backtick, markup or escape, and no span is open: nothing to mask, no link to find.
  if (state.openTicks === 0 && !state.comment && !SPECIAL.test(text)) return true;
  let masked = "";
  let position = 0;
  let certain = true;
  const hide = (until: number): void => {
    masked += " ".repeat(until - position);
    position = until;
  };
  while (position < text.length) {
    if (state.comment) {
      const end = text.indexOf("-->", position);
      hide(end === -1 ? text.length : end + 3);
      certain = false;
      if (end !== -1) state.comment = false;
      continue;
    }
    if (state.openTicks > 0) {
      const close = findTicks(text, position, state.openTicks);
      hide(close === -1 ? text.length : close + state.openTicks);
      certain = false;
      if (close !== -1) state.openTicks = 0;
      continue;
    }
    // Copy plain text up to the next character that may start a span or an escape.
    SPAN_START.lastIndex = position;
    const next = SPAN_START.exec(text);
    const stop = next === null ? text.length : next.index;
    masked += text.slice(position, stop);
    position = stop;
    if (next === null) break;
    const character = text[position] ?? "";
    if (character === "\\") {
      // An escaped bracket, parenthesis, angle bracket, quote, `!` or backtick opens or closes nothing: hidden. Any other escape
      // changes nothing read below and stays, so a destination holding one (`..\..\README.md`) is still read whole.
      const escaped = text[position + 1];
      masked += escaped !== undefined && /[!"'()<>[\]`]/.test(escaped) ? "  " : text.slice(position, position + 2);
      position = Math.min(text.length, position + 2);
    } else if (character === "`") {
      let run = 1;
      while (text[position + run] === "`") run++;
      const close = findTicks(text, position + run, run);
      if (close === -1) {
        state.openTicks = run;
        hide(text.length);
        certain = false;
      } else hide(close + run);
    } else if (text.startsWith("<!--", position)) {
      state.comment = true;
    } else {
      masked += character;
      position++;
    }
  }
  // Every piece of markup starts with `<`.
  // A `<…>` right after `](` is a link's destination, read before any markup is (`[a](<my notes.md>)`, `[b](<a b.md>)`).
  if (masked.includes("<")) masked = masked.replace(INLINE_MARKUP, (markup: string, offset: number, whole: string) => (whole.startsWith("](", offset - 2) ? markup : " ".repeat(markup.length)));
  for (const match of bracketed(masked, linkTail(masked))) {
    const start = match.index;
    const whole = match.whole;
    const written = match.groups[0] ?? "";
    // `[a][b](c)` is a reference link when b is defined; `[a|b](c)` in a table row is two cells.
    if (masked[start - 1] === "]" || whole.includes("|")) continue;
    const target = written.startsWith("<") ? written.slice(1, -1) : written;
    const tail = start + whole.indexOf("](");
    // Whatever was masked after the text (a code span, markup) would be part of the destination GFM reads: not certain.
    const read = reading(target);
    if (read === undefined || text.slice(tail, start + whole.length) !== masked.slice(tail, start + whole.length)) continue;
    const at = start + whole.indexOf(written, whole.indexOf("](") + 1) + (written.startsWith("<") ? 1 : 0);
    links.push({ kind: whole.startsWith("!") ? "image" : "link", ...read, line, column: column + at + 1 });
  }
  return certain;
}

/** The start of the next run of exactly `length` backticks at or after `from`, or -1. */
function findTicks(text: string, from: number, length: number): number {
  for (let at = text.indexOf("`", from); at !== -1; at = text.indexOf("`", at)) {
    let end = at;
    while (text[end] === "`") end++;
    if (end - at === length) return at;
    at = end;
  }
  return -1;
}

/**
 * A destination GFM reads as written: no escapes, entities or control
 * characters to decode. A backslash before anything but ASCII punctuation
 * is no escape, GFM keeps it (`references\forms.md`), so such a target is
 * read as written too. A NUL byte stays (GFM reads it as U+FFFD): such a
 * target names nothing any file system can look up, which is a finding.
 */
function readable(target: string): boolean {
  return !/\\(?:[!-/:-@[-`{-~]|$)|[\u0001-\u001f]|&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);/i.test(target);
}

/**
 * The destination as GFM reads it: as written when `readable`; with its
 * backslash escapes decoded when those are its only escapes and a backslash
 * stays (`..\..\README.md` is read `....\README.md`, `..\\x.md` is read
 * `..\x.md`), with the text as written beside it; else undefined. An escaped
 * bracket or parenthesis (`a\)b`) could move where the destination ends, so
 * such a destination is left out too.
 */
function reading(target: string): { target: string; written?: string } | undefined {
  if (readable(target)) return { target };
  if (/\\(?:[()<>]|$)|[\u0001-\u001f]|&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);/i.test(target)) return undefined;
  const read = target.replace(/\\([!-/:-@[-`{-~])/g, "$1");
  return read.includes("\\") ? { target: read, written: target } : undefined;
}

/** One match of `bracketed`: where it starts, its text, and the tail's groups. */
export interface BracketMatch {
  index: number;
  whole: string;
  /** The text between the brackets (without `!`, `[` and `]`). */
  label: string;
  /** The tail's capture groups, from group 1. */
  groups: Array<string | undefined>;
}

/** What may follow a bracketed text, read from its closing `]`: where the match ends and its groups, or undefined. */
export type Tail = (closing: number) => { end: number; groups: Array<string | undefined> } | undefined;

/** A line terminator: what `.` does not match, so a backslash before one escapes nothing. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/**
 * The matches, left to right and without overlaps, of the pattern
 * `!?\[(?:[^\]\\\n]|\\.)*` followed by `tail` (read from the closing
 * `]`), found exactly where `text.matchAll` of that combined pattern finds
 * them, in time linear in the line.
 *
 * The combined pattern, tried at each `[`, reads the text to the first `]`
 * no backslash escapes, and every `[` between a start and that `]` reaches
 * the same `]` (a `[` is read on its own or as an escaped character, and
 * either way the next character starts the same reading). So all the starts
 * before one `]` succeed or fail together, with the first of them: the tail
 * is read once per `]`, not once per `[` (a line of 100,000 `[` would
 * otherwise be read 100,000 times to its end).
 */
export function bracketed(text: string, tail: Tail): BracketMatch[] {
  const found: BracketMatch[] = [];
  /** The first `!`/`[` still waiting for its `]`, or -1. */
  let start = -1;
  let from = 0;
  let at = 0;
  while (at < text.length) {
    const character = text[at];
    if (start === -1) {
      if (character === "[") start = at > from && text[at - 1] === "!" ? at - 1 : at;
      at++;
      continue;
    }
    if (character === "]") {
      const match = tail(at);
      if (match) {
        found.push({ index: start, whole: text.slice(start, match.end), label: text.slice(text[start] === "!" ? start + 2 : start + 1, at), groups: match.groups });
        at = match.end;
        from = at;
      } else at++;
      start = -1;
    } else if (character === "\\") {
      const escaped = text[at + 1];
      // A backslash escapes the next character, unless the line ends there: then no `]` closes these starts.
      if (escaped === undefined || LINE_TERMINATOR.test(escaped)) start = -1;
      at += start === -1 ? 1 : 2;
    } else {
      if (character === "\n") start = -1;
      at++;
    }
  }
  return found;
}

/** A tail given as a regular expression with the sticky flag, starting at the `]`. */
export function stickyTail(text: string, pattern: RegExp): Tail {
  return (closing) => {
    pattern.lastIndex = closing;
    const match = pattern.exec(text);
    return match ? { end: pattern.lastIndex, groups: match.slice(1) } : undefined;
  };
}

/** Whether the character at `at` is one `\s` matches. */
function isSpace(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code < 0xa0) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return /\s/.test(text[at] ?? "");
}

/**
 * An inline link's tail, `](destination "title")`: the same matches as the
 * pattern `\]\(\s*(<[^>\n]*>|[^\s()]+(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)`
 * (group 1: the destination as written), read without going back. Where a
 * `<…>` destination or a title ends is looked up in a table made once per
 * line, and where a run of spaces ends is kept, so many `](<` or `](x (`
 * sharing one closing `>` or `)` cost one reading of the line, not one each.
 */
export function linkTail(text: string): Tail {
  const length = text.length;
  const closers = new Map<string, Int32Array>();
  /** The first position at or after `from` holding `closer` or a line feed (which ends every title), else -1. */
  const next = (closer: string, from: number): number => {
    let table = closers.get(closer);
    if (table === undefined) {
      table = new Int32Array(length + 1).fill(-1);
      for (let at = length - 1; at >= 0; at--) table[at] = text[at] === closer || text[at] === "\n" ? at : (table[at + 1] ?? -1);
      closers.set(closer, table);
    }
    return table[Math.min(from, length)] ?? -1;
  };
  const runs = new Map<number, number>();
  /** Where the run of spaces starting at `from` ends. */
  const spaces = (from: number): number => {
    let end = runs.get(from);
    if (end === undefined) {
      for (end = from; end < length && isSpace(text, end); end++);
      runs.set(from, end);
    }
    return end;
  };
  const plain = (at: number): boolean => at < length && text[at] !== "(" && text[at] !== ")" && !isSpace(text, at);
  /** Where a bare destination read greedily from `from` ends (only its longest reading can be followed by a title or `)`), or -1 when it is empty. */
  const bare = (from: number): number => {
    let at = from;
    while (plain(at)) at++;
    if (at === from) return -1;
    while (text[at] === "(") {
      let inner = at + 1;
      while (plain(inner)) inner++;
      if (text[inner] !== ")") break;
      at = inner + 1;
      while (plain(at)) at++;
    }
    return at;
  };
  /** After the destination: an optional title, then `)`; where the match ends, or -1. */
  const close = (from: number): number => {
    const spaced = spaces(from);
    const opener = text[spaced];
    const closer = opener === '"' ? '"' : opener === "'" ? "'" : opener === "(" ? ")" : undefined;
    if (spaced > from && closer !== undefined) {
      const end = next(closer, spaced + 1);
      if (end !== -1 && text[end] === closer) {
        const after = spaces(end + 1);
        if (text[after] === ")") return after + 1;
      }
    }
    return text[spaced] === ")" ? spaced + 1 : -1;
  };
  return (closing) => {
    if (text[closing + 1] !== "(") return undefined;
    const destination = spaces(closing + 2);
    if (text[destination] === "<") {
      const end = next(">", destination + 1);
      const after = end !== -1 && text[end] === ">" ? close(end + 1) : -1;
      if (after !== -1) return { end: after, groups: [text.slice(destination, end + 1)] };
    }
    const end = bare(destination);
    const after = end === -1 ? -1 : close(end);
    return after === -1 ? undefined : { end: after, groups: [text.slice(destination, end)] };
  };
}
