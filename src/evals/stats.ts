/**
 * Pass rates with a 95% confidence interval, and the regression rule for
 * `--baseline`. The interval is the Wilson score interval: unlike the normal
 * approximation it stays inside [0, 1] and is meaningful at 0/n and n/n,
 * which is where evaluation pass rates usually are.
 */

/** z for a two-sided 95% interval. */
export const Z_95 = 1.959963984540054;

export interface Rate {
  passed: number;
  runs: number;
  /** passed / runs (0 when there are no runs). */
  rate: number;
  /** The 95% Wilson score interval [low, high]. */
  interval: [number, number];
}

export function rate(passed: number, runs: number): Rate {
  return { passed, runs, rate: runs === 0 ? 0 : round(passed / runs), interval: wilsonInterval(passed, runs) };
}

/** The Wilson score interval for `passed` successes out of `runs` at z (default 95%); [0, 1] when there are no runs. */
export function wilsonInterval(passed: number, runs: number, z = Z_95): [number, number] {
  if (runs === 0) return [0, 1];
  const p = passed / runs;
  const z2 = z * z;
  const denominator = 1 + z2 / runs;
  const centre = (p + z2 / (2 * runs)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / runs + z2 / (4 * runs * runs))) / denominator;
  return [round(Math.max(0, centre - half)), round(Math.min(1, centre + half))];
}

/**
 * The regression rule: the current rate is below the baseline's and the two
 * 95% Wilson intervals do not overlap (current high < baseline low). Overlap
 * is a conservative test (it flags less than a two-proportion z-test at 5%
 * would), chosen so that noise between runs of a nondeterministic model is
 * never reported as a regression; an improvement is the mirror image.
 */
export function compareRates(baseline: Rate, current: Rate): "regression" | "improvement" | "same" {
  if (current.interval[1] < baseline.interval[0]) return "regression";
  if (current.interval[0] > baseline.interval[1]) return "improvement";
  return "same";
}

/** Six decimals: the JSON results stay byte-stable across platforms' float printing. */
function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
