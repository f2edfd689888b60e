import { describe, expect, it } from "vitest";
import { lastHardBoundary, measurePrompts, TokenCounter } from "../../src/pipeline/measure.js";
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
