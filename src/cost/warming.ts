/**
 * What Pi's cache warming would cost a session of the traffic profile, and
 * what it would save. pi-coding-agent (1.5.1 and later) keeps a session's
 * prompt cache entry alive while the session is idle by replaying the last
 * request with a one-token output cap shortly before the entry expires; the
 * runtime vetoes every such refresh unless the host opts in. This module
 * prices both sides for the runtime's default retention:
 *
 * - a refresh reads the whole last prompt from the cache (a billed request);
 * - it saves a miss only when the session's next call comes after the entry
 *   would have expired and before the refreshed entry expires; the miss it
 *   saves rewrites the session's own history (the variant's blocks stay
 *   cached by the variant's other sessions when they come often enough,
 *   otherwise the whole prompt is rewritten);
 * - after the session's last call nobody comes back: every refresh Pi
 *   schedules there is spent for nothing.
 *
 * Pi's schedule and its own cost gate are facts of Pi's code, recorded in
 * data/prompt-caching.json (`cacheWarming`). Arithmetic per session, no
 * simulation: a few operations per call of one session.
 */
import type { AnthropicModelPrices, AnthropicRules, CacheWarmingRules, OpenAIModelPrices, OpenAIRules, Provider } from "./rules.js";

/** When Pi refreshes an entry of `ttlSeconds`, and how many refreshes its idle horizon allows. */
export interface RefreshSchedule {
  ttlSeconds: number;
  /** Seconds after the last real request (and after each refresh) at which the next refresh is sent. */
  everySeconds: number;
  /** Refreshes sent at most while the session is idle. */
  maxRefreshes: number;
}

/** Pi's schedule: at a fraction of the lifetime, keeping a margin before expiry; undefined when the lifetime is too short to warm. */
export function refreshSchedule(ttlSeconds: number, rules: CacheWarmingRules): RefreshSchedule | undefined {
  if (ttlSeconds <= rules.minimumMarginSeconds) return undefined;
  const everySeconds = Math.max(1, Math.floor(Math.min(ttlSeconds * rules.refreshAtFractionOfLifetime, ttlSeconds - rules.minimumMarginSeconds)));
  return { ttlSeconds, everySeconds, maxRefreshes: Math.floor(rules.idleHorizonSeconds / everySeconds) };
}

/** A provider's prices as warming sees them, in dollars per token. */
export interface WarmingPrices {
  /** A refresh of a `tokens`-token prompt: what the replayed request's input costs. */
  refresh(tokens: number): number;
  /** One token written again at a miss instead of read from the cache. */
  missPerToken: number;
  /** Pi's gate: a miss of the whole prompt (write, or input where writes are free) and a read, per token. */
  gateMissPerToken: number;
  gateReadPerToken: number;
  /** Below this prompt size nothing is cached: a refresh keeps nothing alive. */
  minimumTokens: number;
}

export function anthropicWarmingPrices(rules: AnthropicRules, model: AnthropicModelPrices): WarmingPrices {
  const price = model.inputPerMTok / 1e6;
  const read = price * (model.readMultiplier ?? rules.readMultiplier);
  const write = price * rules.writeMultiplier["5m"];
  return {
    refresh: (tokens) => (tokens >= model.minimumTokens ? tokens * read : tokens * price),
    missPerToken: write - read,
    gateMissPerToken: write,
    gateReadPerToken: read,
    minimumTokens: model.minimumTokens,
  };
}

export function openAIWarmingPrices(rules: OpenAIRules, model: OpenAIModelPrices): WarmingPrices {
  const price = model.inputPerMTok / 1e6;
  const cachedPrice = model.cachedInputPerMTok / 1e6;
  const writePrice = model.cacheWritePerMTok === undefined ? price * (1 + rules.writeMultiplier) : model.cacheWritePerMTok / 1e6;
  return {
    refresh: (tokens) => {
      const cached = tokens >= rules.minimumTokens ? Math.floor(tokens / rules.stepTokens) * rules.stepTokens : 0;
      return cached * cachedPrice + (tokens - cached) * price;
    },
    missPerToken: writePrice - cachedPrice,
    gateMissPerToken: writePrice,
    gateReadPerToken: cachedPrice,
    minimumTokens: rules.minimumTokens,
  };
}

/**
 * The smallest prompt (tokens) whose refresh passes Pi's gate: its chance
 * that an idle session goes on times the miss (the whole prompt written
 * instead of read), minus the refresh's read, reaches the minimum saving.
 * Undefined when no prompt size passes. Pi also counts one output token per
 * refresh; at any listed price that is under $0.0001 and left out here.
 */
export function piGatePromptTokens(prices: WarmingPrices, rules: CacheWarmingRules): number | undefined {
  const perToken = rules.idleContinuationProbability * (prices.gateMissPerToken - prices.gateReadPerToken) - prices.gateReadPerToken;
  return perToken > 0 ? Math.ceil(rules.minimumExpectedSavings / perToken) : undefined;
}

/** One session of the profile: its calls, their spacing, and what its variant shares with its other sessions. */
export interface WarmingSession {
  /** Tokens of the whole variant (tools + system prompt). */
  variantTokens: number;
  callsPerSession: number;
  newTokensPerCall: number;
  secondsBetweenCalls: number;
  /** Whether the variant's blocks stay cached between this session's calls (other sessions use them within the lifetime). */
  variantStaysCached: boolean;
}

/** What warming costs and saves per session: every refresh Pi schedules, or only those its gate lets through. */
export interface WarmingOutcome {
  refreshes: number;
  refreshCost: number;
  missesAvoided: number;
  saved: number;
}

/**
 * Walks one session: after each call but the last, the refreshes that fit
 * before the next call (and the miss they avoid, if the next call would
 * otherwise find the entry expired); after the last call, every refresh of
 * the idle horizon. `gate` (prompt tokens) keeps only the refreshes Pi's own
 * gate would send.
 */
export function warmSession(session: WarmingSession, schedule: RefreshSchedule, prices: WarmingPrices, gate?: number): WarmingOutcome {
  const outcome: WarmingOutcome = { refreshes: 0, refreshCost: 0, missesAvoided: 0, saved: 0 };
  const gap = session.secondsBetweenCalls;
  const inGap = gap > schedule.everySeconds ? Math.min(schedule.maxRefreshes, Math.ceil(gap / schedule.everySeconds) - 1) : 0;
  for (let call = 0; call < session.callsPerSession; call++) {
    const prompt = session.variantTokens + (call + 1) * session.newTokensPerCall;
    if (prompt < prices.minimumTokens || (gate !== undefined && prompt < gate)) continue;
    const last = call === session.callsPerSession - 1;
    const refreshes = last ? schedule.maxRefreshes : inGap;
    outcome.refreshes += refreshes;
    outcome.refreshCost += refreshes * prices.refresh(prompt);
    if (last) continue;
    const wouldMiss = gap > schedule.ttlSeconds;
    const keptAlive = gap - refreshes * schedule.everySeconds <= schedule.ttlSeconds;
    if (wouldMiss && keptAlive) {
      const rewritten = session.variantStaysCached ? prompt - session.variantTokens : prompt;
      outcome.missesAvoided += 1;
      outcome.saved += rewritten * prices.missPerToken;
    }
  }
  return outcome;
}

/** One row of `cost`'s warming figures: one provider, model and variant, for the runtime's default retention. */
export interface WarmingRow {
  provider: Provider;
  model: string;
  variant: string;
  /** The lifetime of a session's entry at the runtime's default retention, which refreshes keep alive. */
  ttlSeconds: number;
  refreshEverySeconds: number;
  maxRefreshes: number;
  /** Every refresh Pi's timer schedules for a session of the profile (as if its gate let all through). */
  refreshesPerSession: number;
  refreshCostPer1000Sessions: number;
  missesAvoidedPerSession: number;
  savedPer1000Sessions: number;
  /** Saved minus spent: negative where warming loses money. */
  netPer1000Sessions: number;
  /** The smallest prompt Pi's own gate warms; null when it warms none. */
  piGatePromptTokens: number | null;
  /** Whether Pi 1.x warms this provider at all (its model catalog gives the entry a lifetime). */
  piWarmsProvider: boolean;
  /** What Pi itself sends with warming left to it (`cacheWarming: "pi"`): only refreshes that pass its gate. */
  piRefreshesPerSession: number;
  piNetPer1000Sessions: number;
}
