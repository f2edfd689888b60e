/**
 * What an edit that invalidates cached blocks costs until the cache is warm
 * again: per affected variant, the tokens that stop being served from the
 * cache, and their price per 1,000 sessions that start cold, for each priced
 * model of the data file's defaults (first Anthropic and OpenAI model).
 */
import type { CachePlan } from "../protocol/cache-plan.js";
import { loadPromptCachingData } from "./rules.js";

export interface InvalidationCost {
  variant: string;
  /** Tokens that were cached and now are not (from the first changed block to the end of the variant). */
  tokens: number;
  /** Extra input dollars per 1,000 sessions whose first call finds them cold, by `provider/model`. */
  dollarsPer1000Sessions: Record<string, number>;
}

const PRICED = [
  { provider: "anthropic", model: "claude-sonnet-4-5" },
  { provider: "openai", model: "gpt-5" },
] as const;

/**
 * Compares two plans block by block (sha256): for each variant, the first
 * block that differs and everything after it must be written again.
 */
export function invalidationCost(before: CachePlan, after: CachePlan): InvalidationCost[] {
  const data = loadPromptCachingData();
  const out: InvalidationCost[] = [];
  for (const [name, plan] of Object.entries(after.variants)) {
    const old = before.variants[name];
    const blocks = plan.blocks;
    let first = blocks.findIndex((block, index) => old?.blocks[index]?.sha256 !== block.sha256);
    if (first < 0 && (old?.blocks.length ?? 0) === blocks.length) continue;
    if (first < 0) first = blocks.length - 1;
    const cachedBefore = first === 0 ? 0 : (blocks[first - 1]?.cumulativeTokens ?? 0);
    const tokens = (blocks.at(-1)?.cumulativeTokens ?? 0) - cachedBefore;
    const dollarsPer1000Sessions: Record<string, number> = {};
    for (const { provider, model } of PRICED) {
      if (provider === "anthropic") {
        const price = data.providers.anthropic.models[model]?.inputPerMTok ?? 0;
        // A write (1.25x) instead of a read (0.1x).
        dollarsPer1000Sessions[`${provider}/${model}`] = (tokens * price * (data.providers.anthropic.rules.writeMultiplier["5m"] - data.providers.anthropic.rules.readMultiplier) * 1000) / 1e6;
      } else {
        const prices = data.providers.openai.models[model];
        dollarsPer1000Sessions[`${provider}/${model}`] = prices === undefined ? 0 : (tokens * (prices.inputPerMTok - prices.cachedInputPerMTok) * 1000) / 1e6;
      }
    }
    out.push({ variant: name, tokens, dollarsPer1000Sessions });
  }
  return out;
}

export function formatInvalidationCost(costs: readonly InvalidationCost[]): string {
  return costs
    .map((cost) => {
      const prices = Object.entries(cost.dollarsPer1000Sessions)
        .map(([model, dollars]) => `$${dollars.toFixed(2)} (${model})`)
        .join(", ");
      return `${cost.variant}: ${cost.tokens} tokens uncached until the cache is warm again, ${prices} per 1,000 cold sessions`;
    })
    .join("\n");
}
