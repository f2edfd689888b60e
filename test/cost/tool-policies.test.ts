import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { cost } from "../../src/cost/cost.js";
import { formatCostTable } from "../../src/cost/format.js";
import { ProfileError } from "../../src/cost/profile.js";
import { loadPromptCachingData, type PromptCachingData } from "../../src/cost/rules.js";
import { addsToolsInPlace, breakEvenTokens, loadCost, tokenPrices, upFrontCost, type SessionShape } from "../../src/cost/tool-policies.js";
import { copyProject, removeTempDirs, repoRoot } from "../build/helpers.js";

afterAll(removeTempDirs);
const tempRoots: string[] = [];
afterAll(() => {
  for (const root of tempRoots) rmSync(root, { recursive: true, force: true });
});

const shape: SessionShape = { calls: 9, newTokensPerCall: 600, callsBeforeLoad: 1 };
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
    const root = mkdtempSync(join(tmpdir(), "gamma-cost-runs-"));
    tempRoots.push(root);
    cpSync(join(repoRoot, "dist"), join(root, "dist"), { recursive: true });
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

  it("adds nothing for a project without namespaces", async () => {
    const root = await copyProject("basic");
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const result = cost({ root, profile: small });
    expect(result).not.toHaveProperty("toolPolicies");
    expect(formatCostTable(result)).not.toContain("tool policies");
  });

  it("prices 100,000 sessions an hour with the tool policies in under 2 s of CPU", () => {
    const started = process.cpuUsage();
    const result = cost({ root: repoRoot });
    const used = process.cpuUsage(started);
    expect(result.toolPolicies?.rows.length).toBe(6);
    expect((used.user + used.system) / 1000).toBeLessThan(2000);
  });
});
