/**
 * The results of an evaluation: one JSON document for machines (a public
 * contract, `--format json` and `--output`), a summary table for people,
 * and the comparison with a baseline document.
 */
import type { ExpectationKind } from "./scenario.js";
import { compareRates, rate, type Rate } from "./stats.js";

export const RESULTS_FORMAT = "gamma-prompt/eval-results@1";

export type EvalMode = "live" | "record" | "replay";

export interface ExpectationResult extends Rate {
  id: string;
  kind: ExpectationKind;
}

export interface RunResult {
  run: number;
  passed: boolean;
  modelCalls: number;
  /** Expectation ids that failed, with why. */
  failures: Array<{ expectation: string; reason: string }>;
  /** Why the run could not finish (then every expectation failed). */
  error?: string;
  /** Host tool calls no fixture answered. */
  unfixtured?: number;
  /** The cassette recorded or replayed, relative to the working folder. */
  cassette?: string;
}

export interface ScenarioResult extends Rate {
  name: string;
  file: string;
  variant: string;
  /** The scenario's pass rate reaches the threshold. */
  pass: boolean;
  expectations: ExpectationResult[];
  runResults: RunResult[];
}

export interface RateChange {
  scenario: string;
  /** Absent for the scenario's own pass rate. */
  expectation?: string;
  baseline: Rate;
  current: Rate;
}

export interface BaselineComparison {
  model: string;
  cacheKey: string;
  /** Lower pass rates whose 95% intervals do not overlap the baseline's. */
  regressions: RateChange[];
  improvements: RateChange[];
  /** Scenarios of the baseline this evaluation did not run. */
  missing: string[];
}

export interface EvalResults {
  format: typeof RESULTS_FORMAT;
  /** `provider/id` of the model (for a replay, the one the cassettes recorded). */
  model: string;
  mode: EvalMode;
  /** The static prefix's cache key of the dist/ evaluated: two builds with the same key sent the same prefix. */
  cacheKey: string;
  /** Runs per scenario requested. */
  runs: number;
  confidence: { method: "wilson"; level: 0.95 };
  /** A scenario passes when its pass rate is at least this. */
  threshold: number;
  /** Every scenario passed and no regression against the baseline. */
  passed: boolean;
  scenarios: ScenarioResult[];
  baseline?: BaselineComparison;
}

/** Aggregates the runs of one scenario. */
export function scenarioResult(input: { name: string; file: string; variant: string; expectationIds: Array<{ id: string; kind: ExpectationKind }>; runs: RunResult[]; threshold: number }): ScenarioResult {
  const passedRuns = input.runs.filter((run) => run.passed).length;
  const overall = rate(passedRuns, input.runs.length);
  const expectations = input.expectationIds.map(({ id, kind }) => ({
    id,
    kind,
    ...rate(input.runs.filter((run) => !run.failures.some((failure) => failure.expectation === id)).length, input.runs.length),
  }));
  return { name: input.name, file: input.file, variant: input.variant, ...overall, pass: input.runs.length > 0 && overall.rate >= input.threshold, expectations, runResults: input.runs };
}

/** Regressions and improvements beyond noise, per scenario and per expectation present in both documents. */
export function compareWithBaseline(baseline: EvalResults, scenarios: readonly ScenarioResult[]): BaselineComparison {
  const regressions: RateChange[] = [];
  const improvements: RateChange[] = [];
  const judge = (change: RateChange) => {
    const verdict = compareRates(change.baseline, change.current);
    if (verdict === "regression") regressions.push(change);
    else if (verdict === "improvement") improvements.push(change);
  };
  for (const current of scenarios) {
    const before = baseline.scenarios.find((scenario) => scenario.name === current.name);
    if (before === undefined) continue;
    judge({ scenario: current.name, baseline: pickRate(before), current: pickRate(current) });
    for (const expectation of current.expectations) {
      const earlier = before.expectations.find((entry) => entry.id === expectation.id);
      if (earlier !== undefined) judge({ scenario: current.name, expectation: expectation.id, baseline: pickRate(earlier), current: pickRate(expectation) });
    }
  }
  const missing = baseline.scenarios.map((scenario) => scenario.name).filter((name) => !scenarios.some((scenario) => scenario.name === name));
  return { model: baseline.model, cacheKey: baseline.cacheKey, regressions, improvements, missing };
}

function pickRate(value: Rate): Rate {
  return { passed: value.passed, runs: value.runs, rate: value.rate, interval: [value.interval[0], value.interval[1]] };
}

/** Checks that a parsed document is a results document this version reads; returns the problem otherwise. */
export function resultsProblem(value: unknown): string | undefined {
  const results = value as Partial<EvalResults> | null;
  if (typeof results !== "object" || results === null || results.format !== RESULTS_FORMAT) return `expected "format": "${RESULTS_FORMAT}"`;
  if (typeof results.model !== "string" || typeof results.cacheKey !== "string" || !Array.isArray(results.scenarios)) return "expected model, cacheKey and scenarios";
  for (const scenario of results.scenarios as unknown[]) {
    const entry = scenario as Partial<ScenarioResult> | null;
    if (typeof entry?.name !== "string" || !isRate(entry) || !Array.isArray(entry.expectations) || !entry.expectations.every((expectation) => typeof expectation?.id === "string" && isRate(expectation))) {
      return "expected every scenario to have a name, passed, runs, rate, interval and expectations";
    }
  }
  return undefined;
}

function isRate(value: Partial<Rate>): boolean {
  return typeof value.passed === "number" && typeof value.runs === "number" && typeof value.rate === "number" && Array.isArray(value.interval) && value.interval.length === 2;
}

// ---- the summary table ----------------------------------------------------------

const percent = (value: number): string => `${Math.round(value * 100)}%`;
const interval = (value: Rate): string => `${percent(value.interval[0])}–${percent(value.interval[1])}`;

/**
 * The human summary: a header naming the model, dist/ and mode, one row per
 * scenario and one indented row per expectation, then failures, baseline
 * changes and the verdict.
 */
export function formatSummary(results: EvalResults): string {
  const rows: string[][] = [["scenario / expectation", "passed", "rate", "95% CI (Wilson)", ""]];
  for (const scenario of results.scenarios) {
    rows.push([scenario.name, `${scenario.passed}/${scenario.runs}`, percent(scenario.rate), interval(scenario), scenario.pass ? "pass" : "FAIL"]);
    for (const expectation of scenario.expectations) rows.push([`  ${expectation.id}`, `${expectation.passed}/${expectation.runs}`, percent(expectation.rate), interval(expectation), ""]);
  }
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  const table = rows.map((row) =>
    row
      .map((cell, column) => (column === 1 || column === 2 ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
  const lines = [`model ${results.model} · dist ${results.cacheKey.slice(0, 12)} · ${results.mode} · ${results.runs} run${results.runs === 1 ? "" : "s"} per scenario`, "", ...table];
  const failures = results.scenarios.flatMap((scenario) =>
    scenario.runResults.flatMap((run) => (run.error !== undefined ? [`  ${scenario.name} run ${run.run}: ${run.error}`] : run.failures.map((failure) => `  ${scenario.name} run ${run.run} ${failure.expectation}: ${failure.reason}`))),
  );
  if (failures.length > 0) lines.push("", "failures:", ...failures);
  if (results.baseline !== undefined) {
    const { baseline } = results;
    const change = (entry: RateChange) => `  ${entry.scenario}${entry.expectation === undefined ? "" : ` ${entry.expectation}`}: ${percent(entry.baseline.rate)} (${interval(entry.baseline)}) → ${percent(entry.current.rate)} (${interval(entry.current)})`;
    lines.push("", `baseline: model ${baseline.model} · dist ${baseline.cacheKey.slice(0, 12)}`);
    lines.push(baseline.regressions.length === 0 ? "  no regression beyond noise (95% intervals overlap)" : "regressions (95% intervals do not overlap):");
    lines.push(...baseline.regressions.map(change));
    if (baseline.improvements.length > 0) lines.push("improvements:", ...baseline.improvements.map(change));
    if (baseline.missing.length > 0) lines.push(`  not run here: ${baseline.missing.join(", ")}`);
  }
  const failing = results.scenarios.filter((scenario) => !scenario.pass).length;
  const regressed = results.baseline?.regressions.length ?? 0;
  lines.push(
    "",
    results.passed
      ? `${results.scenarios.length} scenario${results.scenarios.length === 1 ? "" : "s"} passed (threshold ${percent(results.threshold)})`
      : `${failing} of ${results.scenarios.length} scenarios below the threshold of ${percent(results.threshold)}${regressed > 0 ? `, ${regressed} regression${regressed === 1 ? "" : "s"}` : ""}`,
  );
  return `${lines.join("\n")}\n`;
}
