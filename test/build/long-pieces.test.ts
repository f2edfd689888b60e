import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { encodeLongPieces, hasLongPiece, LONG_PIECE_LENGTH, mayHoldLongPiece, type MergeWork, preTokens } from "../../src/long-pieces.js";
import { tokenizer } from "../../src/tokens.js";
import { seededRandom } from "../helpers/random.js";

const require = createRequire(import.meta.url);
const library = require("gpt-tokenizer/encoding/o200k_base") as typeof import("gpt-tokenizer/encoding/o200k_base");
const { BytePairEncodingCore } = require("gpt-tokenizer/BytePairEncodingCore") as typeof import("gpt-tokenizer/BytePairEncodingCore");
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };
const MIB = 1024 * 1024;
const corpus = join(import.meta.dirname, "..", "..", "corpus");

/** The library's own tokens for `text`, special-token strings as plain text (as tokens.ts asks for them). */
function libraryTokens(text: string): number[] {
  return library.encode(text, PLAIN_TEXT);
}

function skillFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((path) => path === "SKILL.md" || path.endsWith("/SKILL.md"))
    .sort()
    .map((path) => join(folder, path));
}

/**
 * Records the length of every piece the library's byte-pair merge is handed,
 * and refuses one longer than a long piece's bytes can be, so a text that
 * still reached the quadratic merge fails at once instead of running for minutes.
 */
function watchLibraryMerge(): number[] {
  const lengths: number[] = [];
  const prototype = BytePairEncodingCore.prototype as unknown as { bytePairMerge(piece: Uint8Array): number[] };
  const original = prototype.bytePairMerge;
  vi.spyOn(prototype, "bytePairMerge").mockImplementation(function (this: unknown, piece: Uint8Array) {
    lengths.push(piece.length);
    if (piece.length > 3 * LONG_PIECE_LENGTH) throw new Error(`the library's merge was handed a ${piece.length}-byte piece`);
    return original.call(this, piece);
  });
  return lengths;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a very long pre-token", () => {
  it.each([
    ["=", "a run of one punctuation character"],
    ["a", "a run of one letter"],
    ["<", "a run of angle brackets"],
    [" ", "a run of spaces"],
    ["é", "a run of a two-byte letter"],
  ])("of 1 MiB (%j, %s) never reaches the library's quadratic merge", (character, _what) => {
    const lengths = watchLibraryMerge();
    const text = `# Heading\n\n${character.repeat(MIB)}\nLast line.\n`;
    const count = tokenizer().count(text);
    expect(count).toBeGreaterThan(0);
    expect(Math.max(0, ...lengths)).toBeLessThanOrEqual(3 * LONG_PIECE_LENGTH);
  });

  it("is merged with a bounded number of heap steps: at most three per byte", () => {
    const text = "=".repeat(MIB);
    const work: MergeWork = { heapPops: 0 };
    const tokens = encodeLongPieces(text, work);
    expect(tokens.length).toBeGreaterThan(0);
    expect(work.heapPops).toBeLessThanOrEqual(3 * Buffer.byteLength(text));
  });

  it("is routed to the heap merge only above LONG_PIECE_LENGTH code units", () => {
    expect(hasLongPiece("=".repeat(LONG_PIECE_LENGTH))).toBe(false);
    expect(hasLongPiece(`${"=".repeat(LONG_PIECE_LENGTH)} and more`)).toBe(false);
    expect(hasLongPiece("=".repeat(LONG_PIECE_LENGTH + 1))).toBe(true);
    expect(hasLongPiece(`Text, then ${"a".repeat(LONG_PIECE_LENGTH + 1)}`)).toBe(true);
    expect(hasLongPiece(`x${" \t".repeat(LONG_PIECE_LENGTH)}y`)).toBe(true);
    expect(hasLongPiece(`=${"/\n".repeat(LONG_PIECE_LENGTH)}`)).toBe(true);
  });

  it("is never ruled out by the quick pass: every whitespace unit counts as whitespace there", () => {
    for (let code = 0; code <= 0xffff; code++) {
      const unit = String.fromCharCode(code);
      if (/^\s$/u.test(unit)) expect(mayHoldLongPiece(unit.repeat(LONG_PIECE_LENGTH + 1)), `U+${code.toString(16)}`).toBe(true);
    }
  });

  it("is never ruled out by the quick pass in random texts of long runs (seeded)", () => {
    const alphabet = ["a", "Z", "é", "\u0301", "7", " ", "\t", "\n", "\r", "/", "=", "'s", "😀", "\u00a0", "\u3000", " x"];
    const random = seededRandom(512);
    let long = 0;
    for (let round = 0; round < 400; round++) {
      let text = "";
      while (text.length < 3 * LONG_PIECE_LENGTH) {
        const unit = alphabet[Math.floor(random() * alphabet.length)] as string;
        text += unit.repeat(1 + Math.floor(random() * random() * LONG_PIECE_LENGTH));
      }
      const scanned = [...preTokens(text)].some(([piece]) => piece.length > LONG_PIECE_LENGTH);
      if (scanned) long++;
      if (scanned) expect(mayHoldLongPiece(text), JSON.stringify(text)).toBe(true);
      expect(hasLongPiece(text)).toBe(scanned);
    }
    expect(long).toBeGreaterThan(20);
  });
});

describe("the heap merge gives the library's tokens", () => {
  it("for runs just long enough to be routed to it, in every kind of pre-token", () => {
    const runs = ["=", "a", "A", "<", " ", "\t", "-", "é", "日本", "😀", "a\u0301", "ab", "Ab", "\n", " \n", "'s", "\uD800"];
    for (const run of runs) {
      const text = `x ${run.repeat(Math.ceil((3 * LONG_PIECE_LENGTH) / run.length))}!`;
      expect(encodeLongPieces(text), JSON.stringify(run)).toEqual(libraryTokens(text));
      expect(tokenizer().encode(text)).toEqual(libraryTokens(text));
      expect(tokenizer().count(text)).toBe(library.countTokens(text, PLAIN_TEXT));
    }
  });

  it("for random texts of long runs (seeded: a failure names a text that replays)", () => {
    const alphabet = ["a", "Z", "é", "7", " ", "\t", "\n", "\r\n", "/", ">", "<", "=", "'", ".", "-", "_", "😀", "日", "\u00a0", "<|endoftext|>"];
    const random = seededRandom(20261205);
    for (let round = 0; round < 40; round++) {
      let text = "";
      while (text.length < 4 * LONG_PIECE_LENGTH) {
        const unit = alphabet[Math.floor(random() * alphabet.length)] as string;
        text += unit.repeat(1 + Math.floor(random() * random() * 2 * LONG_PIECE_LENGTH));
      }
      expect(encodeLongPieces(text), `round ${round}`).toEqual(libraryTokens(text));
    }
  });

  it("for every SKILL.md of the labelled corpus, token for token; none has a long piece, so each goes to the library as before", () => {
    const files = skillFiles(corpus);
    expect(files.length).toBeGreaterThan(900);
    let tokens = 0;
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      const expected = libraryTokens(text);
      expect(encodeLongPieces(text), file).toEqual(expected);
      expect(hasLongPiece(text), file).toBe(false);
      tokens += expected.length;
    }
    expect(tokens).toBeGreaterThan(1_000_000);
    // Over a million tokens, each text encoded twice: seconds on a quiet machine, far more on a loaded one.
  }, 180_000);
});
