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
}

export function summarize(manifest: DistManifest): BuildSummary {
  const prefix = manifest.staticPrefix;
  return {
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

