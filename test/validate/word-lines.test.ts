import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { WordLines } from "../../src/pipeline/validate/word-lines.js";

// The unreferenced-file rule reads only the lines of a text that hold one of
// the words of the files still unnamed. A short word list is searched word by
// word with indexOf, a long one (or one with an empty word or a line feed in a
// word) with one pattern of all the words: both must give the same parts, to
// the byte, on real Markdown and on generated texts full of overlapping words.

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function* markdownFiles(folder: string): Generator<string> {
  for (const entry of readdirSync(folder).sort()) {
    const path = join(folder, entry);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) yield* markdownFiles(path);
    else if (stat?.isFile() && entry.endsWith(".md") && stat.size < 200_000) yield path;
  }
}

/** A small deterministic generator: the same texts on every run. */
function generator(seed: number): (limit: number) => number {
  let state = seed;
  return (limit) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % limit;
  };
}

function expectSameParts(words: readonly string[], text: string): void {
  const lines = new WordLines(words);
  expect(lines.partsBySearch(text), JSON.stringify({ words, text })).toEqual(lines.partsByPattern(text));
}

/** A followed file's bytes searched as bytes give the parts its decoded text gives. */
function expectSameBytesParts(words: readonly string[], bytes: Buffer): void {
  expect(new WordLines(words).partsOfBytes(bytes), JSON.stringify({ words, bytes: [...bytes] })).toEqual(new WordLines(words).parts(bytes.toString("utf8")));
}

describe("WordLines", () => {
  it("gives each line holding a word with the line before it, adjoining lines joined", () => {
    const text = "intro\nsee scripts/fill.py\nmore\n\nlast names forms\nend";
    expect(new WordLines(["fill", "forms"]).parts(text)).toEqual(["intro\nsee scripts/fill.py", "\nlast names forms"]);
    expect(new WordLines(["scripts", "more"]).parts(text)).toEqual(["intro\nsee scripts/fill.py\nmore"]);
    expect(new WordLines(["intro"]).parts(text)).toEqual(["intro"]);
    expect(new WordLines(["end"]).parts(text)).toEqual(["last names forms\nend"]);
    expect(new WordLines(["absent"]).parts(text)).toEqual([]);
    expect(new WordLines([]).parts(text)).toEqual([]);
  });

  it("searches word by word with the pattern's answer on the repository's Markdown", () => {
    const files = [...markdownFiles(join(root, "docs")), ...markdownFiles(join(root, "corpus", "anthropics-skills"))];
    expect(files.length).toBeGreaterThan(20);
    const wordLists = [["scripts", "references", "reference", "forms"], ["md", "e", "the"], ["SKILL", "README", "LICENSE", "assets", "a-b", "x.y"], ["(", "[", "`"]];
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (const words of wordLists) expectSameParts(words, text);
    }
  });

  it("searches a file's bytes with the answer of its decoded text", () => {
    const files = [...markdownFiles(join(root, "docs")), ...markdownFiles(join(root, "corpus", "anthropics-skills"))];
    const wordLists = [["scripts", "references", "reference", "forms"], ["md", "e", "the"], ["SKILL", "README", "LICENSE", "assets", "a-b", "x.y"], ["(", "[", "`"], ["—", "é", "→"]];
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const words of wordLists) expectSameBytesParts(words, bytes);
    }
  });

  it("searches bytes with the decoded text's answer where bytes are not UTF-8, around multi-byte characters and at the edges", () => {
    const next = generator(7);
    // Whole characters of one to four bytes, line feeds, a BOM, and bytes that are no UTF-8 on their own or cut short.
    const pieces = ["a", "b", "ab", "é", "€", "😀", "\n", "\n\n", " ", "\uFEFF", "\uFFFD"].map((text) => Buffer.from(text, "utf8"));
    pieces.push(Buffer.from([0xc3]), Buffer.from([0xe2, 0x82]), Buffer.from([0xf0, 0x9f, 0x98]), Buffer.from([0xa9]), Buffer.from([0xff]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xc0, 0xaf]));
    const vocabulary = ["a", "ab", "b", "é", "€", "😀", "a€", "éa", "\uFFFD", "\uFFFDa", "b\uFEFF"];
    for (let round = 0; round < 5_000; round++) {
      const chunks: Buffer[] = [];
      for (let count = next(30); count > 0; count--) chunks.push(pieces[next(pieces.length)] ?? Buffer.alloc(0));
      const words: string[] = [];
      for (let count = 1 + next(4); count > 0; count--) words.push(vocabulary[next(vocabulary.length)] ?? "");
      expectSameBytesParts(words, Buffer.concat(chunks));
    }
    // More than the words searched one by one, and an empty word: the decoded text answers.
    const many = Array.from({ length: 20 }, (_, index) => `w${index}`);
    expectSameBytesParts(many, Buffer.from("x\nw3 and w17\ny\n"));
    expectSameBytesParts(["", "a"], Buffer.from("b\na\n"));
  });

  it("gives the pattern's answer on thousands of generated texts with overlapping and repeated words", () => {
    const next = generator(11);
    const pieces = ["ab", "abc", "bc", "c", "a", "b", " ", "\n", "\n\n", "x", "abab", "%20", ".", "\r", "-"];
    const vocabulary = ["ab", "abc", "bc", "c", "ba", "b", "cab", "abab", "a%20b", ".", "x.a", "-"];
    for (let round = 0; round < 5_000; round++) {
      const parts: string[] = [];
      for (let count = next(40); count > 0; count--) parts.push(pieces[next(pieces.length)] ?? "");
      const words: string[] = [];
      for (let count = 1 + next(4); count > 0; count--) words.push(vocabulary[next(vocabulary.length)] ?? "");
      expectSameParts(words, parts.join(""));
    }
  });
});
