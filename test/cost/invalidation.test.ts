/**
 * What an edit costs each provider's cache. Anthropic writes the first
 * changed block and every block after it again; OpenAI's exact-prefix cache
 * keeps everything before the first changed token, in 128-token steps from
 * 1,024 tokens. The expected OpenAI figures are worked out here on their own:
 * o200k tokens straight from gpt-tokenizer, the first differing token found
 * by hand, the caching guide's 1,024/128 rule applied by hand.
 */
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import { createProjectAnalyzer } from "../../src/analyze.js";
import { cacheImpact } from "../../src/cache-impact.js";
import { formatInvalidationCost, invalidationCost, type InvalidationCost } from "../../src/cost/invalidation.js";
import type { CachePlan } from "../../src/protocol/cache-plan.js";
import { copyParts } from "../helpers/temp-project.js";
import { removeTempDirs, repoRoot, tempDir } from "../build/helpers.js";
import { GPT5, SONNET } from "./helpers.js";

afterAll(removeTempDirs);

/** The embedded default with its committed dist/. */
async function embeddedDefault(): Promise<string> {
  return copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge", "dist"], join(await tempDir(), "project"));
}

async function edit(root: string, file: string, change: (text: string) => string): Promise<void> {
  const path = join(root, file);
  const text = await readFile(path, "utf8");
  const changed = change(text);
  expect(changed).not.toBe(text);
  await writeFile(path, changed);
}

const readPlan = async (root: string): Promise<CachePlan> => JSON.parse(await readFile(join(root, "dist/cache-plan.json"), "utf8")) as CachePlan;
const readPrompt = (root: string, variant: string): Promise<string> => readFile(join(root, `dist/variants/${variant}.md`), "utf8");

/** Index of the first o200k token where the two texts' encodings differ. */
function firstDifferingToken(before: string, after: string): number {
  const a = encode(before, { disallowedSpecial: new Set() });
  const b = encode(after, { disallowedSpecial: new Set() });
  let index = 0;
  while (index < a.length && index < b.length && a[index] === b[index]) index++;
  return index;
}

/** The guide's rule: nothing below 1,024 shared tokens, then whole steps of 128. */
function openaiCached(sharedTokens: number): number {
  return sharedTokens < 1024 ? 0 : sharedTokens - (sharedTokens % 128);
}

/** Per variant of the committed build: where the system prompt starts (after the tools) and where the variant ends, in plan tokens. */
function bounds(plan: CachePlan, variant: string): { toolsEnd: number; prefixEnd: number; end: number } {
  const blocks = plan.variants[variant]?.blocks ?? [];
  const prefix = blocks.find((block) => block.name === "static-prefix");
  return { toolsEnd: (prefix?.cumulativeTokens ?? 0) - (prefix?.tokens ?? 0), prefixEnd: prefix?.cumulativeTokens ?? 0, end: blocks.at(-1)?.cumulativeTokens ?? 0 };
}

/** Both counts and their prices per 1,000 cold sessions: a write instead of a read on Anthropic, an uncached read on OpenAI. */
function expectCosts(entry: InvalidationCost | undefined, anthropicTokens: number, openaiTokens: number): void {
  expect(entry?.dollarsPer1000Sessions["anthropic/claude-sonnet-4-5"]).toBeCloseTo((anthropicTokens * SONNET.inputPerMTok * (1.25 - 0.1)) / 1000, 9);
  expect(entry?.dollarsPer1000Sessions["openai/gpt-5"]).toBeCloseTo((openaiTokens * (GPT5.inputPerMTok - GPT5.cachedInputPerMTok)) / 1000, 9);
  expect(entry).toMatchObject({ tokens: anthropicTokens, openaiTokens });
}

describe("what an edit costs each provider's cache", () => {
  it("an edit in the middle of a variant's tail: Anthropic writes the whole tail again, OpenAI keeps the tail up to the 128-token step before the first changed token", async () => {
    const root = await embeddedDefault();
    const planBefore = await readPlan(root);
    const promptBefore = await readPrompt(root, "deck-generation");
    await edit(root, "skills/ask-user-questions/SKILL.md", (text) => `${text}\nAsk one question at a time when the answers depend on each other.\n`);

    const checked = await check({ root });
    const analysis = await createProjectAnalyzer({ root }).analyze();
    const impact = await cacheImpact({ root });
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const promptAfter = await readPrompt(root, "deck-generation");

    const { toolsEnd, prefixEnd, end } = bounds(planBefore, "deck-generation");
    const tailTokens = (await readPlan(root)).variants["deck-generation"]?.blocks.at(-1)?.tokens;
    const endAfter = bounds(await readPlan(root), "deck-generation").end;
    const firstChanged = toolsEnd + firstDifferingToken(promptBefore, promptAfter);
    // The edit lands well inside the tail, past its first step.
    expect(firstChanged).toBeGreaterThan(prefixEnd + 128);
    expect(firstChanged).toBeLessThan(end);
    const deck = checked.invalidation?.find((entry) => entry.variant === "deck-generation");
    expectCosts(deck, tailTokens ?? 0, endAfter - openaiCached(firstChanged));
    expect(deck?.openaiTokens).toBeLessThan(deck?.tokens ?? 0);
    expect(formatInvalidationCost(deck ? [deck] : [])).toBe(
      `deck-generation: ${deck?.tokens} tokens uncached on Anthropic, ${deck?.openaiTokens} on OpenAI until the cache is warm again, $${deck?.dollarsPer1000Sessions["anthropic/claude-sonnet-4-5"]?.toFixed(2)} (anthropic/claude-sonnet-4-5), $${deck?.dollarsPer1000Sessions["openai/gpt-5"]?.toFixed(2)} (openai/gpt-5) per 1,000 cold sessions`,
    );
    // The editor's analysis and the comparison report --base makes give the same figures as check.
    expect(analysis.invalidation).toEqual(checked.invalidation);
    expect(impact.comparison?.invalidation).toEqual(checked.invalidation);
  });

  it("an edit in the static prefix: both providers lose everything from there, every variant its whole tail", async () => {
    const root = await embeddedDefault();
    const planBefore = await readPlan(root);
    const names = Object.keys(planBefore.variants);
    const promptsBefore = await Promise.all(names.map((name) => readPrompt(root, name)));
    await edit(root, "prompts/partials/identity.hbs", (text) => text.replace("You are the Gamma agent", "You are the Gamma presentation agent"));

    const checked = await check({ root });
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const planAfter = await readPlan(root);

    expect(checked.invalidation?.map((entry) => entry.variant)).toEqual(names);
    for (const [index, name] of names.entries()) {
      const { toolsEnd, end } = bounds(planAfter, name);
      const firstChanged = toolsEnd + firstDifferingToken(promptsBefore[index] ?? "", await readPrompt(root, name));
      expect(firstChanged).toBeLessThan(bounds(planBefore, name).prefixEnd);
      const entry = checked.invalidation?.find((cost) => cost.variant === name);
      // Anthropic from the static prefix's breakpoint on, OpenAI from the step at or before the changed token.
      expectCosts(entry, end - toolsEnd, end - openaiCached(firstChanged));
    }
  });

  it("a tool schema change costs both providers every token; without the prompts OpenAI's count starts at the changed block", () => {
    const plan = JSON.parse(readFileSync(join(repoRoot, "dist/cache-plan.json"), "utf8")) as CachePlan;
    const edited = (mutate: (copy: CachePlan) => void): CachePlan => {
      const copy = structuredClone(plan);
      mutate(copy);
      return copy;
    };
    const tools = invalidationCost(plan, edited((copy) => Object.values(copy.variants).forEach(({ blocks }) => ((blocks[0] as { sha256: string }).sha256 = "0".repeat(64)))));
    for (const entry of tools) expect(entry.openaiTokens).toBe(entry.tokens);
    // A changed tail with neither prompt at hand: shared up to the tail's start, then the 128-token rule.
    const tail = invalidationCost(plan, edited((copy) => ((copy.variants["import"]?.blocks.at(-1) as { sha256: string }).sha256 = "1".repeat(64))));
    const { prefixEnd, end } = bounds(plan, "import");
    expect(tail).toEqual([expect.objectContaining({ variant: "import", tokens: end - prefixEnd, openaiTokens: end - openaiCached(prefixEnd) })]);
  });
  it("a new variant reads the blocks some earlier variant already sent: only what no variant had is uncached", async () => {
    const root = await embeddedDefault();
    const planBefore = await readPlan(root);
    const names = Object.keys(planBefore.variants);
    const promptsBefore = Object.fromEntries(await Promise.all(names.map(async (name) => [name, await readPrompt(root, name)] as const)));
    await edit(root, "prompts/variants.yaml", (text) => `${text}  outline:\n    preload: [ask-user-questions]\n`);

    const checked = await check({ root });
    const analysis = await createProjectAnalyzer({ root }).analyze();
    const impact = await cacheImpact({ root });
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const planAfter = await readPlan(root);
    const prompt = await readPrompt(root, "outline");
    const blocks = planAfter.variants["outline"]?.blocks ?? [];
    // Its tools and static prefix are byte for byte the base build's.
    expect(blocks.slice(0, 2).map((block) => block.sha256)).toEqual(planBefore.variants["base"]?.blocks.slice(0, 2).map((block) => block.sha256));
    const { toolsEnd, prefixEnd, end } = bounds(planAfter, "outline");
    // OpenAI: the longest prefix it shares with any earlier variant's request.
    const shared = Math.max(...names.map((name) => toolsEnd + firstDifferingToken(promptsBefore[name] ?? "", prompt)));
    expect(shared).toBeGreaterThanOrEqual(prefixEnd);
    expect(checked.invalidation?.map((entry) => entry.variant)).toEqual(["outline"]);
    expectCosts(checked.invalidation?.[0], end - prefixEnd, end - openaiCached(shared));
    expect(analysis.invalidation).toEqual(checked.invalidation);
    expect(impact.comparison?.invalidation).toEqual(checked.invalidation);
  });

  it("a traffic profile written for the sources prices the output folder's build with the entries that fit it", async () => {
    const root = await embeddedDefault();
    const names = Object.keys((await readPlan(root)).variants);
    await edit(root, "prompts/variants.yaml", (text) => `${text}  outline:\n    preload: [ask-user-questions]\n`);
    const sessionsPerMinute = Object.fromEntries([...names, "outline"].map((name) => [name, 10]));
    const impact = await cacheImpact({ root, profile: { durationMinutes: 5, sessionsPerMinute } });
    expect(impact.comparison?.costDeltaProblem).toBeUndefined();
    expect(new Set(impact.comparison?.costDelta.map((row) => row.variant))).toEqual(new Set(names));
  });

  it("a new variant whose every block an earlier variant already sent costs nothing", async () => {
    const root = await embeddedDefault();
    await edit(root, "prompts/variants.yaml", (text) => `${text}  plain:\n    preload: []\n`);
    const checked = await check({ root });
    expect(checked.invalidation ?? []).toEqual([]);
  });
});

