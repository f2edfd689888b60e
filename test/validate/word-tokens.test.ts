import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { unreferencedFileDiagnostics } from "../../src/pipeline/validate/unreferenced-files.js";
import { tokensHolding } from "../../src/pipeline/validate/word-tokens.js";

// The unreferenced-file rule resolves only the tokens that hold a word of a
// file still unnamed (or `..`): they must be exactly the tokens that cutting
// the text at the rule's breaks gives and that hold one of those, in order,
// each once.

const BREAKS = /[\s`'"()<>[\]{},;|*=]+/;

function expected(text: string, words: readonly string[]): string[] {
  const needles = [...words, ".."].filter((word) => word !== "" && !BREAKS.test(word));
  return text.split(BREAKS).filter((token) => token !== "" && needles.some((word) => token.includes(word)));
}

/** A small deterministic generator: the same texts on every run. */
function generator(seed: number): (limit: number) => number {
  let state = seed;
  return (limit) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % limit;
  };
}

describe("tokensHolding", () => {
  it("gives the tokens holding a word or `..`, in order, each once", () => {
    const text = "Run `python scripts/fill.py` then see [forms](references/forms.md), ../shared and forms.\nfill_form: x=fill.py;fill";
    expect(tokensHolding(text, ["fill", "forms"])).toEqual(["scripts/fill.py", "forms", "references/forms.md", "../shared", "forms.", "fill_form:", "fill.py", "fill"]);
    expect(tokensHolding("see ../ and a/../.. here", [])).toEqual(["../", "a/../.."]);
    expect(tokensHolding("nothing here", ["absent", "", "two words"])).toEqual([]);
  });

  it("cuts where splitting at the breaks cuts, on thousands of generated texts", () => {
    const next = generator(5);
    const pieces = ["ab", "a", "b", "c", ".", "..", "/", " ", "\n", "\t", "\u00a0", "\u2003", "`", "'", '"', "(", ")", "<", ">", "[", "]", "{", "}", ",", ";", "|", "*", "=", ":", "é", "😀", "-", "_"];
    const vocabulary = ["ab", "a", "b", "c", "a.b", "b/c", "é", "😀", "a b", "a=b", "", "-_"];
    for (let round = 0; round < 5_000; round++) {
      const parts: string[] = [];
      for (let count = next(40); count > 0; count--) parts.push(pieces[next(pieces.length)] ?? "");
      const words: string[] = [];
      for (let count = next(4); count > 0; count--) words.push(vocabulary[next(vocabulary.length)] ?? "");
      const text = parts.join("");
      expect(tokensHolding(text, words), JSON.stringify({ text, words })).toEqual(expected(text, words));
    }
  });

  it("takes a path that climbs to a folder it does not write (`../`): a followed file names that folder's files with it", () => {
    const root = mkdtempSync(join(tmpdir(), "gamma-prompt-word-tokens-"));
    try {
      const files: Record<string, string> = {
        "skills/guide/SKILL.md": "---\nname: guide\ndescription: x\n---\nStart at [the index](references/guides/index.md).\n",
        "skills/guide/references/guides/index.md": "Everything in ../ applies, the other notes too.\n",
        "skills/guide/references/other.md": "More.\n",
        "skills/guide/references/extra.md": "Even more.\n",
      };
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      }
      const body = "Start at [the index](references/guides/index.md).\n";
      expect(unreferencedFileDiagnostics({ root, path: "skills/guide/SKILL.md", body })).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
