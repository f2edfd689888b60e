/**
 * The results of an evaluation: one JSON document for machines (a public
 * contract, `--format json` and `--output`), a summary table for people,
 * and the comparison with a baseline document.
 */
import type { ExpectationKind } from "./scenario.js";
import { compareRates, rate, type Rate } from "./stats.js";
import { OPTION_NAMES, type OptionNames, type OptionSpelling } from "./option-names.js";
import { expectOneOf, shownValue } from "../protocol/arguments.js";

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
  /** Why the run could not finish (then every expectation failed), or why it was not evaluated (`stale`). */
  error?: string;
  /**
   * The run was not evaluated: its cassette no longer matches the context the
   * run made (or records a failed model call). Counted in no pass rate; it
   * fails the evaluation whatever the threshold.
   */
  stale?: true;
  /**
   * The run was not evaluated: a model call got no reply (a provider error, a
   * refused connection, an aborted call), so nothing was measured on it.
   * Counted in no pass rate; it fails the evaluation whatever the threshold.
   */
  unanswered?: true;
  /** Host tool calls no fixture answered. */
  unfixtured?: number;
  /** The cassette recorded or replayed, relative to the working folder. */
  cassette?: string;
}

/** A scenario's pass rate counts the runs evaluated (`runs`); stale and unanswered runs are counted apart and make it fail. */
export interface ScenarioResult extends Rate {
  name: string;
  file: string;
  variant: string;
  /** Every run was evaluated and the pass rate reaches the threshold. */
  pass: boolean;
  /** Runs not evaluated because their cassette is stale (absent when none). */
  stale?: number;
  /** Runs not evaluated because a model call got no reply (absent when none). */
  unanswered?: number;
  /** Why a recording kept this scenario's earlier cassettes (a model call failed); absent when it was recorded. */
  notRecorded?: string;
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
  /** Every scenario passed, every run was evaluated (and recorded, with --record), and no regression against the baseline. */
  passed: boolean;
  /** Runs not evaluated because their cassette is stale, over every scenario (absent when none). */
  stale?: number;
  /** Runs not evaluated because a model call got no reply, over every scenario (absent when none). */
  unanswered?: number;
  scenarios: ScenarioResult[];
  baseline?: BaselineComparison;
}

/** Aggregates the runs of one scenario: rates over the runs evaluated, a stale or unanswered run counted apart (nothing was measured). */
export function scenarioResult(input: { name: string; file: string; variant: string; expectationIds: Array<{ id: string; kind: ExpectationKind }>; runs: RunResult[]; threshold: number; notRecorded?: string }): ScenarioResult {
  const evaluated = input.runs.filter((run) => run.stale !== true && run.unanswered !== true);
  const stale = input.runs.filter((run) => run.stale === true).length;
  const unanswered = input.runs.filter((run) => run.unanswered === true).length;
  const overall = rate(evaluated.filter((run) => run.passed).length, evaluated.length);
  const expectations = input.expectationIds.map(({ id, kind }) => ({
    id,
    kind,
    ...rate(evaluated.filter((run) => !run.failures.some((failure) => failure.expectation === id)).length, evaluated.length),
  }));
  return {
    name: input.name,
    file: input.file,
    variant: input.variant,
    ...overall,
    pass: evaluated.length > 0 && stale === 0 && unanswered === 0 && input.notRecorded === undefined && overall.rate >= input.threshold,
    ...(stale === 0 ? {} : { stale }),
    ...(unanswered === 0 ? {} : { unanswered }),
    ...(input.notRecorded === undefined ? {} : { notRecorded: input.notRecorded }),
    expectations,
    runResults: input.runs,
  };
}

/** Stale runs over every scenario. */
export function staleRuns(scenarios: readonly ScenarioResult[]): number {
  return scenarios.reduce((total, scenario) => total + (scenario.stale ?? 0), 0);
}

/** Runs without a model reply over every scenario. */
export function unansweredRuns(scenarios: readonly ScenarioResult[]): number {
  return scenarios.reduce((total, scenario) => total + (scenario.unanswered ?? 0), 0);
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

/**
 * Checks that a parsed document is a results document this version reads, every field the summary, the
 * comparison and the report read included; returns the problem otherwise (a hand-edited or truncated file
 * is a clear refusal, never a figure of NaN or a crash later).
 */
export function resultsProblem(value: unknown): string | undefined {
  if (!isRecord(value) || value["format"] !== RESULTS_FORMAT) return `expected "format": "${RESULTS_FORMAT}"`;
  if (typeof value["model"] !== "string" || typeof value["cacheKey"] !== "string" || !Array.isArray(value["scenarios"])) return "expected model, cacheKey and scenarios";
  if (!(EVAL_MODES as readonly unknown[]).includes(value["mode"])) return `expected "mode" to be one of ${EVAL_MODES.join(", ")}`;
  if (!isCount(value["runs"])) return 'expected "runs" to be a whole number of 0 or more';
  if (!isShare(value["threshold"])) return 'expected "threshold" to be a number from 0 to 1';
  if (typeof value["passed"] !== "boolean") return 'expected "passed" to be true or false';
  for (const key of ["stale", "unanswered"]) if (value[key] !== undefined && !isCount(value[key])) return `expected "${key}" to be a whole number when present`;
  for (const [index, scenario] of (value["scenarios"] as unknown[]).entries()) {
    const problem = scenarioProblem(scenario);
    if (problem !== undefined) return `${problem} in scenarios[${index}]`;
  }
  if (value["baseline"] !== undefined) {
    const problem = comparisonProblem(value["baseline"]);
    if (problem !== undefined) return `${problem} in "baseline"`;
  }
  return undefined;
}

const EVAL_MODES: readonly EvalMode[] = ["live", "record", "replay"];

function scenarioProblem(value: unknown): string | undefined {
  if (!isRecord(value) || typeof value["name"] !== "string" || !isRate(value) || !Array.isArray(value["expectations"])) {
    return "expected every scenario to have a name, passed, runs, rate, interval and expectations";
  }
  if (typeof value["file"] !== "string" || typeof value["variant"] !== "string" || typeof value["pass"] !== "boolean") return "expected a scenario's file, variant and pass";
  for (const key of ["stale", "unanswered"]) if (value[key] !== undefined && !isCount(value[key])) return `expected a scenario's "${key}" to be a whole number when present`;
  if (value["notRecorded"] !== undefined && typeof value["notRecorded"] !== "string") return 'expected a scenario\'s "notRecorded" to be text when present';
  if (!(value["expectations"] as unknown[]).every((entry) => isRecord(entry) && typeof entry["id"] === "string" && typeof entry["kind"] === "string" && isRate(entry))) {
    return "expected every expectation to have an id, a kind, passed, runs, rate and interval";
  }
  if (!Array.isArray(value["runResults"]) || !value["runResults"].every(isRunResult)) return "expected a scenario's runResults: each run's number, passed and failures";
  return undefined;
}

function isRunResult(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value["run"] === "number" &&
    typeof value["passed"] === "boolean" &&
    Array.isArray(value["failures"]) &&
    value["failures"].every((failure) => isRecord(failure) && typeof failure["expectation"] === "string" && typeof failure["reason"] === "string") &&
    (value["error"] === undefined || typeof value["error"] === "string")
  );
}

function comparisonProblem(value: unknown): string | undefined {
  if (!isRecord(value) || typeof value["model"] !== "string" || typeof value["cacheKey"] !== "string") return "expected the baseline's model and cacheKey";
  for (const key of ["regressions", "improvements"]) {
    const changes = value[key];
    if (!Array.isArray(changes) || !changes.every((change) => isRecord(change) && typeof change["scenario"] === "string" && (change["expectation"] === undefined || typeof change["expectation"] === "string") && isRate(change["baseline"]) && isRate(change["current"]))) {
      return `expected "${key}" to list each change's scenario, baseline and current rates`;
    }
  }
  if (!Array.isArray(value["missing"]) || !value["missing"].every((name) => typeof name === "string")) return 'expected "missing" to list scenario names';
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function isShare(value: unknown): boolean {
  return typeof value === "number" && value >= 0 && value <= 1;
}

function isRate(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const interval = value["interval"];
  return isCount(value["passed"]) && isCount(value["runs"]) && isShare(value["rate"]) && Array.isArray(interval) && interval.length === 2 && interval.every(isShare);
}

// ---- the summary table ----------------------------------------------------------

const percent = (value: number): string => `${Math.round(value * 100)}%`;
const interval = (value: Rate): string => `${percent(value.interval[0])}–${percent(value.interval[1])}`;
/** Rate and interval cells; a dash for each when no run was evaluated. */
const rateCells = (value: Rate): string[] => (value.runs === 0 ? ["—", "—"] : [percent(value.rate), interval(value)]);

/**
 * The human summary: a header naming the model, dist/ and mode, one row per
 * scenario and one indented row per expectation, then failures, baseline
 * changes and the verdict. The verdict names the options as `runEvals` takes
 * them, or as the command line's flags with `spelling` "cli".
 */
export function formatSummary(results: EvalResults, spelling: OptionSpelling = "library"): string {
  const problem = resultsProblem(results);
  if (problem !== undefined) throw new TypeError(`Unexpected formatSummary results ${shownValue(results)}, ${problem} (runEvals' results, or a parsed eval --format json document)`);
  expectOneOf(spelling, "spelling", Object.keys(OPTION_NAMES) as OptionSpelling[]);
  const rows: string[][] = [["scenario / expectation", "passed", "rate", "95% CI (Wilson)", ""]];
  for (const scenario of results.scenarios) {
    rows.push([scenario.name, `${scenario.passed}/${scenario.runs}`, ...rateCells(scenario), scenarioVerdict(scenario)]);
    for (const expectation of scenario.expectations) rows.push([`  ${expectation.id}`, `${expectation.passed}/${expectation.runs}`, ...rateCells(expectation), ""]);
  }
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  const table = rows.map((row) =>
    row
      .map((cell, column) => (column === 1 || column === 2 ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
  const lines = [`model ${results.model} · dist ${results.cacheKey.slice(0, 12)} · ${results.mode} · ${runsPerScenario(results)}`, "", ...table];
  const failures = results.scenarios.flatMap((scenario) =>
    scenario.runResults.flatMap((run) => (run.stale === true || run.unanswered === true ? [] : run.error !== undefined ? [`  ${scenario.name} run ${run.run}: ${run.error}`] : run.failures.map((failure) => `  ${scenario.name} run ${run.run} ${failure.expectation}: ${failure.reason}`))),
  );
  if (failures.length > 0) lines.push("", "failures:", ...failures);
  const notRun = results.scenarios.flatMap((scenario) => scenario.runResults.flatMap((run) => (run.stale === true ? [`  ${scenario.name} run ${run.run}: ${run.error ?? "stale cassette"}`] : [])));
  if (notRun.length > 0) lines.push("", "not evaluated (stale cassettes; counted in no rate):", ...notRun);
  const noReply = results.scenarios.flatMap((scenario) => scenario.runResults.flatMap((run) => (run.unanswered === true ? [`  ${scenario.name} run ${run.run}: ${run.error ?? "no reply from the model"}`] : [])));
  if (noReply.length > 0) lines.push("", "not evaluated (no reply from the model; counted in no rate):", ...noReply);
  const notRecorded = results.scenarios.flatMap((scenario) => (scenario.notRecorded === undefined ? [] : [`  ${scenario.name}: ${scenario.notRecorded}`]));
  if (notRecorded.length > 0) lines.push("", "not recorded (the earlier cassettes are kept as they were):", ...notRecorded);
  if (results.baseline !== undefined) {
    const { baseline } = results;
    const change = (entry: RateChange) => `  ${entry.scenario}${entry.expectation === undefined ? "" : ` ${entry.expectation}`}: ${percent(entry.baseline.rate)} (${interval(entry.baseline)}) → ${percent(entry.current.rate)} (${interval(entry.current)})`;
    lines.push("", `baseline: model ${baseline.model} · dist ${baseline.cacheKey.slice(0, 12)}`);
    lines.push(baseline.regressions.length === 0 ? "  no regression beyond noise (95% intervals overlap)" : "regressions (95% intervals do not overlap):");
    lines.push(...baseline.regressions.map(change));
    if (baseline.improvements.length > 0) lines.push("improvements:", ...baseline.improvements.map(change));
    if (baseline.missing.length > 0) lines.push(`  not run here: ${baseline.missing.join(", ")}`);
  }
  lines.push("", verdictLine(results, OPTION_NAMES[spelling]));
  return `${lines.join("\n")}\n`;
}

function scenarioVerdict(scenario: ScenarioResult): string {
  if (scenario.stale !== undefined) return `STALE (${scenario.stale} run${scenario.stale === 1 ? "" : "s"} not evaluated)`;
  if (scenario.notRecorded !== undefined) return "NOT RECORDED";
  if (scenario.unanswered !== undefined) return `NOT EVALUATED (${scenario.unanswered} run${scenario.unanswered === 1 ? "" : "s"} without a model reply)`;
  return scenario.pass ? "pass" : "FAIL";
}

/** The last line: "passed" only when every run was evaluated and everything held. */
function verdictLine(results: EvalResults, named: OptionNames): string {
  const total = results.scenarios.length;
  const scenarios = (count: number): string => `${count} scenario${count === 1 ? "" : "s"}`;
  if (results.passed) return `${scenarios(total)} passed (threshold ${percent(results.threshold)})`;
  const below = results.scenarios.filter((scenario) => !scenario.pass && scenario.stale === undefined && scenario.unanswered === undefined && scenario.notRecorded === undefined).length;
  const stale = staleRuns(results.scenarios);
  const unanswered = unansweredRuns(results.scenarios);
  const notRecorded = results.scenarios.filter((scenario) => scenario.notRecorded !== undefined).length;
  const regressed = results.baseline?.regressions.length ?? 0;
  const parts = [
    ...(below > 0 ? [`${below} of ${total} scenarios below the threshold of ${percent(results.threshold)}`] : []),
    ...(stale > 0 ? [`${stale} stale cassette${stale === 1 ? "" : "s"} not evaluated (re-record with ${named.record})`] : []),
    ...(notRecorded > 0 ? [`${scenarios(notRecorded)} not recorded`] : []),
    ...(unanswered > 0 ? [`${unanswered} run${unanswered === 1 ? "" : "s"} not evaluated (no reply from the model)`] : []),
    ...(regressed > 0 ? [`${regressed} regression${regressed === 1 ? "" : "s"}`] : []),
  ];
  return parts.join(", ");
}

/**
 * "3 runs per scenario", or "2–3 runs per scenario" when a replay found
 * fewer cassettes for some scenarios than for others (`runs` is the most).
 */
export function runsPerScenario(results: Pick<EvalResults, "runs" | "scenarios">, figureOf: (value: number) => string = String): string {
  // A scenario that lists no run results (a document trimmed by hand) says nothing about its count.
  const counts = results.scenarios.map((scenario) => scenario.runResults.length).filter((count) => count > 0);
  const fewest = counts.length === 0 ? results.runs : Math.min(...counts);
  const most = results.runs;
  const figure = fewest < most ? `${figureOf(fewest)}–${figureOf(most)}` : figureOf(most);
  return `${figure} run${most === 1 ? "" : "s"} per scenario`;
}
