import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** One page of the user's manual (README.md or a page under docs/), whose transcripts and samples the tests produce. */
export interface DocPage {
  /** The page's path relative to the repository, with forward slashes. */
  readonly path: string;
  readonly text: string;
  /** Every fenced code block of the page: its language tag and its text without the fences. */
  readonly codeBlocks: readonly { language: string; text: string }[];
  /** The text of the one block of this page that starts with `start` (and has that language tag, when given). */
  blockStartingWith(start: string, language?: string): string;
}

export function docPage(path: string): DocPage {
  const text = readFileSync(join(repoRoot, path), "utf8");
  const codeBlocks = [...text.matchAll(/^```([a-z]*)\n([\s\S]*?)^```$/gm)].map((match) => ({ language: match[1] as string, text: match[2] as string }));
  return {
    path,
    text,
    codeBlocks,
    blockStartingWith(start, language) {
      const found = codeBlocks.filter((block) => block.text.startsWith(start) && (language === undefined || block.language === language)).map((block) => block.text);
      expect(found, `one block of ${path} starting with ${JSON.stringify(start)}`).toHaveLength(1);
      return found[0] as string;
    },
  };
}

/** README.md and every Markdown page under docs/, sorted, as repository-relative paths. */
export function manualPaths(): string[] {
  const pages: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".md")) pages.push(relative(repoRoot, path).split("\\").join("/"));
    }
  };
  walk(join(repoRoot, "docs"));
  return ["README.md", ...pages.sort()];
}

export const readme = docPage("README.md");

/**
 * `excerpt` is `full` with some runs of whole lines replaced by a `...` line
 * (indented or not); every other byte must match, in order.
 */
export function expectExcerptOf(excerpt: string, full: string): void {
  const pieces = excerpt.split(/^ *\.\.\.\n/m);
  expect(pieces.length, "the excerpt leaves something out").toBeGreaterThan(1);
  let at = 0;
  for (const [index, piece] of pieces.entries()) {
    const found = full.indexOf(piece, at);
    expect(found, `excerpt piece ${index} in order:\n${piece}`).toBeGreaterThanOrEqual(at);
    if (index === 0) expect(found, "the excerpt starts where the output starts").toBe(0);
    // A piece must begin at a line start so that `...` stands for whole lines.
    expect(found === 0 || full[found - 1] === "\n", `piece ${index} starts a line`).toBe(true);
    at = found + piece.length;
  }
  if (pieces.at(-1) !== "") expect(at, "the excerpt ends where the output ends").toBe(full.length);
}
