// Compares the link scanner lint uses (src/pipeline/parse/body-links.ts) with
// remark-gfm on every Markdown file of the labelled corpus: every link the
// scanner reports must be a link, image or definition GFM finds on that line,
// spanning the reported column, with the same destination. Prints each
// disagreement and the share of GFM's local links the scanner finds. A full
// GFM parse is slow (minutes for the corpus), so `npm test` runs a sample of
// this (test/parse/body-links.test.ts); run this after changing the scanner.
// Run `npm run build:ts` first.
//
//   node scripts/corpus-gfm-check.mjs [EVERY]   (every EVERY-th file only)
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { unified } from "unified";
import remarkParse from "remark-parse";
import remarkGfm from "remark-gfm";
import remarkFrontmatter from "remark-frontmatter";
import { scanBodyLinks } from "../lib/pipeline/parse/body-links.js";

const corpus = join(dirname(fileURLToPath(import.meta.url)), "..", "corpus");
const every = Number(process.argv[2] ?? 1);
const gfm = unified().use(remarkParse).use(remarkFrontmatter, ["yaml"]).use(remarkGfm);
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith(".md") && statSync(path).size > 0) files.push(path);
  }
};
walk(corpus);
const isLocal = (url) => !/^[a-z][a-z0-9+.-]*:|^#/i.test(url);
let disagreements = 0;
let found = 0;
let local = 0;
for (const file of files.filter((_, index) => index % every === 0)) {
  const text = readFileSync(file, "utf8").replace(/\r\n?/g, "\n");
  const lines = text.split("\n");
  // The body starts after the frontmatter, as lint splits it.
  const close = lines[0] === "---" ? lines.indexOf("---", 1) : -1;
  const bodyStart = close > 0 ? close + 2 : 1;
  const scanned = scanBodyLinks(lines.slice(bodyStart - 1).join("\n"), bodyStart).links;
  const nodes = [];
  const visit = (node) => {
    if ((node.type === "link" || node.type === "image" || node.type === "definition") && node.position && node.position.start.line >= bodyStart) nodes.push(node);
    for (const child of node.children ?? []) visit(child);
  };
  visit(gfm.parse(text));
  local += nodes.filter((node) => isLocal(node.url)).length;
  for (const link of scanned) {
    const { start, end } = { start: (node) => node.position.start, end: (node) => node.position.end };
    const match = nodes.find(
      (node) =>
        node.url === link.target &&
        (start(node).line < link.line || (start(node).line === link.line && start(node).column <= link.column)) &&
        (end(node).line > link.line || (end(node).line === link.line && end(node).column >= link.column + link.target.length)),
    );
    if (!match) {
      disagreements++;
      process.stdout.write(`not a GFM link: ${relative(corpus, file)}:${link.line}:${link.column} ${link.kind} ${link.target}\n`);
    } else if (isLocal(link.target)) found++;
  }
}
process.stdout.write(`${files.length} Markdown files, ${disagreements} links GFM does not read, ${found} of ${local} local GFM links found\n`);
process.exitCode = disagreements === 0 ? 0 : 1;
