/**
 * The checklist chooser answers two heading questions with a cheap test
 * first: a heading with no digit numbers no part, and a heading with none of
 * the words OUTSIDE_HEADING's alternatives hold is not outside the procedure.
 * Each cheap test is a necessary condition of its pattern, so the answers are
 * the same for every heading: proved here on every code point where a single
 * character decides, and on generated headings full of the characters that
 * case-insensitive Unicode matching treats specially.
 */
import { describe, expect, it } from "vitest";
import { isOutsideHeading, NUMBERED_PART, OUTSIDE_HEADING } from "../../src/pipeline/parse/checklist.js";
import { seededRandom } from "../helpers/random.js";

/** Characters whose case folding is unusual: long s, Kelvin sign, ypogegrammeni, capital sharp s, the sigmas, Turkish i, and their neighbours. */
const ODD_CHARACTERS = [
  "\u017F", "\u212A", "\u212B", "\u0345", "\u0399", "\u03B9", "\u1FBE", "\u1E9E", "\u00DF", "\u03A3", "\u03C3", "\u03C2",
  "\u0130", "\u0131", "I", "i", "K", "k", "S", "s", "\u00C5", "\u00E5", "\u01C5", "\u01C4", "\u01C6", "\uFB00", "\uFB06",
  "\u2160", "\u2170", "\u24B6", "\u24D0", "\uFF21", "\uFF41", "\u0660", "\u0661", "\u06F1", "\u0966", "\uFF10", "\uFF11",
  "\u{1D7CE}", "\u{10400}", "\u{10428}", "\u{1E900}", "\u{1E922}", "\uD800", "\uDC00", "\u2019", "'", "-", "_", " ", "\t",
];
const WORDS = [
  "next", "steps", "step", "follow", "ups", "up", "see", "also", "related", "further", "reading", "what", "s", "when", "if",
  "Phase", "Part", "Workflow", "Checklist", "The", "a", "an", "this", "top", "Exit", "Post-install", "Steps", "procedure",
];
const PIECES = [...WORDS, ...ODD_CHARACTERS, "1", "2", "12", "3.1", "1.", "2)", "4:", "10-", " ", " ", "\t", "#", "*", "**", "`", "…", ":", "(", "é", "Ω", "ж"];

/** Swaps some characters of a word for characters that case-insensitive Unicode matching takes as the same letter. */
const VARIANTS: Record<string, readonly string[]> = { s: ["S", "\u017F"], k: ["K", "\u212A"], i: ["I", "\u0130", "\u0131"], e: ["E"], t: ["T"], n: ["N"], w: ["W"], h: ["H"], f: ["F"], a: ["A"], o: ["O"], l: ["L"], x: ["X"], d: ["D"], p: ["P"], u: ["U"], r: ["R"], g: ["G"] };
function vary(word: string, random: () => number): string {
  return [...word].map((character) => {
    const variants = VARIANTS[character.toLowerCase()];
    return variants && random() < 0.3 ? (variants[Math.floor(random() * variants.length)] as string) : character;
  }).join("");
}

function headings(count: number, seed: number): string[] {
  const random = seededRandom(seed);
  const result: string[] = [];
  for (let index = 0; index < count; index++) {
    const length = 1 + Math.floor(random() * 7);
    let heading = "";
    for (let piece = 0; piece < length; piece++) {
      const chosen = PIECES[Math.floor(random() * PIECES.length)] as string;
      heading += vary(chosen, random);
      if (random() < 0.5) heading += random() < 0.8 ? " " : "\t";
    }
    result.push(heading);
  }
  return result;
}

describe("the digit test before NUMBERED_PART", () => {
  it("\\d under the pattern's flags matches the digits 0-9 and no other code point", () => {
    const digit = new RegExp("^\\d$", NUMBERED_PART.flags);
    const others: number[] = [];
    for (let codePoint = 0; codePoint <= 0x10ffff; codePoint++) {
      const matches = digit.test(String.fromCodePoint(codePoint));
      if (matches !== (codePoint >= 0x30 && codePoint <= 0x39)) others.push(codePoint);
    }
    expect(others).toEqual([]);
  });

  it("every generated heading the pattern matches has a digit 0-9", () => {
    const matched = headings(200_000, 1).filter((heading) => NUMBERED_PART.test(heading));
    expect(matched.length).toBeGreaterThan(1000);
    expect(matched.filter((heading) => !/[0-9]/.test(heading))).toEqual([]);
  });
});

describe("isOutsideHeading", () => {
  it("answers as OUTSIDE_HEADING on generated headings", () => {
    const all = headings(200_000, 2);
    const differ = all.filter((heading) => isOutsideHeading(heading) !== OUTSIDE_HEADING.test(heading));
    expect(differ).toEqual([]);
    expect(all.filter((heading) => OUTSIDE_HEADING.test(heading)).length).toBeGreaterThan(1000);
  });

  it("answers as OUTSIDE_HEADING on each alternative's words with any one character replaced by a Latin, Greek or Cyrillic letter, a mark or a character that matches an ASCII letter", () => {
    const letterLike = new RegExp("^[a-z]$", OUTSIDE_HEADING.flags);
    const replacements: string[] = [];
    for (let codePoint = 0; codePoint <= 0x10ffff; codePoint++) {
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
      const character = String.fromCodePoint(codePoint);
      if (codePoint < 0x0530 || (codePoint >= 0x1e00 && codePoint < 0x2200) || letterLike.test(character)) replacements.push(character);
    }
    const words = ["next step", "next steps", "follow-up", "followups", "see also", "related", "further reading", "what's next", "what\u2019s next", "when", "if", "- when", "1. If"];
    const differ: string[] = [];
    for (const word of words) {
      for (let at = 0; at < word.length; at++) {
        for (const character of replacements) {
          const heading = `${word.slice(0, at)}${character}${word.slice(at + 1)}`;
          if (isOutsideHeading(heading) !== OUTSIDE_HEADING.test(heading)) differ.push(heading);
        }
      }
    }
    expect(differ).toEqual([]);
  });
});
