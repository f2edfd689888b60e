import { describe, expect, it } from "vitest";
import { isHardSplit, lastHardBoundary, measurePrompts, TokenCounter } from "../../src/pipeline/render/measure.js";
import { catalogParts, renderCatalog, type CatalogSkill } from "../../src/skills/catalog.js";
import { cacheableTokens, loadTokenizer, sharedTokenCount } from "../../src/tokens.js";

describe("o200k token counting", () => {
  it("counts special-token strings as plain text instead of throwing", async () => {
    const tokenizer = await loadTokenizer();
    expect(tokenizer.count("Stop at <|endoftext|> and <|im_start|>.")).toBeGreaterThan(5);
  });

  it("rounds cacheable tokens to OpenAI's rule: nothing below 1,024, then steps of 128", () => {
    expect(cacheableTokens(1023)).toBe(0);
    expect(cacheableTokens(1024)).toBe(1024);
    expect(cacheableTokens(1151)).toBe(1024);
    expect(cacheableTokens(1152)).toBe(1152);
    expect(sharedTokenCount([1, 2, 3], [1, 2, 4])).toBe(2);
  });
});

describe("measurePrompts", () => {
  const longPrefix = `${Array.from({ length: 400 }, (_, i) => `Rule ${i}: keep card ${i} short & clear.`).join("\n")}\n`;

  it("gives the same counts as encoding each whole variant", async () => {
    const tokenizer = await loadTokenizer();
    const suffixes = new Map([
      ["base", ""],
      ["deck", "# Preloaded skills\n\nStep one.\n"],
      ["odd", "lowercase start, no heading\n"],
    ]);
    const measures = measurePrompts(new TokenCounter(tokenizer), { prefix: longPrefix, catalog: "<available_skills>\n</available_skills>", suffixes, variantTemplate: "prompts/variant.hbs" });
    expect(lastHardBoundary(longPrefix)).toBeGreaterThan(longPrefix.length - 4096);
    for (const variant of measures.variants) {
      const full = tokenizer.encode(longPrefix + (suffixes.get(variant.name) ?? ""));
      expect(variant.tokens).toBe(full.length);
      expect(variant.sharedPrefixTokens).toBe(sharedTokenCount(tokenizer.encode(longPrefix), full));
    }
    expect(measures.diagnostics).toEqual([]);
  });

  it("reports a join where BPE merges the prefix's last token with the variant's first", async () => {
    const tokenizer = await loadTokenizer();
    const suffixes = new Map([["deck", "\n\nPreloaded.\n"]]);
    const measures = measurePrompts(new TokenCounter(tokenizer), { prefix: "You are Gamma.\n", catalog: "", suffixes, variantTemplate: "prompts/variant.hbs" });
    expect(measures.diagnostics.map((d) => d.ruleId)).toEqual(["variant/token-boundary"]);
    expect(measures.variants[0]?.sharedPrefixTokens).toBeLessThan(measures.prefixTokens);
  });
});

describe("piecewise counting of the catalog", () => {
  /** A small deterministic generator, so a failure names a reproducible case. */
  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
  }
  // Characters that decide o200k's pre-token cuts: line breaks, slashes, punctuation, marks, digits, scripts.
  const ALPHABET = ["a", "Z", "é", "e\u0301", "ß", "日本", "😀", "7", "42", " ", "  ", "\t", "\n", "\r\n", "/", ">", "<", "'s", "'", ".", "&amp;", "-", "_", "\u00a0", "\u200b"];
  const text = (next: () => number, length: number): string =>
    Array.from({ length }, () => ALPHABET[Math.floor(next() * ALPHABET.length)] ?? "").join("");

  it("is exact at every hard split: a piece ending in '>\\n' before anything but \\r, \\n or /", async () => {
    const tokenizer = await loadTokenizer();
    const next = random(20261202);
    let checked = 0;
    let inexactElsewhere = 0;
    for (let round = 0; round < 3000; round++) {
      const before = `${text(next, 1 + Math.floor(next() * 12))}>\n`;
      const after = text(next, Math.floor(next() * 12));
      const exact = tokenizer.count(before + after) === tokenizer.count(before) + tokenizer.count(after);
      if (isHardSplit(before, after)) {
        expect(exact, JSON.stringify([before, after])).toBe(true);
        checked++;
      } else if (!exact) inexactElsewhere++;
    }
    expect(checked).toBeGreaterThan(1000);
    // The rule is not vacuous: the joins it refuses do merge tokens.
    expect(inexactElsewhere).toBeGreaterThan(0);
  });

  it("sums catalog entries to the count of the whole catalog and prefix", async () => {
    const tokenizer = await loadTokenizer();
    const next = random(7);
    const skills: CatalogSkill[] = Array.from({ length: 300 }, (_, i) => ({
      name: `skill-${String(i).padStart(3, "0")}`,
      type: i % 3 === 0 ? ("workflow" as const) : ("reference" as const),
      description: `${i % 5 === 0 ? "TRIGGER" : "Use when"} ${text(next, 3 + (i % 17))} </skill>/ ${i}`,
    }));
    const { head, entries, tail } = catalogParts(skills);
    const catalog = head + entries.join("") + tail;
    expect(catalog).toBe(renderCatalog(skills));
    const before = "# Agent\n\nRead the catalog:\n\n";
    const after = "\n\n## Tools\n\n- `skill`: loads a skill.\n";
    const counter = new TokenCounter(tokenizer);
    expect(counter.countJoined([head, ...entries, tail])).toBe(tokenizer.count(catalog));
    expect(counter.countJoined([before + head, ...entries, tail + after])).toBe(tokenizer.count(before + catalog + after));
  });

  it("checks pieces against the whole text in a repeated session's first build, and trusts the whole when they disagree", async () => {
    const tokenizer = await loadTokenizer();
    const prefix = "You are Gamma.\n<available_skills>\n</available_skills>\n";
    const input = { prefix, catalog: "<available_skills>\n</available_skills>", suffixes: new Map([["base", ""]]), variantTemplate: "prompts/variant.hbs" };
    const agreeingCounter = new TokenCounter(tokenizer, { repeated: true });
    const agreeing = measurePrompts(agreeingCounter, { ...input, pieces: { prefix: ["You are Gamma.\n<available_skills>\n", "</available_skills>\n"], catalog: ["<available_skills>\n", "</available_skills>"] } });
    expect(agreeing.prefixTokens).toBe(tokenizer.count(prefix));
    agreeingCounter.endBuild();
    expect(agreeingCounter.countsPieces).toBe(true);
    // Pieces that do not make up the text: the check catches it and the whole count wins, then and later.
    const wrongCounter = new TokenCounter(tokenizer, { repeated: true });
    const wrongInput = { ...input, pieces: { prefix: ["You are>\n", "Gamma"], catalog: ["x"] } };
    expect(measurePrompts(wrongCounter, wrongInput).prefixTokens).toBe(tokenizer.count(prefix));
    wrongCounter.endBuild();
    expect(wrongCounter.countsPieces).toBe(false);
    expect(measurePrompts(wrongCounter, wrongInput).prefixTokens).toBe(tokenizer.count(prefix));
    // A one-shot counter never counts pieces.
    expect(new TokenCounter(tokenizer).countsPieces).toBe(false);
  });

  it("counts a one-shot build's prefix and catalog from the same entries when trusting pieces, and whole texts when the pieces do not join to them", async () => {
    const tokenizer = await loadTokenizer();
    const skills: CatalogSkill[] = Array.from({ length: 40 }, (_, i) => ({ name: `skill-${i}`, type: "workflow" as const, description: `Use when task ${i} needs </skill>/ and \n ${"é".repeat(i % 4)}` }));
    const { head, entries, tail } = catalogParts(skills);
    const catalog = head + entries.join("") + tail;
    const before = "# Agent\n\nRead the catalog:\n\n";
    const after = "\n\n## Tools\n";
    const prefix = before + catalog + after;
    const seen: string[] = [];
    const spy = { ...tokenizer, count: (text: string) => (seen.push(text), tokenizer.count(text)) };
    const counter = new TokenCounter(spy, { trustPieces: true });
    expect(counter.countsPieces).toBe(true);
    const input = { prefix, catalog, suffixes: new Map([["base", ""]]), variantTemplate: "prompts/variant.hbs" };
    const measures = measurePrompts(counter, { ...input, pieces: { prefix: [before + head, ...entries, tail + after], catalog: [head, ...entries, tail] } });
    expect(measures.prefixTokens).toBe(tokenizer.count(prefix));
    expect(measures.catalogTokens).toBe(tokenizer.count(catalog));
    // Neither whole text went to the tokenizer: each entry was counted once, for both.
    expect(seen).not.toContain(prefix);
    expect(seen).not.toContain(catalog);
    expect(seen.filter((text) => text === entries[0])).toHaveLength(1);
    // Pieces that do not make up the text are never summed.
    const wrong = measurePrompts(new TokenCounter(tokenizer, { trustPieces: true }), { ...input, pieces: { prefix: ["You are>\n", "Gamma"], catalog: ["x"] } });
    expect(wrong.prefixTokens).toBe(tokenizer.count(prefix));
    expect(wrong.catalogTokens).toBe(tokenizer.count(catalog));
  });
});
