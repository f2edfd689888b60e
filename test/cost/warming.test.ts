/**
 * Cache warming priced by hand: Pi's refresh schedule, its cost gate, and a
 * session's refreshes against the misses they avoid, from Pi's rules (read in
 * pi-ai's cache-warming.js and pi-coding-agent's cache-warmer.js) and the
 * prices of test/cost/hand-computed.test.ts. Expected values are arithmetic
 * on literal numbers.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { init } from "../../src/init.js";
import { cost } from "../../src/cost/cost.js";
import type { CacheWarmingRules } from "../../src/cost/rules.js";
import { loadPromptCachingData } from "../../src/cost/rules.js";
import { anthropicWarmingPrices, openAIWarmingPrices, piGatePromptTokens, refreshSchedule, warmSession, type WarmingSession } from "../../src/cost/warming.js";
import { repoRoot, tempDir } from "../build/helpers.js";
import { docPage } from "../helpers/docs.js";
import { ANTHROPIC, GPT5, OPENAI, SONNET } from "./helpers.js";

const PI: CacheWarmingRules = {
  refreshAtFractionOfLifetime: 0.9,
  minimumMarginSeconds: 10,
  idleHorizonSeconds: 1800,
  idleContinuationProbability: 0.15,
  minimumExpectedSavings: 0.05,
  piLifetimeSeconds: { anthropic: 300, openai: null },
};
const sonnet = anthropicWarmingPrices(ANTHROPIC, SONNET);
const gpt5 = openAIWarmingPrices(OPENAI, GPT5);
const fiveMinutes = { ttlSeconds: 300, everySeconds: 270, maxRefreshes: 6 };

/** A 6,000-token variant, two calls, 100 new tokens each. */
const session = (secondsBetweenCalls: number, variantStaysCached = true): WarmingSession => ({
  variantTokens: 6000,
  callsPerSession: 2,
  newTokensPerCall: 100,
  secondsBetweenCalls,
  variantStaysCached,
});

describe("Pi's refresh schedule", () => {
  it("refreshes at 90% of the lifetime (at least 10 s before expiry), as often as 30 idle minutes allow", () => {
    expect(refreshSchedule(300, PI)).toEqual(fiveMinutes); // min(270, 290); 6 × 270 = 1,620 ≤ 1,800 < 7 × 270
    expect(refreshSchedule(60, PI)).toEqual({ ttlSeconds: 60, everySeconds: 50, maxRefreshes: 36 }); // min(54, 50)
    expect(refreshSchedule(1800, PI)).toEqual({ ttlSeconds: 1800, everySeconds: 1620, maxRefreshes: 1 });
    expect(refreshSchedule(3600, PI)).toEqual({ ttlSeconds: 3600, everySeconds: 3240, maxRefreshes: 0 }); // a 1-hour entry is never warmed while idle
    expect(refreshSchedule(10, PI)).toBeUndefined();
  });
});

describe("Pi's cost gate", () => {
  it("opens from the prompt size where 0.15 × (write − read) − read reaches $0.05", () => {
    // Sonnet: write $3.75, read $0.30 per MTok: 0.15 × 3.45 − 0.30 = 0.2175 $/MTok → 0.05 / 0.2175e-6 = 229,885.06.
    expect(piGatePromptTokens(sonnet, PI)).toBe(229_886);
    // GPT-5 bills no writes: a miss is the input price. 0.15 × 1.125 − 0.125 = 0.04375 $/MTok → 1,142,857.14.
    expect(piGatePromptTokens(gpt5, PI)).toBe(1_142_858);
    // A read at 0.2× base: 0.15 × 1.05 − 0.2 < 0, no prompt passes.
    expect(piGatePromptTokens(anthropicWarmingPrices({ ...ANTHROPIC, readMultiplier: 0.2 }, SONNET), PI)).toBeUndefined();
  });
});

describe("a session's refreshes against the misses they avoid", () => {
  it("calls 20 s apart: nothing to keep alive between calls, six refreshes of the last prompt after it", () => {
    const outcome = warmSession(session(20), fiveMinutes, sonnet);
    expect(outcome.refreshes).toBe(6);
    expect(outcome.refreshCost).toBeCloseTo(6 * 6200 * 0.3e-6, 12); // $0.01116
    expect(outcome.missesAvoided).toBe(0);
    expect(outcome.saved).toBe(0);
  });

  it("calls 400 s apart: one refresh at 270 s keeps the entry for the call at 400 s, saving the history's rewrite", () => {
    const cached = warmSession(session(400), fiveMinutes, sonnet);
    expect(cached.refreshes).toBe(1 + 6);
    expect(cached.refreshCost).toBeCloseTo(6100 * 0.3e-6 + 6 * 6200 * 0.3e-6, 12); // $0.01299
    expect(cached.missesAvoided).toBe(1);
    expect(cached.saved).toBeCloseTo(100 * (3.75 - 0.3) * 1e-6, 12); // the variant stays cached: 100 tokens, $0.000345
    // A variant nobody else keeps warm: the whole 6,100-token prompt would be rewritten.
    expect(warmSession(session(400, false), fiveMinutes, sonnet).saved).toBeCloseTo(6100 * 3.45e-6, 12); // $0.021045
  });

  it("calls 2,000 s apart: six refreshes reach 1,620 s, the entry expires at 1,920 s, the call misses anyway", () => {
    const outcome = warmSession(session(2000, false), fiveMinutes, sonnet);
    expect(outcome.refreshes).toBe(6 + 6);
    expect(outcome.missesAvoided).toBe(0);
    expect(outcome.saved).toBe(0);
  });

  it("sends nothing below Pi's gate or below the cacheable minimum", () => {
    expect(warmSession(session(400, false), fiveMinutes, sonnet, 229_886)).toEqual({ refreshes: 0, refreshCost: 0, missesAvoided: 0, saved: 0 });
    const small = { ...session(400, false), variantTokens: 500 }; // prompts of 600 and 700 tokens
    expect(warmSession(small, fiveMinutes, sonnet).refreshes).toBe(0);
  });

  it("OpenAI: a refresh reads whole 128-token steps cached and the rest at the input price", () => {
    // 6,100 tokens: 47 × 128 = 6,016 cached at $0.125, 84 at $1.25 per MTok.
    expect(gpt5.refresh(6100)).toBeCloseTo(6016 * 0.125e-6 + 84 * 1.25e-6, 12);
    expect(gpt5.missPerToken).toBeCloseTo(1.125e-6, 15);
  });
});

describe("boundaries of a session's refreshes", () => {
  it("keeps the entry for a call exactly at the lifetime without a refresh, and avoids a miss the last refresh leaves exactly the lifetime for", () => {
    // 300 s: the entry is still live at the call, nothing to avoid (one refresh at 270 s is sent anyway).
    expect(warmSession(session(300, false), fiveMinutes, sonnet)).toMatchObject({ refreshes: 1 + 6, missesAvoided: 0, saved: 0 });
    // 1,920 s: six refreshes reach 1,620 s, and the call comes exactly 300 s later, still live.
    expect(warmSession(session(1920, false), fiveMinutes, sonnet)).toMatchObject({ refreshes: 6 + 6, missesAvoided: 1 });
  });

  it("sends no refresh between calls with no time between them", () => {
    expect(warmSession(session(0), fiveMinutes, sonnet).refreshes).toBe(6);
  });

  it("warms a prompt of exactly the cacheable minimum, and of exactly Pi's gate", () => {
    const exactly = (prompt: number): WarmingSession => ({ variantTokens: prompt - 100, callsPerSession: 1, newTokensPerCall: 100, secondsBetweenCalls: 20, variantStaysCached: true });
    expect(warmSession(exactly(1024), fiveMinutes, sonnet).refreshes).toBe(6);
    expect(warmSession(exactly(5000), fiveMinutes, sonnet, 5000).refreshes).toBe(6);
    expect(warmSession(exactly(5000), fiveMinutes, sonnet, 5001).refreshes).toBe(0);
  });

  it("prices a refresh of a prompt below the minimum at the input price and one of exactly the minimum as a read", () => {
    expect(sonnet.refresh(1023)).toBeCloseTo(1023 * 3e-6, 15);
    expect(sonnet.refresh(1024)).toBeCloseTo(1024 * 0.3e-6, 15);
    expect(gpt5.refresh(1023)).toBeCloseTo(1023 * 1.25e-6, 15);
    expect(gpt5.refresh(1024)).toBeCloseTo(1024 * 0.125e-6, 15);
  });

  it("prices an OpenAI miss at the model's own write price, or the input price raised by the rules' write multiplier", () => {
    const sol = openAIWarmingPrices(OPENAI, { inputPerMTok: 4, cachedInputPerMTok: 0.4, cacheWritePerMTok: 5 });
    expect(sol.gateMissPerToken).toBeCloseTo(5e-6, 15);
    expect(sol.gateReadPerToken).toBeCloseTo(0.4e-6, 15);
    expect(sol.missPerToken).toBeCloseTo(4.6e-6, 15);
    expect(openAIWarmingPrices({ ...OPENAI, writeMultiplier: 0.25 }, GPT5).gateMissPerToken).toBeCloseTo(1.5625e-6, 15);
  });

  it("has no gate where a refresh's read exactly cancels the miss it may save", () => {
    // 0.5 × (3 − 1) − 1 = 0 per token: no prompt size saves anything.
    const prices = { ...sonnet, gateMissPerToken: 3, gateReadPerToken: 1 };
    expect(piGatePromptTokens(prices, { ...PI, idleContinuationProbability: 0.5 })).toBeUndefined();
  });
});

describe("cost's warming figures for the embedded default", () => {
  const caching = docPage("docs/guide/caching-and-cost.md").text;
  const data = loadPromptCachingData();

  it("under the default profile: every refresh comes after a session's last call, so warming only spends", () => {
    const result = cost({ root: repoRoot, profile: { durationMinutes: 1, sessionsPerMinute: 30 } });
    for (const row of result.warming) {
      const last = (result.blocks[row.variant]?.variantEnd ?? 0) + 9 * 600;
      const read = row.provider === "anthropic" ? last * 0.3e-6 : Math.floor(last / 128) * 128 * 0.125e-6 + (last % 128) * 1.25e-6;
      expect(row.refreshesPerSession, `${row.model} ${row.variant}`).toBe(6);
      expect(row.refreshCostPer1000Sessions).toBeCloseTo(6 * read * 1000, 9);
      expect(row.savedPer1000Sessions).toBe(0);
      expect(row.piRefreshesPerSession).toBe(0);
      expect(row.piWarmsProvider).toBe(row.provider === "anthropic");
    }
    const base = result.warming.find((row) => row.model === "claude-sonnet-4-5" && row.variant === "base");
    expect(caching).toContain(`six refreshes of a \`base\` session's last prompt cost $${base?.refreshCostPer1000Sessions.toFixed(2)} per 1,000 sessions`);
    expect(caching).toContain(`Pi's own gate opens only from ${base?.piGatePromptTokens?.toLocaleString("en-US")} prompt tokens`);
    expect(data.cacheWarming.piLifetimeSeconds).toEqual({ anthropic: 300, openai: null });
  });

  it("with calls 6 minutes apart, one refresh per gap pays for itself and for the tail", () => {
    const result = cost({ root: repoRoot, profile: { durationMinutes: 30, sessionsPerMinute: { "deck-generation": 0.1 }, secondsBetweenCalls: 360, models: [{ provider: "anthropic", model: "claude-sonnet-4-5" }] } });
    const row = result.warming.find((entry) => entry.variant === "deck-generation");
    const variant = result.blocks["deck-generation"]?.variantEnd ?? 0;
    // Eight gaps, one refresh each at 270 s (360 − 270 = 90 s ≤ 300 s), then six after the last call.
    let refresh = 0;
    let saved = 0;
    for (let call = 0; call < 9; call++) {
      const prompt = variant + (call + 1) * 600;
      refresh += (call === 8 ? 6 : 1) * prompt * 0.3e-6;
      // 0.1 sessions a minute, 9 calls each: a call of the variant every 67 s keeps its blocks cached; a miss rewrites the history.
      if (call < 8) saved += (call + 1) * 600 * (3.75 - 0.3) * 1e-6;
    }
    expect(row?.refreshesPerSession).toBe(14);
    expect(row?.missesAvoidedPerSession).toBe(8);
    expect(row?.refreshCostPer1000Sessions).toBeCloseTo(refresh * 1000, 9);
    expect(row?.savedPer1000Sessions).toBeCloseTo(saved * 1000, 9);
    expect(row?.netPer1000Sessions).toBeGreaterThan(0);
    expect(caching).toContain(`saves $${row?.savedPer1000Sessions.toFixed(2)} for $${row?.refreshCostPer1000Sessions.toFixed(2)} of refreshes per 1,000 sessions`);
  });
});

describe("a variant below the model's smallest cacheable prefix", () => {
  it("is rewritten whole on every miss, however busy the variant: warming saves the whole prompt", async () => {
    const root = join(await tempDir("gamma-warming-small-"), "agent");
    expect((await init({ dir: root })).ok).toBe(true);
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const profile = { durationMinutes: 1, sessionsPerMinute: 1, callsPerSession: 4, secondsBetweenCalls: 400, newTokensPerCall: 500, models: [{ provider: "anthropic" as const, model: "claude-haiku-4-5" }] };
    const result = cost({ root, profile });
    const data = loadPromptCachingData();
    const haiku = anthropicWarmingPrices(data.providers.anthropic.rules, data.providers.anthropic.models["claude-haiku-4-5"] ?? SONNET);
    for (const row of result.warming) {
      const variant = result.blocks[row.variant]?.variantEnd ?? 0;
      expect(variant, row.variant).toBeLessThan(haiku.minimumTokens);
      // Three gaps of 400 s, each kept alive by one refresh; a call whose prompt is below the minimum caches nothing to keep.
      let saved = 0;
      for (let call = 0; call < 3; call++) {
        const prompt = variant + (call + 1) * 500;
        if (prompt >= haiku.minimumTokens) saved += prompt * haiku.missPerToken;
      }
      expect(saved, row.variant).toBeGreaterThan(0);
      expect(row.savedPer1000Sessions, row.variant).toBeCloseTo(saved * 1000, 9);
    }
  });
});

describe("cost's warming rows, composed from the priced parts", () => {
  const data = loadPromptCachingData();

  // Long prompts (30,000 new tokens a call) pass Pi's gate from the eighth call; deck-generation is busy enough to keep its blocks
  // cached, base is not. Then two calls a session: base's 0.2 calls a minute come exactly every 300 s, the lifetime.
  const profiles = [
    { durationMinutes: 10, sessionsPerMinute: { base: 0.01, "deck-generation": 2, import: 0 }, newTokensPerCall: 30_000, secondsBetweenCalls: 400, callsPerSession: 9 },
    { durationMinutes: 10, sessionsPerMinute: { base: 0.1, "deck-generation": 0.05, import: 0 }, newTokensPerCall: 600, secondsBetweenCalls: 400, callsPerSession: 2 },
  ];

  it.each(profiles.map((profile, index) => [index + 1, profile] as const))("gives each model and variant Pi's schedule at the default retention, every refresh it schedules, and those its gate sends (profile %i)", (index, profile) => {
    const result = cost({ root: repoRoot, profile });
    const expected = result.profile.models.flatMap((model) => {
      const anthropic = model.provider === "anthropic";
      const prices = anthropic ? anthropicWarmingPrices(data.providers.anthropic.rules, data.providers.anthropic.models[model.model] ?? SONNET) : openAIWarmingPrices(data.providers.openai.rules, data.providers.openai.models[model.model] ?? GPT5);
      const ttlSeconds = anthropic ? 300 : data.providers.openai.rules.idleExpirySeconds;
      const schedule = refreshSchedule(ttlSeconds, data.cacheWarming) ?? fiveMinutes;
      const gate = piGatePromptTokens(prices, data.cacheWarming);
      return ["base", "deck-generation", "import"].map((variant) => {
        const callsPerMinute = profile.sessionsPerMinute[variant as keyof typeof profile.sessionsPerMinute] * result.profile.callsPerSession;
        const session: WarmingSession = {
          variantTokens: result.blocks[variant]?.variantEnd ?? 0,
          callsPerSession: result.profile.callsPerSession,
          newTokensPerCall: profile.newTokensPerCall,
          secondsBetweenCalls: profile.secondsBetweenCalls,
          variantStaysCached: callsPerMinute > 0 && 60 / callsPerMinute <= ttlSeconds,
        };
        const every = warmSession(session, schedule, prices);
        const byPi = anthropic && gate !== undefined ? warmSession(session, schedule, prices, gate) : { refreshes: 0, refreshCost: 0, missesAvoided: 0, saved: 0 };
        return {
          provider: model.provider,
          model: model.model,
          variant,
          ttlSeconds,
          refreshEverySeconds: schedule.everySeconds,
          maxRefreshes: schedule.maxRefreshes,
          refreshesPerSession: every.refreshes,
          refreshCostPer1000Sessions: every.refreshCost * 1000,
          missesAvoidedPerSession: every.missesAvoided,
          savedPer1000Sessions: every.saved * 1000,
          netPer1000Sessions: (every.saved - every.refreshCost) * 1000,
          piGatePromptTokens: gate ?? null,
          piWarmsProvider: anthropic,
          piRefreshesPerSession: byPi.refreshes,
          piNetPer1000Sessions: (byPi.saved - byPi.refreshCost) * 1000,
        };
      });
    });
    expect(result.warming).toEqual(expected);
    const sonnetRow = (variant: string) => result.warming.find((row) => row.model === "claude-sonnet-4-5" && row.variant === variant);
    // What the composition has to tell apart: refreshes Pi's gate lets through, and a variant's blocks kept cached (a smaller saving).
    if (index === 1) expect(sonnetRow("deck-generation")?.piRefreshesPerSession).toBeGreaterThan(0);
    const [cached, uncached] = index === 1 ? ["deck-generation", "base"] : ["base", "deck-generation"];
    expect(sonnetRow(cached)?.savedPer1000Sessions).toBeLessThan(sonnetRow(uncached)?.savedPer1000Sessions ?? 0);
  });
});
