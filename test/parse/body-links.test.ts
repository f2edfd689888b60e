import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { unified } from "unified";
import remarkParse from "remark-parse";
import remarkGfm from "remark-gfm";
import { bracketed, linkTail, scanBodyLinks, stickyTail, type BodyLink } from "../../src/pipeline/parse/body-links.js";

/**
 * The link scanner against the GFM parser itself: every link it reports is a
 * link, image or definition remark-gfm finds on the same line, spanning the
 * reported column, with the same destination; and it misses few.
 */
const gfm = unified().use(remarkParse).use(remarkGfm);

interface GfmLink {
  url: string;
  start: { line: number; column: number };
  end: { line: number; column: number };
}

function gfmLinks(markdown: string): GfmLink[] {
  const found: GfmLink[] = [];
  const visit = (node: { type: string; url?: string; position?: GfmLink; children?: unknown[] }): void => {
    if ((node.type === "link" || node.type === "image" || node.type === "definition") && node.position && node.url !== undefined) {
      found.push({ url: node.url, start: node.position.start, end: node.position.end });
    }
    for (const child of node.children ?? []) visit(child as typeof node);
  };
  visit(gfm.parse(markdown) as unknown as Parameters<typeof visit>[0]);
  return found;
}

const within = (link: BodyLink, node: GfmLink): boolean =>
  (node.start.line < link.line || (node.start.line === link.line && node.start.column <= link.column)) &&
  (node.end.line > link.line || (node.end.line === link.line && node.end.column >= link.column + link.target.length));

/** Scanned links GFM does not read as links there, and GFM's local links the scanner missed. */
function compare(markdown: string): { unsound: BodyLink[]; missed: GfmLink[]; scanned: BodyLink[] } {
  const scanned = scanBodyLinks(markdown, 1).links;
  const nodes = gfmLinks(markdown);
  const unsound = scanned.filter((link) => !nodes.some((node) => node.url === link.target && within(link, node)));
  const local = nodes.filter((node) => !/^[a-z][a-z0-9+.-]*:|^#/i.test(node.url));
  const missed = local.filter((node) => !scanned.some((link) => link.target === node.url && within(link, node)));
  return { unsound, missed, scanned };
}

const at = (markdown: string): string[] => scanBodyLinks(markdown, 1).links.map((link) => `${link.line}:${link.column} ${link.kind} ${link.target}`);

describe("scanBodyLinks reads links as GFM does", () => {
  const cases: Array<[string, string, string[]]> = [
    ["an inline link and an image", "See [a](references/a.md) and ![b](assets/b.png).\n", ["1:9 link references/a.md", "1:35 image assets/b.png"]],
    ["a footnote definition is no link definition", "Text[^1].\n\n[^1]: GitHub Blog. (2022). \"Diagrams.\" https://github.blog/x\n", []],
    ["a link reference definition, also in angle brackets", "[a]: references/a.md\n[b]: <references/b c.md> \"title\"\n", ["1:6 definition references/a.md", "2:7 definition references/b c.md"]],
    ["a definition cannot interrupt a paragraph", "Some text\n[a]: references/a.md\n", []],
    ["a definition with text after it is paragraph text", "[a]: references/a.md more words\n", []],
    ["fenced code, also inside a list item", "- item\n\n  ```\n  [a](x.md)\n  ```\n\n~~~\n[b](y.md)\n~~~\n", []],
    ["a fence in a list item ends with the item", "- item\n  ```sh\n  x\n# Heading\n\n[a](x.md)\n", ["6:5 link x.md"]],
    ["indented code is not read", "Text.\n\n    [a](x.md)\n", []],
    ["a paragraph continuation may be indented", "Text\n    [a](x.md)\n", ["2:9 link x.md"]],
    ["a list item's paragraph is indented", "- item\n\n  [a](x.md)\n", ["3:7 link x.md"]],
    ["inline code hides a link, also across lines", "`[a](x.md)` and ``a\n[b](y.md)`` then [c](z.md)\n", ["2:22 link z.md"]],
    ["an escaped bracket opens no link", "\\[a](x.md) and [b\\]c](y.md)\n", ["1:23 link y.md"]],
    ["HTML blocks and comments hide links", "<div>\n[a](x.md)\n</div>\n\nText <!-- [b](y.md)\n[c](z.md) --> [d](w.md)\n", ["6:19 link w.md"]],
    ["inline markup is not link text", "<a href=\"[a](x.md)\">x</a> [b](y.md)\n", ["1:31 link y.md"]],
    ["a table splits cells before links", "| a | b |\n| --- | --- |\n| [c](x.md) | [d|e](y.md) |\n", ["3:7 link x.md"]],
    ["a block quote", "> See [a](x.md).\n", ["1:11 link x.md"]],
    ["a reference link is no inline link", "[a][b](x.md)\n\n[b]: y.md\n", ["3:6 definition y.md"]],
    ["destinations with escapes or entities are left out", "[a](x\\)y.md) [b](x&amp;y.md) [c](ok.md)\n", ["1:34 link ok.md"]],
    ["a backslash that escapes nothing is part of the destination", "[a](references\\forms.md) [b](x\\_y.md) [c](x\\ \"t\") [d](<a\\b.md>)\n\n[e]: references\\e.md\n", ["1:5 link references\\forms.md", "1:56 link a\\b.md", "3:6 definition references\\e.md"]],
    [
      "a destination whose backslash escapes leave a backslash is read as GFM reads it, beside the text as written",
      "[a](..\\..\\README.md) [b](..\\\\x.md) [c](x\\_y.md) [d](a\\b\\)c.md) \\\\[e](.\\f\\g.md)\n\n[h]: ..\\..\\h.md\n",
      ["1:5 link ....\\README.md", "1:26 link ..\\x.md", "1:70 link .\\f\\g.md", "3:6 definition ....\\h.md"],
    ],
    ["a tab in the indentation is not read", "\t[a](x.md)\n", []],
    ["a list item may open with a fence or an HTML block", "- ~~~\n  [a](x.md)\n  ~~~\n- <div>\n  [b](y.md)\n\n[c](z.md)\n", ["7:5 link z.md"]],
  ];
  for (const [name, markdown, expected] of cases) {
    it(name, () => {
      expect(at(markdown)).toEqual(expected);
      expect(compare(markdown).unsound).toEqual([]);
    });
  }

  it("agrees with remark-gfm on a sample of the corpus's Markdown", () => {
    const corpus = fileURLToPath(new URL("../../corpus/", import.meta.url));
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir).sort()) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith(".md") && statSync(path).size > 0 && statSync(path).size < 20_000) files.push(path);
      }
    };
    walk(corpus);
    // Every 60th file: about 70 files from every collection, in a few seconds.
    const sample = files.filter((_, index) => index % 60 === 0);
    let scanned = 0;
    let missed = 0;
    for (const file of sample) {
      const result = compare(readFileSync(file, "utf8").replace(/\r\n?/g, "\n"));
      expect(result.unsound, file).toEqual([]);
      scanned += result.scanned.length;
      missed += result.missed.length;
    }
    expect(sample.length).toBeGreaterThan(50);
    expect(scanned).toBeGreaterThan(50);
    expect(missed / (scanned + missed)).toBeLessThan(0.02);
  }, 60_000);
});

describe("bracketed reads a line once", () => {
  // The patterns the scanner stands for; they read a line of n unclosed brackets n times.
  const INLINE = /!?\[(?:[^\]\\\n]|\\.)*\]\(\s*(<[^>\n]*>|[^\s()]+(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)/g;
  const REFERENCE = /!?\[((?:[^\]\\\n]|\\.)*)\](?:\[((?:[^\]\\\n]|\\.)*)\])?/g;
  const lines = [
    "See [a](x.md) and ![b](<y z.md> \"t\") then [c](d(e)f 'g') [h](i (j)).",
    "[[a](x.md) ![![b](y.md) [a\\](x.md)](z.md) \\[c](w.md) [d\\\\](v.md)",
    "[a](<x [b](y.md) [c](z (w [d](u.md)",
    "[a]\\\r[b](x.md) [a]\\\u2028(x.md) ![[a][b] [c][] [d]",
    "[a]( x.md\t) [b](x.md\"t\") [c](x.md \"t\"  ) [d](<>) [e]() [f](a(b)c(d)e)",
    `${"[".repeat(50)}](${"a".repeat(50)} [z](ok.md)`,
    `${"[](<".repeat(20)}> x ${"[](a (".repeat(20)})`,
  ];
  it.each(lines)("finds what the inline link pattern finds: %j", (line) => {
    expect(bracketed(line, linkTail(line)).map((match) => [match.index, match.whole, match.groups[0]])).toEqual([...line.matchAll(INLINE)].map((match) => [match.index, match[0], match[1]]));
  });
  it.each(lines)("finds what the reference link pattern finds: %j", (line) => {
    const tail = stickyTail(line, /\](?:\[((?:[^\]\\\n]|\\.)*)\])?/y);
    expect(bracketed(line, tail).map((match) => [match.index, match.whole, match.label, match.groups[0]])).toEqual([...line.matchAll(REFERENCE)].map((match) => [match.index, match[0], match[1], match[2]]));
  });
});
