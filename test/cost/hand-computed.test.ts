/**
 * The cost simulator against figures worked out by hand: one session, one
 * block, each price (base input, 5-minute write, 1-hour write, read, OpenAI
 * cached input and write fee), from the rules the README states. The
 * expected values are arithmetic on literal numbers, not calls into the
 * simulator, so a rule dropped or swapped in the code shows up here.
 */
import { appendFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { cost, type CostRow } from "../../src/cost/cost.js";
import { loadPromptCachingData, type AnthropicModelPrices, type OpenAIModelPrices } from "../../src/cost/rules.js";
import { buildSchedule, simulateAnthropic, simulateOpenAI, type AnthropicPolicy, type OpenAIPolicy, type Schedule, type Workload } from "../../src/cost/simulate.js";
import { docPage } from "../helpers/docs.js";
import { ANTHROPIC, GPT5, OPENAI, SONNET } from "./helpers.js";

/** The page that states the cost figures this file computes. */
const readme = docPage("docs/guide/caching-and-cost.md").text;
import { copyProject, removeTempDirs, repoRoot } from "../build/helpers.js";

afterAll(removeTempDirs);

/** GPT-5.6 and later: cache writes at a price of their own, extended retention a ttl of their own (gpt-5.6-terra's figures). */
const GPT56: OpenAIModelPrices = { inputPerMTok: 2, cachedInputPerMTok: 0.2, cacheWritePerMTok: 2.5, extendedRetentionSeconds: 1800 };

/** One variant: tools 2,000 tokens, static prefix up to 5,000, the variant up to 6,000; +100 tokens per call. */
const workload: Workload = {
  variants: [{ name: "v", toolsEnd: 2000, prefixEnd: 5000, variantEnd: 6000, sessionsPerMinute: 0 }],
  durationSeconds: 3600,
  callsPerSession: 2,
  newTokensPerCall: 100,
  secondsBetweenCalls: 20,
};

/** Calls at the given seconds: [session, call number, second]. */
function schedule(calls: [number, number, number][]): Schedule {
  const sessions = Math.max(...calls.map(([session]) => session)) + 1;
  return {
    session: Int32Array.from(calls, ([session]) => session),
    call: Int32Array.from(calls, ([, call]) => call),
    second: Int32Array.from(calls, ([, , second]) => second),
    sessionVariant: new Int32Array(sessions),
    sessions,
  };
}

const dollars = (tokenUnits: number, perMTok: number): number => (tokenUnits * perMTok) / 1e6;
const anthropic = (policy: Omit<AnthropicPolicy, "provider">, calls: [number, number, number][], model: AnthropicModelPrices = SONNET) =>
  simulateAnthropic(workload, schedule(calls), { provider: "anthropic", ...policy }, ANTHROPIC, model)[0];
const openai = (policy: Omit<OpenAIPolicy, "provider" | "shards">, calls: [number, number, number][], rules = OPENAI, model: OpenAIModelPrices = GPT5) =>
  simulateOpenAI(workload, schedule(calls), { provider: "openai", shards: 1, ...policy }, rules, model)[0];

describe("Anthropic, one session", () => {
  it("first call, plan's breakpoints, 5m: everything written at 1.25×", () => {
    // 6,000 variant tokens + 100 new ones, nothing to read.
    const outcome = anthropic({ breakpoints: "plan", staticLifetime: "5m" }, [[0, 0, 0]]);
    expect(outcome?.inputTokens).toBe(6100);
    expect(outcome?.cachedTokens).toBe(0);
    expect(outcome?.inputCost).toBeCloseTo(dollars(6100 * 1.25, 3), 12);
  });

  it("first call, plan's breakpoints, 1h: tools + static prefix written at 2×, the rest at 1.25×", () => {
    const outcome = anthropic({ breakpoints: "plan", staticLifetime: "1h" }, [[0, 0, 0]]);
    expect(outcome?.inputCost).toBeCloseTo(dollars(5000 * 2 + 1100 * 1.25, 3), 12);
  });

  it("first call, one system block, 1h: the whole system prompt is the 1-hour block", () => {
    const outcome = anthropic({ breakpoints: "one", staticLifetime: "1h" }, [[0, 0, 0]]);
    expect(outcome?.inputCost).toBeCloseTo(dollars(6000 * 2 + 100 * 1.25, 3), 12);
    expect(anthropic({ breakpoints: "one", staticLifetime: "5m" }, [[0, 0, 0]])?.inputCost).toBeCloseTo(dollars(6100 * 1.25, 3), 12);
  });

  it("second call 20 s later: the previous call read at 0.1×, the new message written at 1.25×", () => {
    const outcome = anthropic({ breakpoints: "plan", staticLifetime: "5m" }, [[0, 0, 0], [0, 1, 20]]);
    expect(outcome?.calls).toBe(2);
    expect(outcome?.inputTokens).toBe(6100 + 6200);
    expect(outcome?.cachedTokens).toBe(6100);
    expect(outcome?.inputCost).toBeCloseTo(dollars(6100 * 1.25, 3) + dollars(6100 * 0.1 + 100 * 1.25, 3), 12);
  });

  it("a model's own read price replaces the rules' 0.1×", () => {
    const outcome = anthropic({ breakpoints: "plan", staticLifetime: "5m" }, [[0, 0, 0], [0, 1, 20]], { inputPerMTok: 2, minimumTokens: 1024, readMultiplier: 0.05 });
    expect(outcome?.inputCost).toBeCloseTo(dollars(6100 * 1.25, 2) + dollars(6100 * 0.05 + 100 * 1.25, 2), 12);
  });

  it("a prompt below the model's minimum is never cached and costs the base price", () => {
    const outcome = anthropic({ breakpoints: "plan", staticLifetime: "5m" }, [[0, 0, 0], [0, 1, 20]], { inputPerMTok: 3, minimumTokens: 10_000 });
    expect(outcome?.cachedTokens).toBe(0);
    expect(outcome?.inputCost).toBeCloseTo(dollars(6100 + 6200, 3), 12);
  });
});

describe("Anthropic, one block alive and one expired", () => {
  // Two sessions 10 minutes apart: 5-minute entries are gone, 1-hour ones are not.
  const calls: [number, number, number][] = [[0, 0, 0], [1, 0, 600]];

  it("with 5m the second session writes everything again", () => {
    const outcome = anthropic({ breakpoints: "plan", staticLifetime: "5m" }, calls);
    expect(outcome?.cachedTokens).toBe(0);
    expect(outcome?.inputCost).toBeCloseTo(2 * dollars(6100 * 1.25, 3), 12);
  });

  it("with the plan's 1h block the second session reads tools + static prefix and writes only the tail", () => {
    const outcome = anthropic({ breakpoints: "plan", staticLifetime: "1h" }, calls);
    expect(outcome?.cachedTokens).toBe(5000);
    expect(outcome?.inputCost).toBeCloseTo(dollars(5000 * 2 + 1100 * 1.25, 3) + dollars(5000 * 0.1 + 1100 * 1.25, 3), 12);
  });

  it("with one 1h system block the second session reads the whole variant", () => {
    const outcome = anthropic({ breakpoints: "one", staticLifetime: "1h" }, calls);
    expect(outcome?.cachedTokens).toBe(6000);
    expect(outcome?.inputCost).toBeCloseTo(dollars(6000 * 2 + 100 * 1.25, 3) + dollars(6000 * 0.1 + 100 * 1.25, 3), 12);
  });

  it("the tools alone stay cached for one block when a 5m variant expired but the tools were used meanwhile", () => {
    // Session 1 at 200 s keeps the tools warm until session 2 at 450 s; its own variant block is older.
    const outcome = simulateAnthropic(
      { ...workload, variants: [workload.variants[0]!, { name: "w", toolsEnd: 2000, prefixEnd: 3000, variantEnd: 3500, sessionsPerMinute: 0 }] },
      { ...schedule([[0, 0, 0], [1, 0, 200], [2, 0, 450]]), sessionVariant: Int32Array.of(0, 1, 0) },
      { provider: "anthropic", breakpoints: "one", staticLifetime: "5m" },
      ANTHROPIC,
      SONNET,
    )[0];
    expect(outcome?.cachedTokens).toBe(2000);
    expect(outcome?.inputCost).toBeCloseTo(dollars(6100 * 1.25, 3) + dollars(2000 * 0.1 + 4100 * 1.25, 3), 12);
  });
});

describe("variants with other tools from the start (namespaces)", () => {
  /** `v` and `w` share the stable tools (2,000 tokens); `w` sends 700 tokens of a namespace after them, so its static prefix ends at 5,700. */
  const pair: Workload = {
    ...workload,
    callsPerSession: 1,
    variants: [workload.variants[0]!, { name: "w", toolsEnd: 2000, prefixEnd: 5700, variantEnd: 6700, sessionsPerMinute: 0, startTools: "namespaces/drive.json" }],
  };
  const wThenV = { ...schedule([[0, 0, 0], [1, 0, 10]]), sessionVariant: Int32Array.of(1, 0) };

  it("Anthropic, plan's breakpoints: a session of v after one of w reads only the tools and writes the static prefix again", () => {
    const outcome = simulateAnthropic(pair, wThenV, { provider: "anthropic", breakpoints: "plan", staticLifetime: "5m" }, ANTHROPIC, SONNET)[0];
    expect(outcome?.cachedTokens).toBe(2000);
    expect(outcome?.inputCost).toBeCloseTo(dollars(2000 * 0.1 + 4100 * 1.25, 3), 12);
  });

  it("Anthropic: a session of x, with w's tools from the start and its own tail, after one of w reads tools and static prefix", () => {
    const x = { name: "x", toolsEnd: 2000, prefixEnd: 5700, variantEnd: 6200, sessionsPerMinute: 0, startTools: "namespaces/drive.json" };
    const outcome = simulateAnthropic({ ...pair, variants: [...pair.variants, x] }, { ...schedule([[0, 0, 0], [1, 0, 10]]), sessionVariant: Int32Array.of(1, 2) }, { provider: "anthropic", breakpoints: "plan", staticLifetime: "5m" }, ANTHROPIC, SONNET)[2];
    expect(outcome?.cachedTokens).toBe(5700);
  });

  it("Anthropic, one system breakpoint (Pi's layout, the mark on the last tool): v after w reads nothing, w after v the stable tools", () => {
    const withStart = { ...pair, variants: [pair.variants[0]!, { ...pair.variants[1]!, startToolsEnd: 2700 }] };
    const one: AnthropicPolicy = { provider: "anthropic", breakpoints: "one", staticLifetime: "5m" };
    expect(simulateAnthropic(withStart, wThenV, one, ANTHROPIC, SONNET)[0]?.cachedTokens).toBe(0);
    expect(simulateAnthropic(withStart, { ...schedule([[0, 0, 0], [1, 0, 10]]), sessionVariant: Int32Array.of(0, 1) }, one, ANTHROPIC, SONNET)[1]?.cachedTokens).toBe(2000);
    // With the plan's breakpoints the tools' entry is the stable tools' in both orders.
    expect(simulateAnthropic(withStart, wThenV, { ...one, breakpoints: "plan" }, ANTHROPIC, SONNET)[0]?.cachedTokens).toBe(2000);
  });

  it("OpenAI, one route: a session of v after one of w finds only the tools as a common prefix", () => {
    const outcome = simulateOpenAI(pair, wThenV, { provider: "openai", key: "none", retention: "in-memory", shards: 1 }, OPENAI, GPT5)[0];
    const cached = Math.floor(2000 / 128) * 128;
    expect(outcome?.cachedTokens).toBe(cached);
    expect(outcome?.inputCost).toBeCloseTo(dollars(cached, 0.125) + dollars(6100 - cached, 1.25), 12);
  });
});

describe("OpenAI, one session", () => {
  it("first call: uncached input at the base price, no write fee", () => {
    const outcome = openai({ key: "per-session", retention: "in-memory" }, [[0, 0, 0]]);
    expect(outcome?.cachedTokens).toBe(0);
    expect(outcome?.inputCost).toBeCloseTo(dollars(6100, 1.25), 12);
  });

  it("second call: the previous prompt in 128-token steps at the cached price", () => {
    const outcome = openai({ key: "per-session", retention: "in-memory" }, [[0, 0, 0], [0, 1, 20]]);
    const cached = Math.floor(6100 / 128) * 128;
    expect(cached).toBe(6016);
    expect(outcome?.cachedTokens).toBe(cached);
    expect(outcome?.inputCost).toBeCloseTo(dollars(6100, 1.25) + dollars(cached, 0.125) + dollars(6200 - cached, 1.25), 12);
  });

  it("a write fee, where the rules have one, is paid on the uncached part", () => {
    const outcome = openai({ key: "per-session", retention: "in-memory" }, [[0, 0, 0]], { ...OPENAI, writeMultiplier: 0.25 });
    expect(outcome?.inputCost).toBeCloseTo(dollars(6100 * 1.25, 1.25), 12);
  });

  it("GPT-5.6 and later: everything not read is written at the model's write price, from the minimum on", () => {
    const outcome = openai({ key: "per-session", retention: "in-memory" }, [[0, 0, 0], [0, 1, 20]], OPENAI, GPT56);
    expect(outcome?.inputCost).toBeCloseTo(dollars(6100, 2.5) + dollars(6016, 0.2) + dollars(6200 - 6016, 2.5), 12);
    const below = openai({ key: "per-session", retention: "in-memory" }, [[0, 0, 0]], { ...OPENAI, minimumTokens: 6101 }, GPT56);
    expect(below?.inputCost).toBeCloseTo(dollars(6100, 2), 12);
  });

  it("extended retention keeps an entry 24 hours, or the model's own ttl where it has one, to the second", () => {
    const at = (second: number, model: OpenAIModelPrices) => openai({ key: "none", retention: "24h" }, [[0, 0, 0], [1, 0, second]], OPENAI, model)?.cachedTokens;
    const variant = Math.floor(6000 / 128) * 128;
    expect([at(1800, GPT56), at(1801, GPT56)]).toEqual([variant, 0]);
    expect([at(86_400, GPT5), at(86_401, GPT5)]).toEqual([variant, 0]);
  });

  it("10 minutes idle: in-memory retention lost the prefix, 24h kept the variant", () => {
    const calls: [number, number, number][] = [[0, 0, 0], [1, 0, 600]];
    expect(openai({ key: "none", retention: "in-memory" }, calls)?.cachedTokens).toBe(0);
    expect(openai({ key: "none", retention: "24h" }, calls)?.cachedTokens).toBe(Math.floor(6000 / 128) * 128);
  });
});

describe("the data file holds the prices the README states", () => {
  it("Anthropic 1.25× / 2× / 0.1× and $3 for claude-sonnet-4-5; OpenAI $1.25 / $0.125 for gpt-5 without write fee", () => {
    const data = loadPromptCachingData();
    expect(data.providers.anthropic.rules).toEqual(ANTHROPIC);
    expect(data.providers.anthropic.models["claude-sonnet-4-5"]).toEqual(SONNET);
    expect(data.providers.openai.rules).toEqual(OPENAI);
    expect(data.providers.openai.models["gpt-5"]).toEqual(GPT5);
    expect(readme).toContain("writes everything after it at 1.25× (5m) or 2× (1h), reads at 0.1×");
  });
});

describe("cost() on the embedded default, one session of one call", () => {
  // One minute at one session a minute starts exactly one session (at 30 s).
  const profile = { durationMinutes: 1, sessionsPerMinute: { base: 1 }, callsPerSession: 1, newTokensPerCall: 100, models: [{ provider: "anthropic", model: "claude-sonnet-4-5" }, { provider: "openai", model: "gpt-5" }] };

  it("prices each policy's first call by hand from the plan's block ends", () => {
    const result = cost({ root: repoRoot, profile });
    const { toolsEnd, prefixEnd, variantEnd } = result.blocks["base"]!;
    expect(buildSchedule({ ...workload, callsPerSession: 1, durationSeconds: 60, variants: [{ ...workload.variants[0]!, sessionsPerMinute: 1 }] }).sessions).toBe(1);
    const end = variantEnd + 100;
    const perThousand = (policy: string) => result.rows.find((row) => row.variant === "base" && row.policy === policy)?.inputCostPer1000Sessions;
    expect(toolsEnd).toBeLessThan(prefixEnd);
    expect(perThousand("plan's breakpoints, 5m")).toBeCloseTo(dollars(end * 1.25, 3) * 1000, 9);
    expect(perThousand("plan's breakpoints, 1h")).toBeCloseTo(dollars(prefixEnd * 2 + (end - prefixEnd) * 1.25, 3) * 1000, 9);
    expect(perThousand("one system breakpoint, 1h")).toBeCloseTo(dollars(variantEnd * 2 + 100 * 1.25, 3) * 1000, 9);
    expect(perThousand("per-session key, in-memory")).toBeCloseTo(dollars(end, 1.25) * 1000, 9);
  });
});

describe("the README's figures on cost", () => {
  // "at one session a minute spread over the three variants": the default profile at one session a minute.
  let rows: CostRow[] | undefined;
  const price = (model: string, policy: string, variant = "deck-generation"): string => {
    rows ??= cost({ root: repoRoot, profile: { sessionsPerMinute: 1 } }).rows;
    const found = rows.find((row) => row.model === model && row.policy === policy && row.variant === variant);
    expect(found, `${model} ${policy} ${variant}`).toBeDefined();
    return `$${found?.inputCostPer1000Sessions.toFixed(2)}`;
  };

  it("the plan against one block, and the 1h lifetime at one session a minute, are what cost prints", () => {
    const plan = price("claude-sonnet-4-5", "plan's breakpoints, 5m");
    const one = price("claude-sonnet-4-5", "one system breakpoint, 5m");
    const oneHour = price("claude-sonnet-4-5", "one system breakpoint, 1h");
    expect(readme).toContain(`\`deck-generation\` costs ${plan} per 1,000 sessions with the plan and ${one} with one block`);
    const planHour = price("claude-sonnet-4-5", "plan's breakpoints, 1h");
    expect(planHour).toBe(plan);
    expect(readme).toContain(`at one session a minute it gains nothing with the plan's breakpoints (${plan} either\n  way) and costs more with one block (${oneHour} against ${one})`);
    // The guide's reason for the 5-minute default: the 1-hour write price makes it no cheaper here, and dearer with one block.
    expect(Number(oneHour.slice(1))).toBeGreaterThan(Number(one.slice(1)));
  });

  it("the OpenAI key choices at one session a minute are what cost prints", () => {
    expect(readme).toContain(`(at one session a minute: ${price("gpt-5", "sharded key (1), in-memory")} sharded, ${price("gpt-5", "per-session key, in-memory")} per session)`);
    expect(readme).toContain(`helps per-session\n  keys at low traffic (${price("gpt-5", "per-session key, 24h")})`);
  });
});

describe("the schedule", () => {
  it("spaces sessions evenly with a phase per variant, and orders calls by second, then call number, then session", () => {
    // 6 sessions a minute over 30 s: one every 10 s, from half the gap (one variant); two calls 5 s apart.
    const one = buildSchedule({ ...workload, durationSeconds: 30, callsPerSession: 2, secondsBetweenCalls: 5, variants: [{ ...workload.variants[0]!, sessionsPerMinute: 6 }] });
    expect(one.sessions).toBe(3);
    expect([...one.second]).toEqual([5, 10, 15, 20, 25, 30]);
    expect([...one.session]).toEqual([0, 0, 1, 1, 2, 2]);
    expect([...one.call]).toEqual([0, 1, 0, 1, 0, 1]);
    expect([...one.sessionVariant]).toEqual([0, 0, 0]);
    // Two of three variants at 3 a minute each over 20 s: phases 1/4 and 2/4 of the 20 s gap; the one at 0 gets none.
    const two = buildSchedule({
      ...workload,
      durationSeconds: 20,
      callsPerSession: 1,
      secondsBetweenCalls: 0,
      variants: [
        { ...workload.variants[0]!, name: "a", sessionsPerMinute: 3 },
        { ...workload.variants[0]!, name: "b", sessionsPerMinute: 3 },
        { ...workload.variants[0]!, name: "c", sessionsPerMinute: 0 },
      ],
    });
    expect(two.sessions).toBe(2);
    expect([...two.second]).toEqual([5, 10]);
    expect([...two.sessionVariant]).toEqual([0, 1]);
    // Within one second, a session's earlier call comes first, then sessions in order.
    // A session that would start exactly at the end of the duration is not started; a rate of zero or less starts none.
    const edge = buildSchedule({ ...workload, durationSeconds: 25, callsPerSession: 1, variants: [{ ...workload.variants[0]!, sessionsPerMinute: 6 }] });
    expect([...edge.second]).toEqual([5, 15]);
    expect(buildSchedule({ ...workload, variants: [{ ...workload.variants[0]!, sessionsPerMinute: -6 }] }).sessions).toBe(0);
    // A last call in the last possible second (1.5 s + 0.6 s) is scheduled like any other.
    const late = buildSchedule({ ...workload, durationSeconds: 2, callsPerSession: 2, secondsBetweenCalls: 0.6, variants: [{ ...workload.variants[0]!, sessionsPerMinute: 60 }] });
    expect([...late.second]).toEqual([0, 1, 1, 2]);
    expect([...late.session]).toEqual([0, 1, 0, 1]);
    expect([...late.call]).toEqual([0, 0, 1, 1]);
    const same = buildSchedule({ ...workload, durationSeconds: 2, callsPerSession: 2, secondsBetweenCalls: 0.2, variants: [{ ...workload.variants[0]!, sessionsPerMinute: 60 }] });
    expect([...same.second]).toEqual([0, 0, 1, 1]);
    expect([...same.call]).toEqual([0, 1, 0, 1]);
    expect([...same.session]).toEqual([0, 0, 1, 1]);
  });
});

describe("cost() on the embedded default, small profiles", () => {
  const twoModels = [{ provider: "anthropic", model: "claude-sonnet-4-5" }, { provider: "openai", model: "gpt-5" }];

  it("lists each policy once per variant with its label, the runtime's defaults marked, and counts the calls simulated", () => {
    const result = cost({ root: repoRoot, profile: { durationMinutes: 1, sessionsPerMinute: 3, callsPerSession: 2, models: twoModels } });
    const policies = [...new Set(result.rows.map((row) => `${row.provider}/${row.model}: ${row.policy}${row.isDefault ? " *" : ""}`))];
    expect(policies).toEqual([
      "anthropic/claude-sonnet-4-5: one system breakpoint, 5m",
      "anthropic/claude-sonnet-4-5: one system breakpoint, 1h",
      "anthropic/claude-sonnet-4-5: plan's breakpoints, 5m *",
      "anthropic/claude-sonnet-4-5: plan's breakpoints, 1h",
      "openai/gpt-5: no key, in-memory",
      "openai/gpt-5: per-session key, in-memory *",
      "openai/gpt-5: sharded key (1), in-memory",
      "openai/gpt-5: no key, 24h",
      "openai/gpt-5: per-session key, 24h",
      "openai/gpt-5: sharded key (1), 24h",
    ]);
    expect(result.rows.map((row) => row.variant).slice(0, 3)).toEqual(["base", "deck-generation", "import"]);
    // 3 sessions (one per variant) × 2 calls × 10 policies.
    expect(result.rows.filter((row) => row.policy === "plan's breakpoints, 5m").map((row) => row.sessions)).toEqual([1, 1, 1]);
    expect(result.simulatedCalls).toBe(3 * 2 * 10);
    expect(result.profile.sessionsPerMinute).toEqual({ base: 1, "deck-generation": 1, import: 1 });
  });

  it("reports the cached share of input and the price per 1,000 sessions, and 0 for a variant without sessions", () => {
    const result = cost({ root: repoRoot, profile: { durationMinutes: 1, sessionsPerMinute: { base: 1 }, callsPerSession: 2, newTokensPerCall: 100, models: twoModels } });
    const { variantEnd } = result.blocks["base"]!;
    const perSession = result.rows.find((row) => row.variant === "base" && row.policy === "per-session key, in-memory");
    const cached = Math.floor((variantEnd + 100) / 128) * 128;
    expect(perSession?.cachedFraction).toBeCloseTo(cached / (variantEnd + 100 + variantEnd + 200), 12);
    expect(perSession?.inputCostPer1000Sessions).toBeCloseTo((dollars(variantEnd + 100, 1.25) + dollars(cached, 0.125) + dollars(variantEnd + 200 - cached, 1.25)) * 1000, 9);
    const idle = result.rows.find((row) => row.variant === "import" && row.policy === "per-session key, in-memory");
    expect(idle).toMatchObject({ sessions: 0, cachedFraction: 0, inputCostPer1000Sessions: 0 });
  });

  it("the cold-variant read: tools + static prefix with the plan, tools alone with one block; OpenAI's shared route serves the prefix, a per-session key nothing", () => {
    const result = cost({ root: repoRoot, profile: { durationMinutes: 1, sessionsPerMinute: 3, models: twoModels } });
    for (const variant of ["base", "deck-generation", "import"]) {
      const { toolsEnd, prefixEnd } = result.blocks[variant]!;
      const read = (policy: string) => result.rows.find((row) => row.variant === variant && row.policy === policy)?.coldVariantRead;
      expect(read("plan's breakpoints, 5m"), variant).toBe(prefixEnd);
      expect(read("one system breakpoint, 1h"), variant).toBe(toolsEnd);
      expect(read("no key, in-memory"), variant).toBe(Math.floor(prefixEnd / 128) * 128);
      expect(read("per-session key, in-memory"), variant).toBe(0);
    }
  });

  it("reads the dist/ of the project it is given, not the embedded default", () => {
    expect(() => cost({ root: repoRoot, outDir: "no-such-dist" })).toThrow();
  });

  it("shards so that the busiest variant's calls per key stay at 80% of the per-key rate", () => {
    // 12 calls a minute fit one key (0.8 × 15 = 12); 15 need two.
    expect(cost({ root: repoRoot, profile: { durationMinutes: 1, sessionsPerMinute: { base: 4, import: 1 }, callsPerSession: 3, models: twoModels } }).shards).toBe(1);
    const busier = cost({ root: repoRoot, profile: { durationMinutes: 1, sessionsPerMinute: { base: 5 }, callsPerSession: 3, models: twoModels } });
    expect(busier.shards).toBe(2);
    expect(busier.rows.some((row) => row.policy === "sharded key (2), 24h")).toBe(true);
  });

  it("reports progress as a rising fraction of all policies' calls, ending at 1", () => {
    const seen: number[] = [];
    cost({ root: repoRoot, profile: { durationMinutes: 1, sessionsPerMinute: 3, models: twoModels }, onProgress: (fraction) => seen.push(fraction) });
    expect(seen.length).toBeGreaterThanOrEqual(10);
    expect(seen.every((fraction, index) => fraction >= 0 && fraction <= 1 && (index === 0 || fraction >= (seen[index - 1] ?? 0)))).toBe(true);
    expect(seen.at(-1)).toBe(1);
    expect(seen).toContain(0.1);
  });
});

describe("progress of one simulation", () => {
  // Three one-call sessions a second: 2 × 65,536 + 10 calls.
  const calls = 2 * 65_536 + 10;
  const many: Schedule = {
    session: Int32Array.from({ length: calls }, (_, index) => index),
    call: new Int32Array(calls),
    second: Int32Array.from({ length: calls }, (_, index) => Math.floor(index / 3)),
    sessionVariant: new Int32Array(calls),
    sessions: calls,
  };

  it("is reported at the start, after every 65,536 calls, and at the end", () => {
    const expected = [0, 65_536 / calls, 131_072 / calls, 1];
    const anthropicSeen: number[] = [];
    simulateAnthropic(workload, many, { provider: "anthropic", breakpoints: "plan", staticLifetime: "5m" }, ANTHROPIC, SONNET, (fraction) => anthropicSeen.push(fraction));
    expect(anthropicSeen).toEqual(expected);
    const openaiSeen: number[] = [];
    simulateOpenAI(workload, many, { provider: "openai", key: "per-session", retention: "in-memory", shards: 1 }, OPENAI, GPT5, (fraction) => openaiSeen.push(fraction));
    expect(openaiSeen).toEqual(expected);
  });

  it("is reported once at the end when the calls are exactly 65,536", () => {
    const exact: Schedule = { ...many, session: many.session.slice(0, 65_536), call: many.call.slice(0, 65_536), second: many.second.slice(0, 65_536), sessions: 65_536 };
    const seen: number[] = [];
    simulateAnthropic(workload, exact, { provider: "anthropic", breakpoints: "plan", staticLifetime: "5m" }, ANTHROPIC, SONNET, (fraction) => seen.push(fraction));
    simulateOpenAI(workload, exact, { provider: "openai", key: "none", retention: "in-memory", shards: 1 }, OPENAI, GPT5, (fraction) => seen.push(fraction));
    expect(seen).toEqual([0, 1, 0, 1]);
  });
});

describe("OpenAI routes", () => {
  it("a shared route past its per-minute rate spills calls to other machines and loses hits; per-session keys do not", () => {
    // 30 one-call sessions of one variant in 30 s: far past 15 requests a minute on one route.
    const calls: [number, number, number][] = Array.from({ length: 30 }, (_, index) => [index, 0, index]);
    const shared = openai({ key: "none", retention: "in-memory" }, calls);
    const sharded = simulateOpenAI(workload, schedule(calls), { provider: "openai", key: "sharded", retention: "in-memory", shards: 4 }, OPENAI, GPT5)[0];
    // The first 15 calls find the home machine (the first of them writes it); the rest mostly miss.
    expect(shared?.cachedTokens).toBeGreaterThanOrEqual(14 * 5888);
    expect(shared?.cachedTokens).toBeLessThan(29 * 5888);
    // Four shard routes share the load: more of the calls land on a warm machine.
    expect(sharded?.cachedTokens).toBeGreaterThan(shared?.cachedTokens ?? 0);
  });
});

describe("OpenAI routes, machine by machine", () => {
  // With the guide's 64 machines, the fixed hash sends routes 0 to 3 home to machines 18, 52, 14 and 54; a spilled
  // call goes where the simulator's fixed random sequence says, first to machine 54, then 55, 36, 13. One variant
  // entry on a machine is Math.floor(6000 / 128) * 128 = 5,888 cached tokens.
  const variantEntry = 5888;

  it("a per-session key gives each session its own route and home machine, and a spilled call lands on the next machine of the fixed sequence", () => {
    // One request a minute per route: session 0's second call (1 s later) spills, to machine 54, and writes the
    // variant there; session 3's route is home to machine 54, so its first call reads that entry.
    const rules = { ...OPENAI, overflowRequestsPerMinute: 1 };
    const outcome = openai({ key: "per-session", retention: "in-memory" }, [[0, 0, 0], [0, 1, 1], [3, 0, 2]], rules);
    // Session 0's spilled call finds nothing on machine 54: its own entry is on machine 18.
    expect(outcome?.cachedTokens).toBe(variantEntry);
    // Sessions 1 and 2 start on machines 52 and 14: another session's entry on 18 is not theirs.
    expect(openai({ key: "per-session", retention: "in-memory" }, [[0, 0, 0], [1, 0, 10], [2, 0, 20]])?.cachedTokens).toBe(0);
    // Without a key all three take route 0, home to machine 18, and the later two read the variant there.
    expect(openai({ key: "none", retention: "in-memory" }, [[0, 0, 0], [1, 0, 10], [2, 0, 20]])?.cachedTokens).toBe(2 * variantEntry);
  });

  it("a route admits calls while a whole request is left in its bucket, exactly one included", () => {
    // Two requests a minute, three calls in the same second: the first two go home (the second with exactly one
    // request left, and reads the first's variant entry), the third spills to machine 54 and misses.
    const rules = { ...OPENAI, overflowRequestsPerMinute: 2 };
    expect(openai({ key: "none", retention: "in-memory" }, [[0, 0, 0], [1, 0, 0], [2, 0, 0]], rules)?.cachedTokens).toBe(variantEntry);
  });

  it("a sharded key gives each variant its own routes, one per shard, and a session the shard its hash picks", () => {
    // Two shards: variant v's routes are 0 and 1, variant w's 2 and 3. Sessions 0 and 1 hash to shard 0.
    const two = { ...workload, variants: [workload.variants[0]!, { name: "w", toolsEnd: 2000, prefixEnd: 5000, variantEnd: 7000, sessionsPerMinute: 0 }] };
    const sharded = (calls: [number, number, number][], sessionVariant: Int32Array) =>
      simulateOpenAI(two, { ...schedule(calls), sessionVariant }, { provider: "openai", key: "sharded", retention: "in-memory", shards: 2 }, OPENAI, GPT5).map((outcome) => outcome.cachedTokens);
    // Session 1 of w on route 2 (machine 14) reads its own first prompt there: Math.floor(7100 / 128) * 128.
    expect(sharded([[0, 0, 0], [1, 0, 10], [1, 1, 20]], Int32Array.of(0, 1))).toEqual([0, 7040]);
    // Sessions 0 and 1 of v share shard 0's route (machine 18): the second reads the first's variant entry.
    expect(sharded([[0, 0, 0], [1, 0, 10]], Int32Array.of(0, 0))).toEqual([variantEntry, 0]);
  });
});

describe("boundaries", () => {
  it("Anthropic: a prompt of exactly the minimum length is cached, an entry used exactly at its lifetime is still live", () => {
    // The second call's cached part (the first call's 6,100 tokens) is exactly the minimum.
    const atMinimum = anthropic({ breakpoints: "plan", staticLifetime: "5m" }, [[0, 0, 0], [0, 1, 20]], { inputPerMTok: 3, minimumTokens: 6100 });
    expect(atMinimum?.cachedTokens).toBe(6100);
    // The first call's 6,100 tokens are exactly the minimum: written at 1.25×, not billed at the base price.
    expect(anthropic({ breakpoints: "plan", staticLifetime: "5m" }, [[0, 0, 0]], { inputPerMTok: 3, minimumTokens: 6100 })?.inputCost).toBeCloseTo(dollars(6100 * 1.25, 3), 12);
    expect(anthropic({ breakpoints: "plan", staticLifetime: "5m" }, [[0, 0, 0], [0, 1, 300]])?.cachedTokens).toBe(6100);
    // 301 s later the session's and the variant's 5-minute entries are gone, and so are the plan's 5m static blocks.
    expect(anthropic({ breakpoints: "plan", staticLifetime: "5m" }, [[0, 0, 0], [0, 1, 301]])?.cachedTokens).toBe(0);
    // With a 1h static block the later call still reads tools + static prefix.
    expect(anthropic({ breakpoints: "plan", staticLifetime: "1h" }, [[0, 0, 0], [0, 1, 400]])?.cachedTokens).toBe(5000);
  });

  it("Anthropic: the variant, static prefix and tools entries are live exactly at their lifetime", () => {
    // Another session of the same variant 300 s later reads the variant's 5-minute entry.
    expect(anthropic({ breakpoints: "plan", staticLifetime: "5m" }, [[0, 0, 0], [1, 0, 300]])?.cachedTokens).toBe(6000);
    const other = (second: number, breakpoints: "plan" | "one", staticLifetime: "5m" | "1h") =>
      simulateAnthropic(
        { ...workload, variants: [workload.variants[0]!, { name: "w", toolsEnd: 2000, prefixEnd: 5000, variantEnd: 7000, sessionsPerMinute: 0 }] },
        { ...schedule([[0, 0, 0], [1, 0, second]]), sessionVariant: Int32Array.of(0, 1) },
        { provider: "anthropic", breakpoints, staticLifetime },
        ANTHROPIC,
        SONNET,
      )[1]?.cachedTokens;
    // The plan's 1-hour static prefix an hour later; one block's 5-minute tools entry 5 minutes later.
    expect([other(3600, "plan", "1h"), other(3601, "plan", "1h")]).toEqual([5000, 0]);
    expect([other(300, "one", "5m"), other(301, "one", "5m")]).toEqual([2000, 0]);
  });

  it("Anthropic: each block end at exactly the minimum is read by the next session", () => {
    const sessions: [number, number, number][] = [[0, 0, 0], [1, 0, 10]];
    expect(anthropic({ breakpoints: "plan", staticLifetime: "5m" }, sessions, { inputPerMTok: 3, minimumTokens: 6000 })?.cachedTokens).toBe(6000);
    const other = (minimum: number, breakpoints: "plan" | "one") =>
      simulateAnthropic(
        { ...workload, variants: [workload.variants[0]!, { name: "w", toolsEnd: 2000, prefixEnd: 5000, variantEnd: 7000, sessionsPerMinute: 0 }] },
        { ...schedule([[0, 0, 0], [1, 0, 10]]), sessionVariant: Int32Array.of(0, 1) },
        { provider: "anthropic", breakpoints, staticLifetime: "5m" },
        ANTHROPIC,
        { inputPerMTok: 3, minimumTokens: minimum },
      )[1]?.cachedTokens;
    expect(other(5000, "plan")).toBe(5000);
    expect(other(2000, "one")).toBe(2000);
    // One system block never reads at the static prefix's end.
    expect(other(1024, "one")).toBe(2000);
  });

  it("OpenAI: each variant has its own entry on a machine; a session's entry needs its own machine and lifetime", () => {
    const two = { ...workload, variants: [workload.variants[0]!, { name: "w", toolsEnd: 2000, prefixEnd: 5000, variantEnd: 7000, sessionsPerMinute: 0 }] };
    const outcomes = simulateOpenAI(two, { ...schedule([[0, 0, 0], [1, 0, 10], [2, 0, 20], [3, 0, 30]]), sessionVariant: Int32Array.of(0, 1, 0, 1) }, { provider: "openai", key: "none", retention: "in-memory", shards: 1 }, OPENAI, GPT5);
    // v: nothing, then its variant entry; w: v's prefix, then its own variant entry.
    expect(outcomes[0]?.cachedTokens).toBe(Math.floor(6000 / 128) * 128);
    expect(outcomes[1]?.cachedTokens).toBe(Math.floor(5000 / 128) * 128 + Math.floor(7000 / 128) * 128);
    expect(outcomes.map((outcome) => outcome.calls)).toEqual([2, 2]);
    // A session's second call 301 s later: every in-memory entry has expired.
    expect(openai({ key: "per-session", retention: "in-memory" }, [[0, 0, 0], [0, 1, 301]])?.cachedTokens).toBe(0);
    expect(openai({ key: "per-session", retention: "in-memory" }, [[0, 0, 0], [0, 1, 300]])?.cachedTokens).toBe(Math.floor(6100 / 128) * 128);
  });

  it("OpenAI: another variant's session reads the shared prefix exactly at the expiry; a session's entry lasts from its last use", () => {
    const two = { ...workload, variants: [workload.variants[0]!, { name: "w", toolsEnd: 2000, prefixEnd: 5000, variantEnd: 7000, sessionsPerMinute: 0 }] };
    const prefixAt = (second: number) =>
      simulateOpenAI(two, { ...schedule([[0, 0, 0], [1, 0, second]]), sessionVariant: Int32Array.of(0, 1) }, { provider: "openai", key: "none", retention: "in-memory", shards: 1 }, OPENAI, GPT5)[1]?.cachedTokens;
    expect([prefixAt(300), prefixAt(301)]).toEqual([Math.floor(5000 / 128) * 128, 0]);
    // A session that starts at 400 s: its second call reads its own previous prompt, not only the variant.
    expect(openai({ key: "per-session", retention: "in-memory" }, [[0, 0, 400], [0, 1, 420]])?.cachedTokens).toBe(Math.floor(6100 / 128) * 128);
  });

  it("OpenAI: calls past a route's rate spill to other machines and miss the session's entry there", () => {
    // One session, 40 calls a second apart on its own key: 15 a minute reach its home machine, the rest mostly spill.
    const calls: [number, number, number][] = Array.from({ length: 40 }, (_, index) => [0, index, index]);
    const outcome = openai({ key: "per-session", retention: "in-memory" }, calls);
    const everyCallHit = calls.slice(1).reduce((sum, [, call]) => sum + Math.floor((6000 + call * 100) / 128) * 128, 0);
    expect(outcome?.cachedTokens).toBeLessThan(everyCallHit);
  });

  it("OpenAI: a hit below the minimum is not cached", () => {
    expect(openai({ key: "none", retention: "in-memory" }, [[0, 0, 0], [1, 0, 10]], { ...OPENAI, minimumTokens: 6001 })?.cachedTokens).toBe(0);
  });

  it("OpenAI: a hit of exactly the minimum is cached, and the write fee applies from the minimum on", () => {
    const rules = { ...OPENAI, minimumTokens: 6000, writeMultiplier: 0.25 };
    const outcome = openai({ key: "none", retention: "in-memory" }, [[0, 0, 0], [1, 0, 10]], rules);
    expect(outcome?.cachedTokens).toBe(5888);
    const below = openai({ key: "per-session", retention: "in-memory" }, [[0, 0, 0]], { ...OPENAI, minimumTokens: 6101, writeMultiplier: 0.25 });
    expect(below?.inputCost).toBeCloseTo(dollars(6100, 1.25), 12);
    const at = openai({ key: "per-session", retention: "in-memory" }, [[0, 0, 0]], { ...OPENAI, minimumTokens: 6100, writeMultiplier: 0.25 });
    expect(at?.inputCost).toBeCloseTo(dollars(6100 * 1.25, 1.25), 12);
  });
});

describe("the cold-variant read of projects of one, two and four variants, their shared prefix above the minimum", () => {
  const models = [{ provider: "anthropic", model: "claude-sonnet-4-5" }, { provider: "openai", model: "gpt-5" }];
  const variantLists: Record<number, string> = {
    1: "variants:\n  base:\n    preload: []\n",
    2: "variants:\n  base:\n    preload: []\n  deck-generation:\n    preload: [outline-deck]\n",
    4: "variants:\n  base:\n    preload: []\n  deck-generation:\n    preload: [outline-deck]\n  import:\n    preload: [import-file]\n  card:\n    preload: [card-style]\n",
  };
  const roots = new Map<number, string>();

  // Only the builds run before the tests: cost() runs inside each test, so that each is known to reach the code it checks.
  beforeAll(async () => {
    for (const [count, variants] of Object.entries(variantLists)) {
      const root = await copyProject("basic");
      // The basic project's static prefix is some 480 tokens: a longer house style lifts it over the 1,024-token minimum.
      await appendFile(join(root, "prompts/prefix.hbs"), `\n## House style\n\n${"Every slide keeps one idea, a short title and at most five bullets that start with a verb.\n".repeat(80)}`);
      await writeFile(join(root, "prompts/variants.yaml"), variants);
      expect((await build({ root, persistentCache: false })).ok).toBe(true);
      roots.set(Number(count), root);
    }
  }, 120_000);

  const costOf = (count: number) => cost({ root: roots.get(count) ?? "", profile: { durationMinutes: 1, sessionsPerMinute: 1, callsPerSession: 1, models } });
  const reads = (result: ReturnType<typeof cost>, policy: string) =>
    Object.fromEntries(result.rows.filter((row) => row.policy === policy).map((row) => [row.variant, row.coldVariantRead]));

  it("has the prefix it needs: above 1,024 tokens, the tools below", () => {
    for (const count of [1, 2, 4]) {
      const result = costOf(count);
      const blocks = Object.values(result.blocks);
      expect(blocks).toHaveLength(count);
      for (const { toolsEnd, prefixEnd } of blocks) {
        expect(prefixEnd).toBeGreaterThan(1024);
        expect(toolsEnd).toBeLessThan(1024);
      }
      expect(result.shards).toBe(1);
    }
  });

  it("is 0 for every policy of a one-variant project: there is no other variant to warm the cache", () => {
    const rows = costOf(1).rows;
    expect(rows.length).toBe(10);
    expect(rows.map((row) => row.coldVariantRead)).toEqual(Array(10).fill(0));
  });

  it("with two variants, is the shared prefix with the plan and through OpenAI's shared route, nothing through the tools below the minimum or a route of its own", () => {
    const result = costOf(2);
    const prefixEnd = result.blocks["base"]?.prefixEnd ?? 0;
    expect(result.blocks["deck-generation"]?.prefixEnd).toBe(prefixEnd);
    const both = (read: number) => ({ base: read, "deck-generation": read });
    expect(reads(result, "plan's breakpoints, 5m")).toEqual(both(prefixEnd));
    expect(reads(result, "plan's breakpoints, 1h")).toEqual(both(prefixEnd));
    expect(reads(result, "one system breakpoint, 5m")).toEqual(both(0));
    expect(reads(result, "no key, in-memory")).toEqual(both(Math.floor(prefixEnd / 128) * 128));
    expect(reads(result, "per-session key, in-memory")).toEqual(both(0));
    expect(reads(result, "sharded key (1), in-memory")).toEqual(both(0));
  });

  it("with four variants and a sharded key, is nothing: each variant's route is home to a machine of its own (18, 52, 14 and 54)", () => {
    const result = costOf(4);
    expect(reads(result, "sharded key (1), in-memory")).toEqual({ base: 0, card: 0, "deck-generation": 0, import: 0 });
    const prefixEnd = result.blocks["base"]?.prefixEnd ?? 0;
    expect(Object.values(reads(result, "no key, 24h"))).toEqual(Array(4).fill(Math.floor(prefixEnd / 128) * 128));
  });
});
