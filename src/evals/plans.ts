/**
 * What an evaluation runs: one plan per run, and for a replay the cassettes
 * found for each scenario (1.json, 2.json, …), read and checked before the
 * first run. A cassette that records a failed call instead of a reply is
 * planned as stale: the run is reported, never evaluated on it.
 */
import { relative, sep } from "node:path";
import { cassettePath, failedCallProblem, readCassette, restoreInterruptedSwap, type Cassette } from "./cassette.js";
import type { LoadedScenario } from "./scenario.js";
import { OPTION_NAMES, type OptionNames } from "./option-names.js";
import { EvalUsageError } from "./usage-error.js";

export interface RunPlan {
  loaded: LoadedScenario;
  run: number;
  cassette?: Cassette;
  /** Why the cassette cannot be replayed at all: the run is stale before it starts. */
  stale?: string;
}

/** One run per cassette found (1.json, 2.json, …), or the first `runs` of them; messages name the options as `named` spells them. */
export function replayPlans(scenarios: readonly LoadedScenario[], runs: number | undefined, cwd: string, named: OptionNames = OPTION_NAMES.library): RunPlan[] {
  return scenarios.flatMap((loaded) => {
    restoreInterruptedSwap(loaded.cassetteDir);
    const plans: RunPlan[] = [];
    for (let run = 1; runs === undefined || run <= runs; run++) {
      const path = cassettePath(loaded.cassetteDir, run);
      const read = readCassette(path);
      if (read.kind === "missing") break;
      if (read.kind === "invalid") throw new EvalUsageError(`Unexpected cassette ${display(path, cwd)}: ${read.problem}; re-record it with ${named.record}`);
      const failed = failedCallProblem(read.cassette);
      plans.push({ loaded, run, cassette: read.cassette, ...(failed === undefined ? {} : { stale: `stale cassette ${display(path, cwd)}: ${failed}; re-record it with ${named.record}` }) });
    }
    if (plans.length === 0) {
      throw new EvalUsageError(`Unexpected scenario "${loaded.scenario.name}" without cassettes in ${display(loaded.cassetteDir, cwd)}/, expected them recorded first: ${named.recordFirst}`);
    }
    if (runs !== undefined && plans.length < runs) {
      throw new EvalUsageError(`Unexpected ${named.runs} ${runs} for scenario "${loaded.scenario.name}", expected at most the ${plans.length} cassettes recorded in ${display(loaded.cassetteDir, cwd)}/`);
    }
    return plans;
  });
}

export function replayedModel(plans: readonly RunPlan[]): string {
  const models = [...new Set(plans.map((plan) => plan.cassette?.model ?? ""))].sort();
  return models.join(", ");
}

/** A path as results and messages show it: relative to the working folder, with forward slashes. */
export function display(path: string, cwd: string): string {
  return relative(cwd, path).split(sep).join("/");
}
