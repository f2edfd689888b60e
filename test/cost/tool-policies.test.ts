import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { cost } from "../../src/cost/cost.js";
import { formatCostTable } from "../../src/cost/format.js";
import { ProfileError } from "../../src/cost/profile.js";
import { loadPromptCachingData, type PromptCachingData } from "../../src/cost/rules.js";
import { addsToolsInPlace, breakEvenTokens, loadCost, tokenPrices, upFrontCost, type SessionShape } from "../../src/cost/tool-policies.js";
import { copyProject, fixturesDir, projectWithOverlay, removeTempDirs, repoRoot } from "../build/helpers.js";

afterAll(removeTempDirs);
const tempRoots: string[] = [];
afterAll(() => {
  for (const root of tempRoots) rmSync(root, { recursive: true, force: true });
});

const shape: SessionShape = { calls: 9, newTokensPerCall: 600, callsBeforeLoad: 1 };

/** A temp project holding only a copy of the embedded default's dist/ (no eval cassettes). */
function projectWithDistOnly(): string {
  const root = mkdtempSync(join(tmpdir(), "gamma-cost-runs-"));
  tempRoots.push(root);
  cpSync(join(repoRoot, "dist"), join(root, "dist"), { recursive: true });
  return root;
}

/** A session of the profile cost resolved, its load after the first call. */
function shapeOf(result: { profile: { callsPerSession: number; newTokensPerCall: number } }): SessionShape {
  return { calls: result.profile.callsPerSession, newTokensPerCall: result.profile.newTokensPerCall, callsBeforeLoad: 1 };
}

/** A variant's block ends as cost reports them. */
function endsOf(result: { blocks: Record<string, { toolsEnd: number; prefixEnd: number; variantEnd: number }> }, variant: string) {
  return result.blocks[variant] ?? { toolsEnd: 0, prefixEnd: 0, variantEnd: 0 };
}
const sonnet = { provider: "anthropic" as const, model: "claude-sonnet-4-5" };
const small = { durationMinutes: 30, sessionsPerMinute: 20 };

describe("tool policy prices", () => {
  it("charges a load its extra call, the schemas written once and read by every later call (in place)", () => {
    const prices = { read: 1, write: 10 };
    // Prompt 1000, load after call 1: the load call reads 1600 and writes 600; the next call reads 2200 and writes T + 600; 7 more read T + 600 each.
    const tokens = 500;
    const base = upFrontCost(1000, 0, shape, prices);
    expect(upFrontCost(1000, tokens, shape, prices) - base).toBe(9 * tokens);
    expect(loadCost(1000, 300, { tokens, sharedWarm: false }, shape, prices, true)).toBe(1600 + 6000 + (2200 + (tokens + 600) * 10 - (1600 + 6000)) + 7 * (tokens + 600));
  });

  it("re-sent, reads only the tools on a cold tool list, or tools and system when other sessions keep it warm", () => {
    const prices = { read: 1, write: 10 };
    const load = (tokens: number, sharedWarm: boolean, inPlace: boolean) => loadCost(1000, 300, { tokens, sharedWarm }, shape, prices, inPlace);
    // Cold, the call after the load writes everything after the tools again.
    expect(load(500, false, false) - load(500, false, true)).toBe((1000 + 600 + 600 - 300) * (10 - 1));
    // Warm, a large namespace's schemas come from the shared entry instead of being written by this session; the session's history is written again.
    expect(load(5000, true, false)).toBeLessThan(load(5000, false, true));
    expect(load(5000, true, false) - load(5000, false, true)).toBe((600 + 600) * 10 - 5000 * 10 + (5000 - 1200) * 1);
  });

  it("computes the break-even where both policies cost the same, and never when nearly every session loads", () => {
    const prices = tokenPrices(loadPromptCachingData(), sonnet);
    const probability = 0.1;
    const tokens = breakEvenTokens(5000, 2000, probability, false, shape, prices, true) ?? Number.NaN;
    expect(tokens).toBeGreaterThan(0);
    const delta = (size: number) => upFrontCost(5000, size, shape, prices) - (upFrontCost(5000, 0, shape, prices) + probability * loadCost(5000, 2000, { tokens: size, sharedWarm: false }, shape, prices, true));
    expect(delta(tokens - 1)).toBeLessThan(0);
    expect(delta(tokens + 1)).toBeGreaterThan(0);
    expect(breakEvenTokens(5000, 2000, 0.95, false, shape, prices, true)).toBeUndefined();
  });

  it("prices one call's tokens from the data file: Anthropic's 0.1× reads and 1.25× writes, OpenAI's cached price and write price", () => {
    const data = loadPromptCachingData();
    const close = (prices: { read: number; write: number }, read: number, write: number) => {
      expect(prices.read).toBeCloseTo(read, 15);
      expect(prices.write).toBeCloseTo(write, 15);
    };
    close(tokenPrices(data, sonnet), 0.3e-6, 3.75e-6);
    close(tokenPrices(data, { provider: "openai", model: "gpt-5" }), 0.125e-6, 1.25e-6);
    close(tokenPrices(data, { provider: "openai", model: "gpt-5.6-sol" }), 0.4e-6, 5e-6);
    const feeOnWrites: PromptCachingData = { ...data, providers: { ...data.providers, openai: { ...data.providers.openai, rules: { ...data.providers.openai.rules, writeMultiplier: 0.25 } } } };
    close(tokenPrices(feeOnWrites, { provider: "openai", model: "gpt-5" }), 0.125e-6, 1.5625e-6);
  });

  it("sums a session's calls: each reads the prompt, the tools and the history so far, and writes its own new tokens", () => {
    // 9 × 1,000 + 600 × (0 + 1 + … + 8) read at 1, 9 × 600 written at 10.
    expect(upFrontCost(1000, 0, shape, { read: 1, write: 10 })).toBe(9000 + 600 * 36 + 54_000);
  });

  it("charges only the load's own call when the load comes after the session's last call", () => {
    const atEnd: SessionShape = { calls: 3, newTokensPerCall: 600, callsBeforeLoad: 3 };
    expect(loadCost(1000, 300, { tokens: 500, sharedWarm: false }, atEnd, { read: 1, write: 10 }, true)).toBe(1000 + 1800 + 6000);
  });

  it("has no break-even where deferring adds exactly as much per token as it saves", () => {
    // Up front: 4 calls read each token. On demand, half the sessions write it once and read it on 2 later calls: 0.5 × (6 + 2) = 4.
    const even: SessionShape = { calls: 4, newTokensPerCall: 600, callsBeforeLoad: 1 };
    expect(breakEvenTokens(1000, 300, 0.5, false, even, { read: 1, write: 6 }, true)).toBeUndefined();
    expect(breakEvenTokens(1000, 300, 0.49, false, even, { read: 1, write: 6 }, true)).toBeGreaterThan(0);
  });

  it("reads which models take tool additions in place from the data file", () => {
    const data = loadPromptCachingData();
    expect(addsToolsInPlace(data, sonnet)).toBe(false);
    const withInPlace: PromptCachingData = { ...data, providers: { ...data.providers, anthropic: { ...data.providers.anthropic, toolAdditionsInPlace: ["claude-sonnet-4-5"] } } };
    expect(addsToolsInPlace(withInPlace, sonnet)).toBe(true);
  });
});

describe("cost with tool namespaces", () => {
  it("counts recorded runs with eval's reader: a FIFO or a file of another format among the cassettes is no run and never blocks", () => {
    const expected = cost({ root: repoRoot, profile: small }).toolPolicies?.namespaces[0]?.probabilitySource;
    const root = projectWithDistOnly();
    cpSync(join(repoRoot, "evals"), join(root, "evals"), { recursive: true });
    const scenario = join(root, "evals", "cassettes", "topic-only-deck");
    execFileSync("mkfifo", [join(scenario, "98.json")]);
    writeFileSync(join(scenario, "99.json"), JSON.stringify({ calls: [{ reply: { content: [{ type: "toolCall", name: "drive_search", arguments: {} }] } }] }));
    expect(cost({ root, profile: small }).toolPolicies?.namespaces[0]?.probabilitySource).toBe(expected);
  });

  it("prices the embedded default's tool policies per model and variant, with the namespace's use from its recorded eval runs", () => {
    const result = cost({ root: repoRoot, profile: small });
    const report = result.toolPolicies;
    expect(report?.namespaces.map((namespace) => namespace.name)).toEqual(["drive"]);
    expect(report?.namespaces[0]?.probabilitySource).toMatch(/^recorded eval runs, \d+ of \d+$/);
    expect(report?.rows.map((row) => `${row.model} ${row.variant}`)).toEqual([
      "claude-sonnet-4-5 base",
      "claude-sonnet-4-5 deck-generation",
      "claude-sonnet-4-5 import",
      "gpt-5 base",
      "gpt-5 deck-generation",
      "gpt-5 import",
    ]);
    for (const row of report?.rows ?? []) {
      expect(row.deferred).toEqual(["drive"]);
      expect(row.inPlace).toBe(false);
    }
    const text = formatCostTable(result);
    expect(text).toContain("tool policies (steady state, input $/1k sessions); a load comes after 1 model call and adds one");
    expect(text).toMatch(/namespace drive: 4 tools, \d+ tokens, loaded in [\d.]+% of sessions \(recorded eval runs, \d+ of \d+\)/);
  });

  it("takes the probability of use from the profile, and the cost of deferring grows with it", () => {
    const rarely = cost({ root: repoRoot, profile: { ...small, namespaceUse: { drive: 0.05 } } }).toolPolicies;
    const often = cost({ root: repoRoot, profile: { ...small, namespaceUse: { drive: 0.9 }, callsBeforeLoad: 2 } }).toolPolicies;
    expect(rarely?.namespaces[0]).toMatchObject({ probability: 0.05, probabilitySource: "profile" });
    expect(often?.callsBeforeLoad).toBe(2);
    const base = (report: typeof rarely) => report?.rows.find((row) => row.model === "claude-sonnet-4-5" && row.variant === "base");
    // Rare use: deferring is cheaper; use in 90% of sessions: loading everything from the start is.
    expect(base(rarely)?.onDemandResent).toBeLessThan(base(rarely)?.upFront ?? 0);
    expect(base(often)?.onDemandInPlace).toBeGreaterThan(base(often)?.upFront ?? 0);
    expect(() => cost({ root: repoRoot, profile: { namespaceUse: { drive: 2 } } })).toThrow(ProfileError);
    expect(() => cost({ root: repoRoot, profile: { namespaceUse: { drive: 2 } } })).toThrow("Unexpected namespaceUse.drive 2, expected a probability from 0 to 1");
  });

  it("refuses a namespace the build does not have in namespaceUse, naming the ones it has, as for an unknown variant", async () => {
    expect(() => cost({ root: repoRoot, profile: { ...small, namespaceUse: { drvie: 0.5 } } })).toThrow(ProfileError);
    expect(() => cost({ root: repoRoot, profile: { ...small, namespaceUse: { drvie: 0.5 } } })).toThrow(
      'Unexpected namespace "drvie" in namespaceUse, expected one of the manifest\'s namespaces: drive; did you mean "drive"?',
    );
    expect(() => cost({ root: repoRoot, profile: { ...small, namespaceUse: { drive: 0.5, ledger: 0.1 } } })).toThrow('Unexpected namespace "ledger" in namespaceUse, expected one of the manifest\'s namespaces: drive');
    const root = await copyProject("basic");
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    expect(() => cost({ root, profile: { ...small, namespaceUse: { drive: 0.5 } } })).toThrow('Unexpected namespace "drive" in namespaceUse, expected none: the manifest has no tool namespaces');
    expect(cost({ root, profile: { ...small, namespaceUse: {} } }).rows.length).toBeGreaterThan(0);
  });

  it("counts a namespace's tools in words that agree with the number", () => {
    const result = cost({ root: repoRoot, profile: small });
    const report = result.toolPolicies;
    if (report === undefined) throw new Error("expected tool policies");
    const one = { ...report, namespaces: report.namespaces.map((namespace) => ({ ...namespace, tools: 1 })) };
    const text = formatCostTable({ ...result, toolPolicies: one });
    expect(text).toMatch(/namespace drive: 1 tool, \d+ tokens, loaded in/);
    expect(formatCostTable(result)).toMatch(/namespace drive: 4 tools, \d+ tokens, loaded in/);
  });

  it("adds nothing for a project without namespaces", async () => {
    const root = await copyProject("basic");
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const result = cost({ root, profile: small });
    expect(result).not.toHaveProperty("toolPolicies");
    expect(formatCostTable(result)).not.toContain("tool policies");
  });

  // Not under mutation testing (npm run mutate sets GAMMA_MUTATION_MODULE): the instrumented code runs some 40 times
  // slower, so the time means nothing there, and every mutant of the simulator would repeat this 100,000-session run.
  // Its CPU time (target under 2 s) is measured by `npm run bench -- cost`, not here: a timing depends on the machine's load.
  it("prices 100,000 sessions an hour with the tool policies", () => {
    const result = cost({ root: repoRoot });
    expect(result.toolPolicies?.rows.length).toBe(6);
  });
});

describe("cost's tool policy figures, composed from the priced parts", () => {
  const data = loadPromptCachingData();
  // A load's re-sent tool list stays warm when, on average, one session loading it comes within the lifetime (300 s for both
  // providers): rate × probability × 5 ≥ 1. The first profile puts base exactly on that line (0.4 × 0.5 × 5), deck-generation
  // above it and import below; the second leaves the busiest variant's break-even cold at 10% use and warm from 25%.
  const profiles = [
    { durationMinutes: 30, sessionsPerMinute: { base: 0.4, "deck-generation": 2, import: 0.1 }, namespaceUse: { drive: 0.5 } },
    { durationMinutes: 30, sessionsPerMinute: { base: 0.1, "deck-generation": 1, import: 0.02 }, namespaceUse: { drive: 0.1 } },
  ];

  it.each(profiles.map((profile, index) => [index + 1, profile] as const))("prices each model and variant from the plan's block ends, the namespace's probability and whether its loads stay warm (profile %i)", (_index, profile) => {
    const result = cost({ root: repoRoot, profile });
    const probability = profile.namespaceUse.drive;
    const report = result.toolPolicies;
    const drive = JSON.parse(readFileSync(join(repoRoot, "dist/manifest.json"), "utf8")).namespaces.drive as { tokens: number; tools: string[] };
    expect(report?.namespaces).toEqual([{ name: "drive", tools: drive.tools.length, tokens: drive.tokens, probability, probabilitySource: "profile" }]);
    expect(report?.callsBeforeLoad).toBe(1);
    const shape = shapeOf(result);
    const expectedRows = result.profile.models.flatMap((model) => {
      const prices = tokenPrices(data, model);
      const inPlace = addsToolsInPlace(data, model);
      const lifetime = model.provider === "anthropic" ? 300 : data.providers.openai.rules.idleExpirySeconds;
      return ["base", "deck-generation", "import"].map((variant) => {
        const ends = endsOf(result, variant);
        // A load's re-sent tool list stays warm when at least one session loading it comes within the lifetime.
        const sharedWarm = profile.sessionsPerMinute[variant as keyof typeof profile.sessionsPerMinute] * probability * (lifetime / 60) >= 1;
        const base = upFrontCost(ends.variantEnd, 0, shape, prices);
        const onDemand = (inPlaceLoad: boolean) => (base + probability * loadCost(ends.variantEnd, ends.toolsEnd, { tokens: drive.tokens, sharedWarm }, shape, prices, inPlaceLoad)) * 1000;
        return { provider: model.provider, model: model.model, variant, deferred: ["drive"], inPlace, upFront: upFrontCost(ends.variantEnd, drive.tokens, shape, prices) * 1000, onDemandInPlace: onDemand(true), onDemandResent: onDemand(false) };
      });
    });
    expect(report?.rows).toEqual(expectedRows);
  });

  it.each(profiles.map((profile, index) => [index + 1, profile] as const))("gives the break-even for the busiest variant at the namespace's probability, then at 10%, 25%, 50% and 90% (profile %i)", (_index, profile) => {
    const result = cost({ root: repoRoot, profile });
    const busiestRate = profile.sessionsPerMinute["deck-generation"];
    const shape = shapeOf(result);
    const ends = endsOf(result, "deck-generation");
    const expected = result.profile.models.flatMap((model) => {
      const prices = tokenPrices(data, model);
      const lifetime = model.provider === "anthropic" ? 300 : data.providers.openai.rules.idleExpirySeconds;
      return [{ probability: profile.namespaceUse.drive, namespace: "drive" }, { probability: 0.1 }, { probability: 0.25 }, { probability: 0.5 }, { probability: 0.9 }].map((point) => {
        const warm = busiestRate * point.probability * (lifetime / 60) >= 1;
        const inPlaceTokens = breakEvenTokens(ends.variantEnd, ends.toolsEnd, point.probability, warm, shape, prices, true);
        const resentTokens = breakEvenTokens(ends.variantEnd, ends.toolsEnd, point.probability, warm, shape, prices, false);
        return { provider: model.provider, model: model.model, variant: "deck-generation", ...point, ...(inPlaceTokens === undefined ? {} : { inPlaceTokens }), ...(resentTokens === undefined ? {} : { resentTokens }) };
      });
    });
    expect(result.toolPolicies?.breakEven).toEqual(expected);
    // At 90% use deferring never pays in place; at 10% it does from some size on.
    expect(expected.find((point) => point.probability === 0.9 && point.model === "claude-sonnet-4-5")).not.toHaveProperty("inPlaceTokens");
    expect(expected.find((point) => point.probability === 0.1 && point.model === "claude-sonnet-4-5")?.inPlaceTokens).toBeGreaterThan(0);
  });

  it("loads before the last call at most: callsBeforeLoad is capped at the session's calls", () => {
    const result = cost({ root: repoRoot, profile: { ...profiles[0], callsPerSession: 3, callsBeforeLoad: 5 } });
    expect(result.toolPolicies?.callsBeforeLoad).toBe(3);
  });

  it("defers only the namespaces a variant does not send from session start", async () => {
    const root = await projectWithOverlay(join(fixturesDir, "namespaces"));
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const result = cost({ root, profile: { durationMinutes: 10, sessionsPerMinute: 1, namespaceUse: { crm: 0.5 } } });
    const shape = shapeOf(result);
    for (const row of result.toolPolicies?.rows ?? []) {
      const ends = endsOf(result, row.variant);
      expect(row.deferred, row.variant).toEqual(row.variant === "import" ? [] : ["crm"]);
      if (row.variant !== "import") continue;
      // Nothing deferred: all three policies are the session without any load.
      const plain = upFrontCost(ends.variantEnd, 0, shape, tokenPrices(data, row)) * 1000;
      expect([row.upFront, row.onDemandInPlace, row.onDemandResent]).toEqual([plain, plain, plain]);
    }
  });

  it("counts a recorded run as using a namespace when it calls one of its tools or loads it by name", () => {
    const root = projectWithDistOnly();
    const template = JSON.parse(readFileSync(join(repoRoot, "evals/cassettes/drive-import/1.json"), "utf8")) as { calls: Array<{ reply: { content: unknown[] } }> };
    const run = (...calls: Array<[string, Record<string, unknown>]>) => ({
      ...template,
      calls: [{ ...template.calls[0], reply: { ...template.calls[0]?.reply, content: calls.map(([name, args], index) => ({ type: "toolCall", id: `call_${index}`, name, arguments: args })) } }],
    });
    // Two runs use drive; loads of another namespace and other tools given the name "drive" are not uses of it.
    const runs = {
      "a/1.json": run(["drive_search", { query: "q" }]),
      "a/2.json": run(["load_tool_namespace", { name: "drive" }]),
      "a/3.json": run(["load_tool_namespace", { name: "crm" }]),
      "a/4.json": run(["load_tool_namespace", { name: "crm" }]),
      "b/1.json": run(["skill", { name: "drive" }]),
      "b/2.json": run(),
      "b/3.json": run(["skill", { name: "drive" }]),
    };
    for (const [file, cassette] of Object.entries(runs)) {
      mkdirSync(join(root, "evals/cassettes", dirname(file)), { recursive: true });
      writeFileSync(join(root, "evals/cassettes", file), JSON.stringify(cassette));
    }
    writeFileSync(join(root, "evals/cassettes/b/notes.txt"), "not a run");
    // A run kept under another name is no run, as for eval.
    writeFileSync(join(root, "evals/cassettes/b/3.json.old"), JSON.stringify(run(["drive_search", { query: "q" }])));
    writeFileSync(join(root, "evals/cassettes/c.json"), "a file where a scenario folder belongs");
    expect(cost({ root, profile: small }).toolPolicies?.namespaces[0]).toMatchObject({ probability: 2 / 7, probabilitySource: "recorded eval runs, 2 of 7" });
  });

  it("assumes a quarter of sessions load a namespace when neither the profile nor recorded runs say", () => {
    const root = projectWithDistOnly();
    expect(cost({ root, profile: small }).toolPolicies?.namespaces[0]).toMatchObject({ probability: 0.25, probabilitySource: "assumed" });
  });
});
