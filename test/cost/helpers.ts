/**
 * The rules and prices the hand-computed cost tests work from, written out
 * as the caching guide states them (not read from the data file), so that a
 * figure changed in the data shows up as a failing hand computation.
 */
import type { AnthropicRules, OpenAIRules } from "../../src/cost/rules.js";

/** Anthropic: 5-minute writes 1.25×, 1-hour writes 2×, reads 0.1×. */
export const ANTHROPIC: AnthropicRules = {
  maxBreakpoints: 4,
  lookbackBlocks: 20,
  lifetimeSeconds: { "5m": 300, "1h": 3600 },
  writeMultiplier: { "5m": 1.25, "1h": 2 },
  readMultiplier: 0.1,
  lifetimeRefreshedOnRead: true,
};
export const SONNET = { inputPerMTok: 3, minimumTokens: 1024 };
export const OPENAI: OpenAIRules = {
  minimumTokens: 1024,
  stepTokens: 128,
  routingPrefixTokens: 256,
  overflowRequestsPerMinute: 15,
  idleExpirySeconds: 300,
  extendedRetentionSeconds: 86_400,
  writeMultiplier: 0,
  fleetSize: 64,
};
export const GPT5 = { inputPerMTok: 1.25, cachedInputPerMTok: 0.125 };
