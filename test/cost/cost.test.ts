import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { cost, type CostRow } from "../../src/cost/cost.js";
import { formatCostTable } from "../../src/cost/format.js";
import { invalidationCost } from "../../src/cost/invalidation.js";
import { ProfileError } from "../../src/cost/profile.js";
import { loadPromptCachingData } from "../../src/cost/rules.js";
import type { CachePlan } from "../../src/protocol/cache-plan.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { copyProject, removeTempDirs, repoRoot, tempDir } from "../build/helpers.js";
import { runCliInProcess } from "../helpers/cli.js";
import { copyParts } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

const small = { durationMinutes: 30, sessionsPerMinute: 20 };
const row = (rows: CostRow[], model: string, policy: string, variant: string) => rows.find((entry) => entry.model === model && entry.policy.startsWith(policy) && entry.variant === variant);

describe("gamma-prompt cost (library)", () => {
  it("prices every policy for every variant of the embedded default, the runtime's defaults marked", () => {
    const result = cost({ root: repoRoot, profile: small });
    const variants = Object.keys(result.blocks);
    expect(variants).toEqual(["base", "deck-generation", "import"]);
    const policies = [...new Set(result.rows.map((entry) => `${entry.model}: ${entry.policy}`))];
    expect(policies).toEqual([
      "claude-sonnet-4-5: one system breakpoint, 5m",
      "claude-sonnet-4-5: one system breakpoint, 1h",
      "claude-sonnet-4-5: plan's breakpoints, 5m",
      "claude-sonnet-4-5: plan's breakpoints, 1h",
      `gpt-5: no key, in-memory`,
      `gpt-5: per-session key, in-memory`,
      `gpt-5: sharded key (${result.shards}), in-memory`,
      `gpt-5: no key, 24h`,
      `gpt-5: per-session key, 24h`,
      `gpt-5: sharded key (${result.shards}), 24h`,
    ]);
    expect(result.rows).toHaveLength(policies.length * variants.length);
    expect(result.rows.filter((entry) => entry.isDefault).map((entry) => entry.policy)).toEqual([...Array(3).fill("plan's breakpoints, 5m"), ...Array(3).fill("per-session key, in-memory")]);
    for (const entry of result.rows) {
      expect(entry.cachedFraction).toBeGreaterThanOrEqual(0);
      expect(entry.cachedFraction).toBeLessThanOrEqual(1);
      expect(entry.inputCostPer1000Sessions).toBeGreaterThan(0);
    }
  });

  it("the first Anthropic call of another variant reads tools + static prefix (about 5.6k tokens) with the plan, the tools alone with one system breakpoint", () => {
    const { rows, blocks } = cost({ root: repoRoot, profile: small });
    for (const variant of ["deck-generation", "import"]) {
      expect(row(rows, "claude-sonnet-4-5", "plan's breakpoints, 5m", variant)?.coldVariantRead).toBe(blocks[variant]?.prefixEnd);
      expect(row(rows, "claude-sonnet-4-5", "one system breakpoint, 5m", variant)?.coldVariantRead).toBe(blocks[variant]?.toolsEnd);
    }
    expect(blocks["import"]?.prefixEnd).toBeGreaterThan(4500);
    expect(blocks["import"]?.prefixEnd).toBeLessThan(6000);
  });

  it("a variant that sends a namespace from the start shares only the tools' entry with the other variants, as its requests do", async () => {
    const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge"], join(await tempDir(), "project"));
    await writeFile(join(root, "prompts/variants.yaml"), "variants:\n  base:\n    preload: []\n  deck-generation:\n    preload: [deck-generation]\n  import:\n    preload: [import]\n    namespaces: [drive]\n");
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const { rows, blocks } = cost({ root, profile: small });
    expect(blocks["import"]?.toolsEnd).toBe(blocks["base"]?.toolsEnd);
    expect(blocks["import"]?.prefixEnd).toBeGreaterThan(blocks["base"]?.prefixEnd ?? Infinity);
    // Each variant's first call follows one of the next variant: import after base, deck-generation after import, base after deck-generation.
    const plan = (variant: string) => row(rows, "claude-sonnet-4-5", "plan's breakpoints, 5m", variant)?.coldVariantRead;
    expect(plan("import")).toBe(blocks["import"]?.toolsEnd);
    expect(plan("deck-generation")).toBe(blocks["deck-generation"]?.toolsEnd);
    expect(plan("base")).toBe(blocks["base"]?.prefixEnd);
    // Pi's own layout marks the last tool sent: import finds base's tools entry within the look-back, deck-generation none of import's.
    const one = (variant: string) => row(rows, "claude-sonnet-4-5", "one system breakpoint, 5m", variant)?.coldVariantRead;
    expect(one("import")).toBe(blocks["import"]?.toolsEnd);
    expect(one("deck-generation")).toBe(0);
    expect(one("base")).toBe(blocks["base"]?.toolsEnd);
    const openai = (variant: string) => row(rows, "gpt-5", "no key, in-memory", variant)?.coldVariantRead;
    expect(openai("import")).toBe(Math.floor((blocks["import"]?.toolsEnd ?? 0) / 128) * 128);
    expect(openai("base")).toBe(Math.floor((blocks["base"]?.prefixEnd ?? 0) / 128) * 128);
  });

  it("follows the documented rules: a 1h lifetime pays where sessions are rarer than every 5 minutes, a key keeps a session's calls together", () => {
    const rare = cost({ root: repoRoot, profile: { durationMinutes: 240, sessionsPerMinute: { base: 0.1 } } }).rows;
    const fiveMinutes = row(rare, "claude-sonnet-4-5", "plan's breakpoints, 5m", "base");
    const oneHour = row(rare, "claude-sonnet-4-5", "plan's breakpoints, 1h", "base");
    expect(oneHour?.cachedFraction).toBeGreaterThan(fiveMinutes?.cachedFraction ?? 1);
    const busy = cost({ root: repoRoot, profile: { durationMinutes: 10, sessionsPerMinute: 600 } }).rows;
    // One route for every session overflows past 15 requests a minute; per-session keys do not.
    expect(row(busy, "gpt-5", "per-session key, in-memory", "base")?.cachedFraction).toBeGreaterThan((row(busy, "gpt-5", "no key, in-memory", "base")?.cachedFraction ?? 1) + 0.2);
  });

  it("prints a variant the profile starts no session of with a dash and \"no sessions\", its JSON figures zero", () => {
    const result = cost({ root: repoRoot, profile: { durationMinutes: 5, sessionsPerMinute: { base: 10 } } });
    const idle = result.rows.filter((entry) => entry.variant !== "base");
    expect(idle.length).toBeGreaterThan(0);
    for (const entry of idle) expect(entry).toMatchObject({ sessions: 0, cachedFraction: 0, inputCostPer1000Sessions: 0 });
    const lines = formatCostTable(result).split("\n").filter((line) => / (base|deck-generation|import) +(—|\d)/.test(line) && /(one system|plan's|no key|per-session|sharded)/.test(line));
    expect(lines.length).toBe(result.rows.length);
    for (const line of lines) {
      if (/ base +\d/.test(line)) expect(line).toMatch(/ base +\d+\.\d% +\$\d+\.\d\d +\d+$/);
      else expect(line).toMatch(/ (deck-generation|import) +— +no sessions +\d+$/);
    }
  });

  it("works on any project's variant names and refuses a bad profile with the field named", async () => {
    const root = await copyProject("basic");
    await writeFile(join(root, "prompts/variants.yaml"), "variants:\n  base:\n    preload: []\n  outline-only:\n    preload: [outline-deck]\n");
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const result = cost({ root, profile: { durationMinutes: 5, sessionsPerMinute: { "outline-only": 3 } } });
    expect([...new Set(result.rows.map((entry) => entry.variant))]).toEqual(["base", "outline-only"]);
    expect(() => cost({ root, profile: { sessionsPerMinute: { import: 3 } } })).toThrow(ProfileError);
    expect(() => cost({ root, profile: { callsPerSession: -1 } })).toThrow(/Unexpected callsPerSession -1, expected a whole number from 1 to 200/);
    // A count of calls: a fraction would be priced as another profile.
    expect(() => cost({ root, profile: { callsPerSession: 1.5 } })).toThrow(/Unexpected callsPerSession 1.5, expected a whole number from 1 to 200/);
    expect(() => cost({ root, profile: { models: [{ provider: "openai", model: "gpt-0" }] } })).toThrow(/priced in data\/prompt-caching\.json/);
  });
});

describe("model families pi-ai 1.x knows", () => {
  it("prices GPT-5.6 cache writes and Claude 5.5's cheaper reads from the data file", () => {
    const data = loadPromptCachingData();
    expect(data.providers.openai.models["gpt-5.6-sol"]).toMatchObject({ cacheWritePerMTok: 5, extendedRetentionSeconds: 1800 });
    const profile = { durationMinutes: 5, sessionsPerMinute: 20 };
    const priced = (model: string, provider: "anthropic" | "openai") => cost({ root: repoRoot, profile: { ...profile, models: [{ provider, model }] } }).rows;
    // gpt-6-sol and gpt-5.6-terra share input and cached prices; the same traffic costs the same.
    const terra = row(priced("gpt-5.6-terra", "openai"), "gpt-5.6-terra", "per-session key, in-memory", "base");
    const sol6 = row(priced("gpt-6-sol", "openai"), "gpt-6-sol", "per-session key, in-memory", "base");
    expect(terra?.inputCostPer1000Sessions).toBeCloseTo(sol6?.inputCostPer1000Sessions ?? 0, 6);
    // Writes billed at 1.25x input: more than the same traffic priced as a pre-5.6 model with equal input and cached prices.
    const unbilledWrites = { ...data.providers.openai.models["gpt-5.6-terra"], cacheWritePerMTok: undefined };
    data.providers.openai.models["gpt-terra-without-write-price"] = unbilledWrites as never;
    try {
      const unbilled = row(priced("gpt-terra-without-write-price", "openai"), "gpt-terra-without-write-price", "per-session key, in-memory", "base");
      expect(terra?.inputCostPer1000Sessions).toBeGreaterThan(unbilled?.inputCostPer1000Sessions ?? Infinity);
    } finally {
      delete data.providers.openai.models["gpt-terra-without-write-price"];
    }
    // Sonnet 5.5 reads at 0.05x, Sonnet 5 at 0.1x, same input price: the same cached fraction costs less on 5.5.
    const sonnet55 = row(priced("claude-sonnet-5-5", "anthropic"), "claude-sonnet-5-5", "plan's breakpoints, 5m", "base");
    const sonnet5 = row(priced("claude-sonnet-5", "anthropic"), "claude-sonnet-5", "plan's breakpoints, 5m", "base");
    expect(sonnet55?.cachedFraction).toBeCloseTo(sonnet5?.cachedFraction ?? 0, 6);
    expect(sonnet55?.inputCostPer1000Sessions).toBeLessThan(sonnet5?.inputCostPer1000Sessions ?? 0);
  });
});

describe("invalidation cost", () => {
  it("prices an edit per affected variant: a tool change costs every variant its whole prompt, a tail change only that variant's tail", () => {
    const plan = loadArtifacts({ distDir: join(repoRoot, "dist") }).cachePlan;
    const edited = (mutate: (copy: CachePlan) => void): CachePlan => {
      const copy = structuredClone(plan);
      mutate(copy);
      return copy;
    };
    const tools = invalidationCost(plan, edited((copy) => Object.values(copy.variants).forEach(({ blocks }) => ((blocks[0] as { sha256: string }).sha256 = "0".repeat(64)))));
    expect(tools.map((entry) => [entry.variant, entry.tokens])).toEqual(Object.entries(plan.variants).map(([name, { blocks }]) => [name, blocks.at(-1)?.cumulativeTokens]));
    const tail = invalidationCost(plan, edited((copy) => ((copy.variants["import"]?.blocks[2] as { sha256: string }).sha256 = "1".repeat(64))));
    expect(tail).toHaveLength(1);
    expect(tail[0]?.variant).toBe("import");
    expect(tail[0]?.tokens).toBe(plan.variants["import"]?.blocks[2]?.tokens);
    const prices = loadPromptCachingData().providers.anthropic;
    expect(tail[0]?.dollarsPer1000Sessions["anthropic/claude-sonnet-4-5"]).toBeCloseTo(((tail[0]?.tokens ?? 0) * (prices.models["claude-sonnet-4-5"]?.inputPerMTok ?? 0) * (1.25 - 0.1)) / 1000, 6);
  });
});

describe("gamma-prompt cost (CLI)", () => {
  it("prints one JSON document with --format json, and exits 2 on a bad profile or a missing dist/", async () => {
    const dir = await tempDir();
    const profile = join(dir, "traffic.json");
    await writeFile(profile, JSON.stringify({ durationMinutes: 5, sessionsPerMinute: 30 }));
    const ok = await runCliInProcess("cost", "--profile", profile, "--format", "json");
    expect(ok.code).toBe(0);
    const document = JSON.parse(ok.stdout) as { rows: CostRow[]; dataReadOn: string };
    expect(document.dataReadOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(document.rows.length).toBeGreaterThan(0);
    await writeFile(profile, JSON.stringify({ secondsBetweenCalls: "soon" }));
    const bad = await runCliInProcess("cost", "--profile", profile);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`gamma-prompt cost: the traffic profile ${profile}: Unexpected secondsBetweenCalls "soon", expected a number from 0 to 86400\n`);
    await mkdir(join(dir, "empty"));
    const unbuilt = await runCliInProcess("cost", "--root", join(dir, "empty"));
    expect(unbuilt.code).toBe(2);
    expect(unbuilt.stderr).toContain("run `gamma-prompt build` first");
  });

  it("names every key a profile may hold, in --help and when the profile is not an object", async () => {
    const keys = ["durationMinutes", "sessionsPerMinute", "callsPerSession", "newTokensPerCall", "secondsBetweenCalls", "models", "namespaceUse", "callsBeforeLoad"];
    const help = await runCliInProcess("cost", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout.replace(/\s+/g, " ")).toContain(`traffic profile (JSON): ${keys.join(", ")}`);
    expect(() => cost({ root: repoRoot, profile: [] })).toThrow(`Unexpected traffic profile that is not an object, expected {${keys.join(", ")}}`);
    expect(() => cost({ root: repoRoot, profile: { namespaceuse: {} } })).toThrow(`Unexpected key "namespaceuse" in the traffic profile, expected one of ${keys.join(", ")}`);
  });
});

describe("a traffic profile too large to simulate", () => {
  it("is refused before anything is allocated, naming the fields, whichever way the rates are given", () => {
    const huge = { sessionsPerMinute: 1_000_000, durationMinutes: 1440, callsPerSession: 200 };
    expect(() => cost({ root: repoRoot, profile: huge })).toThrow(ProfileError);
    expect(() => cost({ root: repoRoot, profile: huge })).toThrow(
      "Unexpected traffic of 288,000,000,000 model calls (sessionsPerMinute × durationMinutes × callsPerSession), expected at most 10,000,000: lower durationMinutes or sessionsPerMinute (a shorter run prices the same per session)",
    );
    expect(() => cost({ root: repoRoot, profile: { sessionsPerMinute: { base: 600_000, import: 600_000 }, durationMinutes: 2, callsPerSession: 5 } })).toThrow(/12,000,000 model calls/);
    // Just past the limit: 11 calls per session for a minute of a million sessions.
    expect(() => cost({ root: repoRoot, profile: { sessionsPerMinute: 1_000_000, durationMinutes: 1, callsPerSession: 11 } })).toThrow(/11,000,000 model calls/);
  });

  it("exits 2 with one line in the CLI, never a stack trace", async () => {
    const dir = await tempDir();
    const profile = join(dir, "traffic.json");
    await writeFile(profile, JSON.stringify({ sessionsPerMinute: 1_000_000, durationMinutes: 1440, callsPerSession: 200 }));
    const run = await runCliInProcess("cost", "--profile", profile, "--format", "json");
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^gamma-prompt cost: the traffic profile .*: Unexpected traffic of 288,000,000,000 model calls \(sessionsPerMinute × durationMinutes × callsPerSession\)[^\n]*\n$/);
  });
});

describe("progress bar", () => {
  it("draws a fixed-width bar with the percentage, clamped", async () => {
    const { progressBar } = await import("../../src/cost/format.js");
    expect(progressBar(0, 10)).toBe("[..........]   0%");
    expect(progressBar(0.456, 10)).toBe("[#####.....]  46%");
    expect(progressBar(1, 10)).toBe("[##########] 100%");
    expect(progressBar(2, 10)).toBe("[##########] 100%");
  });
});
