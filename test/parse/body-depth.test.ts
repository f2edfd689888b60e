import { unified } from "unified";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { describe, expect, it } from "vitest";
import { MAX_NESTING, tooDeepLine } from "../../src/pipeline/parse/body.js";
import { outlineBlocks } from "../../src/pipeline/parse/block-structure.js";

interface Node {
  type: string;
  depth?: number;
  position?: { start: { line: number } };
  children?: Node[];
}

/**
 * What the GFM parser (remark-gfm, the parser lint falls back to) sees: the
 * 0-based line where the first block quote or list item deeper than `limit`
 * starts, and the headings outside block quotes as `line:level`.
 */
function reference(body: string, limit: number): { tooDeep: number | undefined; headings: string[] } {
  const tree = unified().use(remarkParse).use(remarkGfm).parse(body) as Node;
  let tooDeep: number | undefined;
  const headings: string[] = [];
  const visit = (node: Node, depth: number, quoted: boolean): void => {
    const inner = node.type === "blockquote" || node.type === "listItem" ? depth + 1 : depth;
    const line = (node.position?.start.line ?? 1) - 1;
    if (inner > limit && inner > depth && (tooDeep === undefined || line < tooDeep)) tooDeep = line;
    if (node.type === "heading" && !quoted) headings.push(`${line}:${node.depth ?? 0}`);
    for (const child of node.children ?? []) visit(child, inner, quoted || node.type === "blockquote");
  };
  visit(tree, 0, false);
  return { tooDeep, headings };
}

function outline(body: string, limit: number): { tooDeep: number | undefined; headings: string[] } {
  const found = outlineBlocks(body.split("\n"), limit);
  return { tooDeep: found.tooDeep, headings: found.headings.filter((heading) => !heading.quoted).map((heading) => `${heading.line}:${heading.level}`) };
}

/** A small deterministic generator: the same bodies on every run. */
function generator(seed: number): (limit: number) => number {
  let state = seed;
  return (limit) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % limit;
  };
}

const PIECES = [" ", "  ", "    ", "\t", ">", "> ", ">\t", "- ", "-\t", "* ", "+ ", "1. ", "2) ", "10. ", "1.     x", "-", "\n", "\n", "\n", "\n\n", "\r\n", "text", "Step 1: a", "```", "~~~", "<div>", "<!--", "-->", "<pre>", "</pre>", "<x a='1'>", "===", "---", "- - -", "* * *", "# h", "## Step 2", "**", "| x |", "a | b\n--- | ---"];

describe("tooDeepLine", () => {
  it("finds the first line nested deeper than the limit, by quotes or list items on one line or by indentation over lines", () => {
    expect(tooDeepLine(`intro\n${"> ".repeat(MAX_NESTING + 1)}deep\n`)).toBe(2);
    expect(tooDeepLine(`intro\n${"> ".repeat(MAX_NESTING)}deep enough\n`)).toBeUndefined();
    expect(tooDeepLine(`a\nb\n${"- ".repeat(MAX_NESTING + 1)}x`)).toBe(3);
    const indented = Array.from({ length: MAX_NESTING + 1 }, (_, level) => `${"  ".repeat(level)}- level ${level + 1}`).join("\n");
    expect(tooDeepLine(indented)).toBe(MAX_NESTING + 1);
    expect(tooDeepLine(indented.split("\n").slice(0, MAX_NESTING).join("\n"))).toBeUndefined();
    expect(tooDeepLine("")).toBeUndefined();
  });

  it("counts no nesting in code, HTML blocks, thematic breaks or indentation alone", () => {
    const deepQuote = ">".repeat(40);
    expect(tooDeepLine(`\`\`\`\n${deepQuote} quoted\n\`\`\`\n`)).toBeUndefined();
    expect(tooDeepLine(`~~~\n${" ".repeat(260)}deep\n~~~\n`)).toBeUndefined();
    expect(tooDeepLine(`<pre>\n${" ".repeat(300)}deep\n</pre>\n`)).toBeUndefined();
    expect(tooDeepLine(`<!--\n${"- ".repeat(40)}x\n\n${"> ".repeat(40)}\n-->\n`)).toBeUndefined();
    expect(tooDeepLine(`Before.\n\n${Array(34).fill("-").join(" ")}\n\nAfter.\n`)).toBeUndefined();
    expect(tooDeepLine(`Example:\n\n    ${"> ".repeat(40)}\n${" ".repeat(300)}x\n`)).toBeUndefined();
    expect(tooDeepLine(`${" ".repeat(300)}x`)).toBeUndefined();
  });

  it("starts lines after a carriage return too, and numbers them in line feeds", () => {
    for (const separator of ["\r", "\r\n"]) {
      const body = `first${separator}${"> ".repeat(MAX_NESTING + 1)}deep\nlast`;
      expect(tooDeepLine(body)).toBe(separator === "\r" ? 1 : 2);
    }
  });

  it("gives the GFM parser's nesting and headings on thousands of generated bodies", () => {
    const next = generator(7);
    for (let round = 0; round < 2_000; round++) {
      const parts: string[] = [];
      for (let count = next(50); count > 0; count--) parts.push(PIECES[next(PIECES.length)] ?? "");
      const body = parts.join("");
      const limit = next(6);
      const expected = reference(body, limit);
      const found = outline(body, limit);
      expect(found.tooDeep, JSON.stringify(body)).toBe(expected.tooDeep);
      // The pass stops at the first line nested too deep.
      const before = (headings: string[]): string[] => headings.filter((heading) => Number(heading.split(":")[0]) < (expected.tooDeep ?? Infinity));
      expect(before(found.headings), JSON.stringify(body)).toEqual(before(expected.headings));
    }
  });

  it("answers the same with and without the cheap first look, at the real limit", () => {
    const next = generator(11);
    for (let round = 0; round < 2_000; round++) {
      const parts: string[] = [];
      for (let count = next(30); count > 0; count--) parts.push(PIECES[next(PIECES.length)] ?? "");
      let body = parts.join("");
      if (next(3) === 0) body = `x\n${["> ", "- ", "1. ", " > "][next(4)]?.repeat(MAX_NESTING + next(3) - 1)}${body}`;
      const tooDeep = outlineBlocks(body.split("\n"), MAX_NESTING).tooDeep;
      expect(tooDeepLine(body), JSON.stringify(body)).toBe(tooDeep === undefined ? undefined : tooDeep + 1);
    }
  });
});
