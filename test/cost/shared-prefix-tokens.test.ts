import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sharedPrefixTokens } from "../../src/cost/shared-prefix-tokens.js";
import { loadTokenizer, sharedTokenCount } from "../../src/tokens.js";

/** A small deterministic generator, so a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

// Characters that decide o200k's pre-token cuts, and the ones a chunk may start with or must not.
// Indented lines are most of a catalog (`    name="..."`), so indentation of every shape is frequent here.
const ALPHABET = ["a", "Z", "Word", "é", "e\u0301", "ß", "日本", "😀", "7", "1234", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\n ", "\n    ", "\n\t", "\n \t ", "\n  <", "/", "//", ">", "<", "#", "- ", "'s", "'", ".", "=\"", "<|endoftext|>", "\u00a0", "\u200b", "\ud800"];

function text(next: () => number, length: number): string {
  let out = "";
  while (out.length < length) out += ALPHABET[Math.floor(next() * ALPHABET.length)] as string;
  return out;
}

/** One edit at `at`: an insertion, a deletion or a replacement by pieces of the alphabet. */
function edit(next: () => number, source: string, at: number): string {
  const kind = Math.floor(next() * 3);
  const removed = kind === 0 ? 0 : 1 + Math.floor(next() * 4);
  const inserted = kind === 1 ? "" : text(next, 1 + Math.floor(next() * 3));
  return source.slice(0, at) + inserted + source.slice(at + removed);
}

describe("sharedPrefixTokens", () => {
  it("gives the shared tokens of the two whole encodings, for edits anywhere in generated texts", async () => {
    const tokenizer = await loadTokenizer();
    const next = random(7);
    for (let round = 0; round < 1500; round++) {
      const before = text(next, 20 + Math.floor(next() * 400));
      const after = edit(next, before, Math.floor(next() * before.length));
      const chunkChars = 1 + Math.floor(next() * 40);
      const expected = sharedTokenCount(tokenizer.encode(before), tokenizer.encode(after));
      expect({ round, before, after, chunkChars, shared: sharedPrefixTokens(before, after, chunkChars) }).toEqual({ round, before, after, chunkChars, shared: expected });
    }
  });

  it("gives the whole count for two equal texts, and the shorter one's count when one begins the other", async () => {
    const tokenizer = await loadTokenizer();
    const prompt = readFileSync(join("dist", "variants", "deck-generation.md"), "utf8");
    expect(sharedPrefixTokens(prompt, prompt, 64)).toBe(tokenizer.count(prompt));
    const cut = prompt.lastIndexOf("\n#");
    expect(sharedPrefixTokens(prompt.slice(0, cut + 1), prompt, 64)).toBe(sharedTokenCount(tokenizer.encode(prompt.slice(0, cut + 1)), tokenizer.encode(prompt)));
    expect(sharedPrefixTokens(prompt, prompt.slice(0, cut + 1), 64)).toBe(sharedTokenCount(tokenizer.encode(prompt), tokenizer.encode(prompt.slice(0, cut + 1))));
  });

  it("agrees with the whole encodings on edits to the embedded default's compiled variants, at line starts and inside lines", async () => {
    const tokenizer = await loadTokenizer();
    const next = random(11);
    for (const name of readdirSync(join("dist", "variants")).sort()) {
      const prompt = readFileSync(join("dist", "variants", name), "utf8");
      const encoded = tokenizer.encode(prompt);
      const lineStarts = [...prompt.matchAll(/\n/g)].map((match) => (match.index ?? 0) + 1);
      for (let round = 0; round < 40; round++) {
        // Half the edits land right at a line start, where chunks begin; a few put a slash, a space or a line feed there.
        const at = round % 2 === 0 ? (lineStarts[Math.floor(next() * lineStarts.length)] as number) : Math.floor(next() * prompt.length);
        const after = round % 5 === 0 ? prompt.slice(0, at) + ["/", " ", "\n", "é"][round % 4] + prompt.slice(at) : edit(next, prompt, at);
        expect({ name, at, shared: sharedPrefixTokens(prompt, after, 256) }).toEqual({ name, at, shared: sharedTokenCount(encoded, tokenizer.encode(after)) });
      }
    }
  });

  it("agrees with the whole encodings where an edit changes an indentation, the chunk start of an indented line", async () => {
    const tokenizer = await loadTokenizer();
    // A catalog as the compiled prompts hold it: every line indented, each a chunk start at its indentation's last space.
    const catalog = `<available_skills>\n${Array.from({ length: 30 }, (_, i) => `  <skill\n    name="skill-${i}"\n    path="skills/skill-${i}/SKILL.md"\n  >\n    Use when case ${i} needs it.\n\t\t1. Step ${i}\n  </skill>\n`).join("")}</available_skills>\n`;
    const encoded = tokenizer.encode(catalog);
    let checked = 0;
    for (const line of catalog.matchAll(/\n([ \t]+)/g)) {
      const first = (line.index ?? 0) + line[0].length;
      const indentStart = first - (line[1] ?? "").length;
      const edits = [" ", "\t", "\n", "x", "/", "1"].map((inserted) => catalog.slice(0, first) + inserted + catalog.slice(first));
      edits.push(catalog.slice(0, first - 1) + catalog.slice(first), catalog.slice(0, indentStart) + catalog.slice(first));
      for (const after of edits) {
        for (const chunkChars of [1, 7, 64]) {
          expect({ first, after: after.slice(first - 8, first + 8), chunkChars, shared: sharedPrefixTokens(catalog, after, chunkChars) }).toEqual({ first, after: after.slice(first - 8, first + 8), chunkChars, shared: sharedTokenCount(encoded, tokenizer.encode(after)) });
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});
