import type { CachePlan } from "../../protocol/cache-plan.js";
import type { DistManifest } from "../../protocol/dist-manifest.js";
import { cacheableTokens } from "../../tokens.js";

/** The figures `build` prints, derived from a manifest (so a no-change build can print them too). */

export interface VariantSummary {
  name: string;
  bytes: number;
  tokens: number;
  sharedPrefixTokens: number;
  cacheableTokens: number;
  /** Share of the variant's tokens covered by the shared prefix, in percent (one decimal). */
  prefixShare: number;
}

export interface BuildSummary {
  prefix: { bytes: number; tokens: number; cacheableTokens: number };
  catalog: { tokens: number };
  variants: VariantSummary[];
  /**
   * o200k tokens of the stable tool set (the cache plan's tools block; absent
   * when the plan is not at hand) and of each tool namespace, sorted by name.
   */
  tools: { stableTokens?: number; stableCount: number; namespaces: Array<{ name: string; tools: number; tokens: number }> };
}

export function summarize(manifest: DistManifest, plan?: CachePlan): BuildSummary {
  const prefix = manifest.staticPrefix;
  const toolsBlock = plan === undefined ? undefined : Object.values(plan.variants)[0]?.blocks.find((block) => block.name === "tools");
  return {
    tools: {
      ...(toolsBlock ? { stableTokens: toolsBlock.tokens } : {}),
      stableCount: manifest.tools.order.length,
      namespaces: Object.entries(manifest.namespaces ?? {}).map(([name, info]) => ({ name, tools: info.tools.length, tokens: info.tokens })),
    },
    prefix: { bytes: prefix.bytes, tokens: prefix.tokens, cacheableTokens: cacheableTokens(prefix.tokens) },
    catalog: { tokens: manifest.catalog.tokens },
    variants: Object.entries(manifest.variants).map(([name, info]) => ({
      name,
      bytes: info.bytes,
      tokens: info.tokens,
      sharedPrefixTokens: info.sharedPrefixTokens,
      cacheableTokens: info.cacheableTokens,
      prefixShare: info.tokens === 0 ? 0 : Math.round((info.sharedPrefixTokens / info.tokens) * 1000) / 10,
    })),
  };
}

