/**
 * The shape of `dist/cache-plan.json`: for each variant, the blocks a provider
 * caches in the order it caches them (tools, static prefix, variant tail) and
 * where a cache breakpoint belongs. Written by the compiler from the same
 * render as the variants, verified and applied by the runtime. Types only.
 */

export const CACHE_PLAN_FILE = "cache-plan.json";
export const CACHE_PLAN_VERSION = 1;

/**
 * `namespace-tools`: one tool namespace the variant sends from session start,
 * right after the stable tools (providers send one tool list); only in the
 * plans of variants that load namespaces at start.
 */
export type CacheBlockName = "tools" | "namespace-tools" | "static-prefix" | "variant-tail";

export interface CachePlanBlock {
  name: CacheBlockName;
  /** The artifact whose bytes (or a byte range of which) make up the block. */
  source: string;
  /**
   * For the system-prompt blocks: the UTF-8 byte range of the variant's
   * system prompt (`variants/<name>.md`) this block covers, end exclusive.
   */
  system?: { start: number; end: number };
  bytes: number;
  sha256: string;
  /**
   * o200k_base tokens of the block on its own. For `tools`, of the compact
   * JSON of tools.json (close to what providers send; each serializes its own way).
   */
  tokens: number;
  /** Tokens of this block and every block before it. */
  cumulativeTokens: number;
  /** A cache breakpoint belongs at the end of this block. */
  breakpoint: boolean;
}

export interface VariantCachePlan {
  blocks: CachePlanBlock[];
}

export interface CachePlan {
  planVersion: typeof CACHE_PLAN_VERSION;
  /** Keyed by the project's own variant names. */
  variants: Record<string, VariantCachePlan>;
}
