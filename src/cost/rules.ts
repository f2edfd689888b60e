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

export interface CacheFact {
  fact: string;
  status: "checked" | "reported" | "assumed";
  source: string;
}

export interface PromptCachingData {
  dataVersion: 1;
  readOn: string;
  providers: {
    anthropic: { rules: AnthropicRules; models: Record<string, { inputPerMTok: number; minimumTokens: number }>; toolAdditionsInPlace?: string[] };
    openai: { rules: OpenAIRules; models: Record<string, { inputPerMTok: number; cachedInputPerMTok: number }>; toolAdditionsInPlace?: string[] };
  };
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
