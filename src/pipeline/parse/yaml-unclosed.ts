import { BlockNesting } from "./block-nesting.js";

/**
 * Where a YAML value that is never closed begins. The yaml library reports an
 * unclosed flow collection (`type: [workflow`) or quoted value where it gave
 * up, on a later line; the author needs the `[` or the `"` that opened it.
 * Flow indicators and quotes open something only where a value starts (after
 * `key:`, `- `, at a line's start or inside a flow collection): in a plain
 * value such as `Use [when] it's time` they are ordinary characters.
 */
export interface UnclosedConstruct {
  /** Offset of the opening character in the text. */
  offset: number;
  message: string;
}

export type Opener = { char: "[" | "{" | '"' | "'"; offset: number };

/** The innermost construct still open at the end of the text that opened before `before`, when the error is of that kind. */
export function unclosedConstruct(text: string, yamlMessage: string, before: number): UnclosedConstruct | undefined {
  const flow = /Flow (?:sequence|map)/i.test(yamlMessage) && /end with a [\]}]/.test(yamlMessage);
  const quote = /Missing closing .?quote/i.test(yamlMessage);
  if (!flow && !quote) return undefined;
  const open = openAtEnd(text).filter((opener) => opener.offset < Math.max(before, 1) && (quote ? opener.char === '"' || opener.char === "'" : opener.char === "[" || opener.char === "{"));
  const innermost = open.at(-1);
  if (innermost === undefined) return undefined;
  const messages: Record<Opener["char"], string> = {
    "[": "Unexpected `[` that opens a flow sequence and is never closed, expected `]` at the end of the list (or quote the value)",
    "{": "Unexpected `{` that opens a flow mapping and is never closed, expected `}` at its end (or quote the value)",
    '"': 'Unexpected `"` that opens a quoted value and is never closed, expected a closing `"` (or leave the value unquoted)',
    "'": "Unexpected `'` that opens a quoted value and is never closed, expected a closing `'` (or leave the value unquoted)",
  };
  return { offset: innermost.offset, message: messages[innermost.char] };
}

/**
 * The offset of the first flow collection (`[` or `{`) or block sequence
 * item that opens past `maxDepth` levels, found in one pass without recursion.
 */
export function yamlNestingOverflow(text: string, maxDepth: number): number | undefined {
  return fewOpeners(text, maxDepth) ? undefined : scanOpeners(text, maxDepth).tooDeep;
}

/**
 * A cheap and certain negative: each level the scan counts is opened by a
 * character of its own (a block item's `-`, a key's `:`, a flow collection's
 * `[` or `{`), so a text with no more than `maxDepth` of them, as every real
 * frontmatter, cannot nest past it.
 */
function fewOpeners(text: string, maxDepth: number): boolean {
  let count = 0;
  for (const opener of OPENER_CHARACTERS) {
    for (let at = text.indexOf(opener); at !== -1; at = text.indexOf(opener, at + 1)) if (++count > maxDepth) return false;
  }
  return true;
}

const OPENER_CHARACTERS = ["-", ":", "[", "{"];

/** The flow collections and quoted values open when the text ends, outermost first. */
function openAtEnd(text: string): Opener[] {
  return scanOpeners(text, Infinity).open;
}

/**
 * Each line that starts inside a quoted value or a flow collection that is
 * closed further on, with the opener of the outermost one it is inside:
 * the lines a value goes on over. A construct still open at the end of the
 * text is left out (its lines continue nothing that ends).
 */
export function continuationLines(text: string): Array<{ lineStart: number; opener: Opener }> {
  const lines: Array<{ lineStart: number; opener: Opener }> = [];
  const { open } = scanOpeners(text, Infinity, (lineStart, outermost) => lines.push({ lineStart, opener: outermost }));
  const unclosed = open[0];
  return unclosed === undefined ? lines : lines.filter((line) => line.opener !== unclosed);
}

/**
 * Scans the text's openers; stops at the first flow collection, block
 * sequence item or block mapping key past `maxDepth`. The depth counted is a
 * floor of the real one: the block collections a line sits in by indentation
 * (block-nesting.ts) plus the flow collections open on it; on a line that
 * only continues a value, the `- ` items written on it.
 */
function scanOpeners(text: string, maxDepth: number, onContinuation?: (lineStart: number, outermost: Opener) => void): { open: Opener[]; tooDeep?: number } {
  const stack: Opener[] = [];
  const blocks = new BlockNesting();
  let valueStarts = true;
  let lineItems = 0;
  let lineDepth = 0;
  for (let at = 0; at < text.length; at++) {
    const outermost = stack[0];
    if (onContinuation !== undefined && outermost !== undefined && at > 0 && text[at - 1] === "\n") onContinuation(at, outermost);
    if ((at === 0 || text[at - 1] === "\n") && stack.length === 0) {
      const line = blocks.line(text, at);
      if (line.scalarContent) {
        // Block scalar text: skip to the line's break, which the scan reads as usual.
        const end = text.indexOf("\n", at);
        at = end < 0 ? text.length : end;
      }
      const tooDeep = line.openers.find((opener) => opener.depth > maxDepth);
      if (tooDeep !== undefined) return { open: stack, tooDeep: tooDeep.offset };
      lineDepth = line.depth;
      if (at >= text.length) break;
    }
    const char = text[at] ?? "";
    const top = stack.at(-1);
    if (top?.char === '"') {
      if (char === "\\") at++;
      else if (char === '"') stack.pop();
      continue;
    }
    if (top?.char === "'") {
      if (char === "'" && text[at + 1] === "'") at++;
      else if (char === "'") stack.pop();
      continue;
    }
    const inFlow = top !== undefined;
    if (char === "\n") {
      // A block line starts a value after its indentation; inside a flow collection the value goes on.
      valueStarts = true;
      if (!inFlow) {
        lineItems = 0;
        lineDepth = 0;
      }
      continue;
    }
    if (char === " " || char === "\t") continue;
    if (char === "#" && (at === 0 || /\s/.test(text[at - 1] ?? ""))) {
      const end = text.indexOf("\n", at);
      at = (end < 0 ? text.length : end) - 1;
      continue;
    }
    if (valueStarts && (char === "&" || char === "!")) {
      // An anchor or a tag: the value starts after it (`key: &a "…`, `key: !!str [`).
      while (at + 1 < text.length && !/[\s,[\]{}]/.test(text[at + 1] ?? "")) at++;
      continue;
    }
    if (valueStarts && (char === "[" || char === "{" || char === '"' || char === "'")) {
      stack.push({ char, offset: at });
      valueStarts = char === "[" || char === "{";
      // A quote is only ever on top, so while a collection opens the stack holds collections alone.
      if (valueStarts && Math.max(lineItems, lineDepth) + stack.length > maxDepth) return { open: stack, tooDeep: at };
      continue;
    }
    if (inFlow && (char === "]" || char === "}")) {
      stack.pop();
      valueStarts = false;
      continue;
    }
    if (char === "-" && valueStarts && !inFlow && /\s/.test(text[at + 1] ?? " ")) {
      if (++lineItems > maxDepth) return { open: stack, tooDeep: at };
      continue;
    }
    if (char === ":" && /\s/.test(text[at + 1] ?? " ")) {
      valueStarts = true;
      continue;
    }
    if (inFlow && char === ",") {
      valueStarts = true;
      continue;
    }
    if (!inFlow) {
      // A plain value (or a key) runs to its `: ` or the line's end; nothing in it opens anything.
      valueStarts = false;
      continue;
    }
    valueStarts = false;
  }
  return { open: stack };
}
