import { describe, expect, it } from "vitest";
import type { Range } from "../../src/diagnostics/diagnostic.js";
import { readManifestSpellings, tokensOf } from "../../src/pipeline/parse/design-fields.js";
import { parseSkillFile } from "../../src/pipeline/parse/parse.js";
import { scalarCharacterSpan } from "../../src/pipeline/parse/scalar-offsets.js";

/**
 * A list of names written as one string under metadata
 * (`gamma-requires-skills: a b c`) gives each name the range where the scalar
 * writes it. Each name's range is the one a lookup of its first and last
 * character alone gives, in every scalar style; and finding all of them is
 * one walk of the scalar, so a string of thousands of names costs no more per
 * name than a short one.
 */

async function parsed(scalarLines: string[]) {
  const text = ["---", "name: rq", "description: Use when x.", "metadata:", ...scalarLines, "---", "x", ""].join("\n");
  const skill = await parseSkillFile({ path: "skills/rq/SKILL.md", text, contentHash: "" });
  if (!skill.tree) throw new Error("no frontmatter tree");
  return { skill, tree: skill.tree, index: skill.index };
}

/** Each token's range as a lookup of its first and last character on its own, from the scalar's start, gives it. */
function rangesOneByOne(skill: Awaited<ReturnType<typeof parsed>>["skill"], valueRange: Range, value: string): Range[] {
  const { index } = skill;
  const start = index.lineStart(valueRange.start.line) + valueRange.start.column - 1;
  const end = index.lineStart(valueRange.end.line) + valueRange.end.column - 1;
  return tokensOf(value).map((token) => {
    const first = scalarCharacterSpan(index.text, start, end, value, token.first);
    const last = scalarCharacterSpan(index.text, start, end, value, token.last);
    return first && last ? index.range(first.at, last.next) : valueRange;
  });
}

function names(count: number, spell: (i: number) => string): string[] {
  return Array.from({ length: count }, (_, i) => spell(i));
}

const STYLES: Record<string, string[]> = {
  plain: [`  gamma-requires-skills: ${names(120, (i) => `s${i}`).join(" ")}`],
  "plain over lines": ["  gamma-requires-skills: a0 a1", ...names(60, (i) => `    b${i} c${i}`)],
  "plain with astral characters": [`  gamma-requires-skills: ${names(80, (i) => `😀${i}𝒳 é${i}`).join(" ")}`],
  "single-quoted": [`  gamma-requires-skills: '${names(80, (i) => `it''s${i} q${i}`).join(" ")}'`],
  "double-quoted with escapes": [
    `  gamma-requires-skills: "${names(80, (i) => `\\u00e9${i} \\x41b${i}\\tc${i} \\U0001F600d${i} e\\\\${i}`).join(" ")} last\\`,
    `    continued \\"q\\" end"`,
  ],
  "double-quoted over lines": ['  gamma-requires-skills: "a b', ...names(40, (i) => `    c${i}  d${i}`), '    e"'],
  literal: ["  gamma-requires-skills: |", ...names(60, (i) => `    l${i} m${i}`)],
  "literal, strip": ["  gamma-requires-skills: |-", ...names(60, (i) => `    l${i}`), "", "    after-blank"],
  folded: ["  gamma-requires-skills: >", ...names(60, (i) => `    f${i} g${i}`)],
  "folded, keep, with indented lines": ["  gamma-requires-skills: >+", ...names(45, (i) => (i % 3 === 1 ? `      in${i}` : `    f${i}`)), ""],
  "tagged and anchored": [`  gamma-requires-skills: &names !!str ${names(60, (i) => `t${i}`).join(" ")}`],
  "tagged and quoted": [`  gamma-requires-skills: !!str "${names(60, (i) => `\\u0074${i}`).join(" ")}"`],
};

describe("each name of a list written as one string has the range its own lookup gives", () => {
  for (const [style, lines] of Object.entries(STYLES)) {
    it(style, async () => {
      const { skill, tree, index } = await parsed(lines);
      const spellings = readManifestSpellings(tree, index);
      const value = (tree.value as { metadata: Record<string, string> }).metadata["gamma-requires-skills"] ?? "";
      const valueRange = tree.valueRanges.get("/metadata/gamma-requires-skills");
      if (!valueRange) throw new Error("no value range");
      const expected = rangesOneByOne(skill, valueRange, value);
      expect(expected.length).toBeGreaterThan(30);
      // Every name is matched to its own place, not to the whole value.
      expect(expected.filter((range) => range === valueRange)).toEqual([]);
      const listed = spellings.view.value as { requiresSkills: string[] };
      expect(listed.requiresSkills).toEqual(tokensOf(value).map((token) => token.text));
      const actual = listed.requiresSkills.map((_, i) => spellings.view.valueRanges.get(`/requiresSkills/${i}`));
      expect(actual).toEqual(expected);
    });
  }

  it("names of an alias, whose source is elsewhere, each get the whole value", async () => {
    const { tree, index } = await parsed(["  other: &n a b c", "  gamma-requires-skills: *n"]);
    const spellings = readManifestSpellings(tree, index);
    const valueRange = tree.valueRanges.get("/metadata/gamma-requires-skills");
    expect(valueRange).toBeDefined();
    expect([0, 1, 2].map((i) => spellings.view.valueRanges.get(`/requiresSkills/${i}`))).toEqual([valueRange, valueRange, valueRange]);
  });
});

describe("finding every name's range is one walk of the scalar", () => {
  /** How many times the source is compared with a value's character while the names' ranges are found. */
  async function comparisons(count: number): Promise<{ comparisons: number; length: number }> {
    const listed = names(count, (i) => `s${i}`).join(" ");
    const { tree, index } = await parsed([`  gamma-requires-skills: ${listed}`]);
    const original = String.prototype.startsWith;
    let calls = 0;
    String.prototype.startsWith = function (this: string, search: string, position?: number): boolean {
      calls++;
      return original.call(this, search, position);
    };
    try {
      readManifestSpellings(tree, index);
    } finally {
      String.prototype.startsWith = original;
    }
    return { comparisons: calls, length: listed.length };
  }

  it("the comparisons grow with the string's length, not with its square", async () => {
    const small = await comparisons(100);
    const large = await comparisons(1_000);
    // Each character of the scalar is compared a bounded number of times, however many names it holds.
    expect(small.comparisons).toBeLessThanOrEqual(3 * small.length);
    expect(large.comparisons).toBeLessThanOrEqual(3 * large.length);
  });
});
