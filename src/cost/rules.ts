/**
 * The dated data file of prompt-cache rules and prices (data/prompt-caching.json).
 * Figures live there with their sources, never in code.
 */
import { readFileSync } from "node:fs";
import { packageRoot } from "../package-paths.js";

export type Lifetime = "5m" | "1h";

export interface AnthropicRules {
  maxBreakpoints: number;
  lookbackBlocks: number;
  lifetimeSeconds: Record<Lifetime, number>;
  writeMultiplier: Record<Lifetime, number>;
  readMultiplier: number;
  lifetimeRefreshedOnRead: boolean;
}

export interface OpenAIRules {
  minimumTokens: number;
  stepTokens: number;
  routingPrefixTokens: number;
  overflowRequestsPerMinute: number;
  idleExpirySeconds: number;
  extendedRetentionSeconds: number;
  writeMultiplier: number;
  fleetSize: number;
}

/** An Anthropic model's base input price and minimum cacheable prompt; some Claude 5.x models read at less than `rules.readMultiplier`. */
export interface AnthropicModelPrices {
  inputPerMTok: number;
  minimumTokens: number;
  /** A read's price as a multiple of base input; default `rules.readMultiplier`. */
  readMultiplier?: number;
}

/** An OpenAI model's prices; GPT-5.6 and later also bill cache writes and keep an extended entry for their own ttl. */
export interface OpenAIModelPrices {
  inputPerMTok: number;
  cachedInputPerMTok: number;
  /** Price of a written (cached) input token; default `inputPerMTok × (1 + rules.writeMultiplier)`. */
  cacheWritePerMTok?: number;
  /** Extended retention for this model; default `rules.extendedRetentionSeconds`. */
  extendedRetentionSeconds?: number;
}

/**
 * Pi's cache warming (pi-ai's cache-warming policy, pi-coding-agent's
 * CacheWarmer): when it refreshes, for how long, and its own cost gate.
 */
export interface CacheWarmingRules {
  /** A refresh is sent at this fraction of the entry's lifetime after the request that wrote it... */
  refreshAtFractionOfLifetime: number;
  /** ...but at least this many seconds before it expires; a lifetime this short is not warmed. */
  minimumMarginSeconds: number;
  /** Idle refreshes stop once the next would fall later than this after the run's last request. */
  idleHorizonSeconds: number;
  /** Pi's estimate of the chance that an idle session sends another request before its entry expires. */
  idleContinuationProbability: number;
  /** A refresh is sent only when that chance times a miss, minus the refresh, saves at least this many dollars. */
  minimumExpectedSavings: number;
  /** The lifetime Pi's model catalog gives a short-retention entry, per provider; null: Pi does not warm it. */
  piLifetimeSeconds: Record<"anthropic" | "openai", number | null>;
}

export interface CacheFact {
  fact: string;
  status: "checked" | "reported" | "assumed";
  source: string;
}

export interface PromptCachingData {
  dataVersion: 1;
  readOn: string;
  providers: {
    anthropic: { rules: AnthropicRules; models: Record<string, AnthropicModelPrices>; toolAdditionsInPlace?: string[] };
    openai: { rules: OpenAIRules; models: Record<string, OpenAIModelPrices>; toolAdditionsInPlace?: string[] };
  };
  cacheWarming: CacheWarmingRules;
  facts: CacheFact[];
}

export type Provider = keyof PromptCachingData["providers"];

export const PROMPT_CACHING_DATA_URL = new URL("data/prompt-caching.json", packageRoot);

let cached: PromptCachingData | undefined;

/** The package's data file, read once. */
export function loadPromptCachingData(): PromptCachingData {
  cached ??= JSON.parse(readFileSync(PROMPT_CACHING_DATA_URL, "utf8")) as PromptCachingData;
  return cached;
}
