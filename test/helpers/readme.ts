import { readFileSync } from "node:fs";
import { expect } from "vitest";

/** The README, the user's manual whose transcripts and samples the tests produce. */
export const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/** Every fenced code block of the README: its language tag and its text without the fences. */
export const codeBlocks: readonly { language: string; text: string }[] = [...readme.matchAll(/^```([a-z]*)\n([\s\S]*?)^```$/gm)].map((match) => ({
  language: match[1] as string,
  text: match[2] as string,
}));

/** The text of the one README block that starts with `start` (and has that language tag, when given). */
export function blockStartingWith(start: string, language?: string): string {
  const found = codeBlocks.filter((block) => block.text.startsWith(start) && (language === undefined || block.language === language)).map((block) => block.text);
  expect(found, `one README block starting with ${JSON.stringify(start)}`).toHaveLength(1);
  return found[0] as string;
}

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
    expect(found, `README excerpt piece ${index} in order:\n${piece}`).toBeGreaterThanOrEqual(at);
    if (index === 0) expect(found, "the excerpt starts where the output starts").toBe(0);
    // A piece must begin at a line start so that `...` stands for whole lines.
    expect(found === 0 || full[found - 1] === "\n", `piece ${index} starts a line`).toBe(true);
    at = found + piece.length;
  }
  if (pieces.at(-1) !== "") expect(at, "the excerpt ends where the output ends").toBe(full.length);
}
