import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareWithBaseline, formatSummary, RESULTS_FORMAT, resultsProblem, scenarioResult, type EvalResults, type RunResult } from "../../src/evals/results.js";
import { compareRates, rate, wilsonInterval, type Rate } from "../../src/evals/stats.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { readGolden } from "../helpers/golden.js";
import { evalProject, repoRoot } from "./helpers/project.js";

/** A results document built from pass counts: {scenario: [passed, runs, {expectation: passed}]}. */
function constructed(counts: Record<string, [number, number, Record<string, number>]>, model = "openai/gpt-5"): EvalResults {
  const scenarios = Object.entries(counts).map(([name, [passed, runs, expectations]]) => {
    const runResults: RunResult[] = Array.from({ length: runs }, (_, index) => ({
      run: index + 1,
      passed: index < passed,
      modelCalls: 5,
      failures: Object.entries(expectations).flatMap(([id, ok]) => (index < ok ? [] : [{ expectation: id, reason: "constructed" }])),
    }));
    return scenarioResult({ name, file: `evals/${name}.yaml`, variant: "base", expectationIds: Object.keys(expectations).map((id) => ({ id, kind: "auditPasses" as const })), runs: runResults, threshold: 0.8 });
  });
  return { format: RESULTS_FORMAT, model, mode: "live", cacheKey: "c".repeat(64), runs: 20, confidence: { method: "wilson", level: 0.95 }, threshold: 0.8, passed: true, scenarios };
}

describe("pass rates with 95% Wilson score intervals", () => {
  it("matches the Wilson interval's published values", () => {
    expect(wilsonInterval(5, 10)).toEqual([0.236593, 0.763407]);
    expect(wilsonInterval(0, 10)).toEqual([0, 0.277533]);
    expect(wilsonInterval(10, 10)).toEqual([0.722467, 1]);
    expect(wilsonInterval(3, 3)).toEqual([0.438503, 1]);
    expect(wilsonInterval(0, 0)).toEqual([0, 1]);
    expect(rate(9, 10)).toEqual({ passed: 9, runs: 10, rate: 0.9, interval: [0.59585, 0.982124] });
    expect(rate(0, 0)).toEqual({ passed: 0, runs: 0, rate: 0, interval: [0, 1] });
  });

  it("flags a regression only when the intervals do not overlap", () => {
    expect(compareRates(rate(20, 20), rate(10, 20))).toBe("regression");
    expect(compareRates(rate(20, 20), rate(16, 20))).toBe("same");
    expect(compareRates(rate(3, 3), rate(0, 3))).toBe("same");
    expect(compareRates(rate(2, 20), rate(19, 20))).toBe("improvement");
    // Intervals that only touch overlap: no change beyond noise either way.
    const touching = (low: number, high: number): Rate => ({ passed: 0, runs: 0, rate: (low + high) / 2, interval: [low, high] });
    expect(compareRates(touching(0.5, 0.9), touching(0.1, 0.5))).toBe("same");
    expect(compareRates(touching(0.1, 0.5), touching(0.5, 0.9))).toBe("same");
    expect(compareRates(touching(0.5, 0.9), touching(0.1, 0.499999))).toBe("regression");
    expect(compareRates(touching(0.1, 0.5), touching(0.500001, 0.9))).toBe("improvement");
  });

  it("compares per scenario and per expectation with a baseline, and names what the baseline ran that this did not", () => {
    const baseline = constructed({ deck: [20, 20, { audit: 20, steps: 19 }], edit: [18, 20, { audit: 18 }], gone: [5, 5, {}] });
    const current = constructed({ deck: [9, 20, { audit: 20, steps: 9 }], edit: [15, 20, { audit: 15 }] }, "anthropic/claude-sonnet-4-5");
    const comparison = compareWithBaseline(baseline, current.scenarios);
    expect(comparison.regressions.map((change) => [change.scenario, change.expectation ?? "(scenario)", change.baseline.rate, change.current.rate])).toEqual([
      ["deck", "(scenario)", 1, 0.45],
      ["deck", "steps", 0.95, 0.45],
    ]);
    expect(comparison.improvements).toEqual([]);
    expect(comparison.missing).toEqual(["gone"]);
  });

  it("says how many runs each scenario had when a replay found fewer cassettes for some than for others", () => {
    const uneven = { ...constructed({ deck: [2, 2, {}], edit: [3, 3, {}] }), mode: "replay" as const, runs: 3 };
    expect(formatSummary(uneven).split("\n")[0]).toBe("model openai/gpt-5 · dist cccccccccccc · replay · 2–3 runs per scenario");
    const even = { ...constructed({ deck: [3, 3, {}], edit: [3, 3, {}] }), mode: "replay" as const, runs: 3 };
    expect(formatSummary(even).split("\n")[0]).toBe("model openai/gpt-5 · dist cccccccccccc · replay · 3 runs per scenario");
  });

  it("prints the summary with baseline changes", () => {
    const current = constructed({ deck: [9, 20, { audit: 20, steps: 9 }] });
    const results = { ...current, passed: false, baseline: compareWithBaseline(constructed({ deck: [20, 20, { audit: 20, steps: 19 }] }), current.scenarios) };
    expect(formatSummary(results)).toBe(`model openai/gpt-5 · dist cccccccccccc · live · 20 runs per scenario

scenario / expectation  passed  rate  95% CI (Wilson)
deck                      9/20   45%  26%–66%          FAIL
  audit                  20/20  100%  84%–100%
  steps                   9/20   45%  26%–66%

failures:
  deck run 10 steps: constructed
  deck run 11 steps: constructed
  deck run 12 steps: constructed
  deck run 13 steps: constructed
  deck run 14 steps: constructed
  deck run 15 steps: constructed
  deck run 16 steps: constructed
  deck run 17 steps: constructed
  deck run 18 steps: constructed
  deck run 19 steps: constructed
  deck run 20 steps: constructed

baseline: model openai/gpt-5 · dist cccccccccccc
regressions (95% intervals do not overlap):
  deck: 100% (84%–100%) → 45% (26%–66%)
  deck steps: 95% (76%–99%) → 45% (26%–66%)

1 of 1 scenarios below the threshold of 80%, 2 regressions
`);
  });
});

describe("the JSON results document (a public contract)", () => {
  it("is exactly this for a replay of the blocking-question scenario (cache key aside)", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    const { code, stdout } = await runCliInProcessFrom(root, "eval", "--replay", "--runs", "2", "--format", "json", "--output", "results.json");
    expect(code).toBe(0);
    expect(readFileSync(join(root, "results.json"), "utf8")).toBe(stdout);
    const document = JSON.parse(stdout) as EvalResults;
    expect(resultsProblem(document)).toBeUndefined();
    const golden = join(repoRoot, "test/fixtures/eval-results/blocking-question.json");
    const normalised = `${JSON.stringify({ ...document, cacheKey: "<cache key of dist/>" }, null, 2)}\n`;
    expect(normalised).toBe(readGolden(golden, normalised));
  });

  it("feeds --baseline: exit 1 and the regression named when the current rate falls beyond noise", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    const strong = constructed({ "blocking-question": [20, 20, { "asks-blocking-question": 20 }] });
    writeFileSync(join(root, "baseline.json"), JSON.stringify(strong));
    // Three passing replays do not beat 20/20 beyond noise: the intervals overlap.
    const same = await runCliInProcessFrom(root, "eval", "--replay", "--baseline", "baseline.json");
    expect(same.code).toBe(0);
    expect(same.stdout).toContain("no regression beyond noise (95% intervals overlap)");
    writeFileSync(join(root, "evals/blocking-question.yaml"), readFileSync(join(root, "evals/blocking-question.yaml"), "utf8").replace("asksQuestion: true", "asksQuestion: false"));
    const failing = await runCliInProcessFrom(root, "eval", "--replay", "--baseline", "baseline.json");
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain("regressions (95% intervals do not overlap):\n  blocking-question: 100% (84%–100%) → 0% (0%–56%)\n  blocking-question asks-blocking-question: 100% (84%–100%) → 0% (0%–56%)\n");
  });

  it("refuses a baseline that is not a results document, with exit 2 before any run", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    writeFileSync(join(root, "baseline.json"), JSON.stringify({ format: "something-else" }));
    const { code, stderr, stdout } = await runCliInProcessFrom(root, "eval", "--replay", "--baseline", "baseline.json");
    expect([code, stdout]).toEqual([2, ""]);
    expect(stderr).toBe(`gamma-prompt eval: Unexpected baseline baseline.json: expected "format": "${RESULTS_FORMAT}"\n`);
  });
});
