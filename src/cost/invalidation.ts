/**
 * What an edit that invalidates cached blocks costs until the cache is warm
 * again: per affected variant, the tokens that stop being served from the
 * cache on each provider, and their price per 1,000 sessions that start cold,
 * for each priced model of the data file's defaults (first Anthropic and
 * OpenAI model).
 *
 * The providers lose different amounts. Anthropic caches per breakpoint: the
 * first changed block and every block after it are written again. OpenAI's
 * cache is an exact prefix without blocks: everything before the first
 * changed token stays cached, in 128-token steps from a 1,024-token minimum.
 */
import type { CachePlan, CachePlanBlock } from "../protocol/cache-plan.js";
import { cacheableTokens } from "../tokens.js";
import { sharedPrefixTokens } from "./shared-prefix-tokens.js";
import { loadPromptCachingData } from "./rules.js";

export interface InvalidationCost {
  variant: string;
  /** Tokens Anthropic writes again: from the first changed block to the end of the variant. */
  tokens: number;
  /**
   * Tokens OpenAI no longer serves from its cache: from the last 128-token
   * step at or before the first changed token (tools counted first) to the
   * end of the variant; the whole variant when fewer than 1,024 tokens stay
   * shared. Less than `tokens` after an edit inside a block, up to 127 more
   * after one at a block's start.
   */
  openaiTokens: number;
  /** Extra input dollars per 1,000 sessions whose first call finds them cold, by `provider/model`. */
  dollarsPer1000Sessions: Record<string, number>;
}

/**
 * Each variant's exact system prompt (`variants/<name>.md`) on both sides of
 * the comparison, by variant name. Without the prompts, OpenAI's count starts
 * at the first block no earlier variant had.
 */
export interface ComparedPrompts {
  before: Readonly<Record<string, string>>;
  after: Readonly<Record<string, string>>;
}

const PRICED = [
  { provider: "anthropic", model: "claude-sonnet-4-5" },
  { provider: "openai", model: "gpt-5" },
] as const;

/**
 * Compares two plans block by block (sha256) for Anthropic and, given the
 * variants' system prompts, token by token for OpenAI. A cache holds what any
 * variant of the earlier build sent, so each variant is compared with the
 * earlier variant it shares the longest prefix with: a new or renamed variant
 * whose tools and static prefix are those of the earlier build reads them and
 * is charged for the rest only. Variants whose blocks are all the same as
 * before are left out.
 */
export function invalidationCost(before: CachePlan, after: CachePlan, prompts?: ComparedPrompts): InvalidationCost[] {
  const data = loadPromptCachingData();
  const out: InvalidationCost[] = [];
  const earlier = Object.entries(before.variants);
  for (const [name, plan] of Object.entries(after.variants)) {
    const old = before.variants[name];
    const blocks = plan.blocks;
    if (old !== undefined && old.blocks.length === blocks.length && blocks.every((block, index) => old.blocks[index]?.sha256 === block.sha256)) continue;
    // Anthropic reads the longest run of leading blocks some earlier variant sent, up to its last breakpoint.
    let first = 0;
    for (const [, candidate] of earlier) first = Math.max(first, readBlocks(blocks, candidate.blocks));
    // Every block is served from what an earlier variant sent (a variant renamed or copied as it was).
    if (first >= blocks.length) continue;
    const end = blocks.at(-1)?.cumulativeTokens ?? 0;
    const tokens = end - tokensBefore(blocks, first);
    let shared = 0;
    for (const [other, candidate] of earlier) {
      shared = Math.max(shared, sharedRequestTokens(blocks, commonBlocks(blocks, candidate.blocks), prompts?.before[other], prompts?.after[name]));
    }
    const openaiTokens = Math.max(0, end - cacheableTokens(shared));
    const dollarsPer1000Sessions: Record<string, number> = {};
    for (const { provider, model } of PRICED) {
      if (provider === "anthropic") {
        const price = data.providers.anthropic.models[model]?.inputPerMTok ?? 0;
        // A write (1.25x) instead of a read (0.1x).
        dollarsPer1000Sessions[`${provider}/${model}`] = (tokens * price * (data.providers.anthropic.rules.writeMultiplier["5m"] - data.providers.anthropic.rules.readMultiplier) * 1000) / 1e6;
      } else {
        const prices = data.providers.openai.models[model];
        dollarsPer1000Sessions[`${provider}/${model}`] = prices === undefined ? 0 : (openaiTokens * (prices.inputPerMTok - prices.cachedInputPerMTok) * 1000) / 1e6;
      }
    }
    out.push({ variant: name, tokens, openaiTokens, dollarsPer1000Sessions });
  }
  return out;
}

/** How many leading blocks of `blocks` are byte for byte those of `earlier`. */
function commonBlocks(blocks: readonly CachePlanBlock[], earlier: readonly CachePlanBlock[]): number {
  let index = 0;
  while (index < blocks.length && index < earlier.length && blocks[index]?.sha256 === earlier[index]?.sha256) index++;
  return index;
}

/** The leading blocks a cached entry of `earlier` serves: the common blocks up to the last one that carries a breakpoint. */
function readBlocks(blocks: readonly CachePlanBlock[], earlier: readonly CachePlanBlock[]): number {
  let index = commonBlocks(blocks, earlier);
  while (index > 0 && !(blocks[index - 1]?.breakpoint ?? false)) index--;
  return index;
}

/** Tokens of the blocks before `index`. */
function tokensBefore(blocks: readonly CachePlanBlock[], index: number): number {
  return index === 0 ? 0 : (blocks[index - 1]?.cumulativeTokens ?? 0);
}

/**
 * Leading tokens the old and the new request share, counted as the cache plan
 * counts them: the tools first, then the system prompt. Within the system
 * prompt the first differing o200k token decides; a change in the tools (each
 * provider serializes them its own way) counts from the changed block's start,
 * as does a pair whose prompts are not both at hand.
 */
function sharedRequestTokens(blocks: readonly CachePlanBlock[], first: number, before: string | undefined, after: string | undefined): number {
  const system = blocks.findIndex((block) => block.name === "static-prefix");
  if (system < 0 || first < system || before === undefined || after === undefined) return tokensBefore(blocks, first);
  return tokensBefore(blocks, system) + sharedPrefixTokens(before, after);
}

/** One line per variant; both counts when the providers lose different amounts. */
export function formatInvalidationCost(costs: readonly InvalidationCost[]): string {
  return costs
    .map((cost) => {
      const prices = Object.entries(cost.dollarsPer1000Sessions)
        .map(([model, dollars]) => `$${dollars.toFixed(2)} (${model})`)
        .join(", ");
      const uncached = cost.openaiTokens === cost.tokens ? `${cost.tokens} tokens uncached` : `${cost.tokens} tokens uncached on Anthropic, ${cost.openaiTokens} on OpenAI`;
      return `${cost.variant}: ${uncached} until the cache is warm again, ${prices} per 1,000 cold sessions`;
    })
    .join("\n");
}
