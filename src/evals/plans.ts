/**
 * What an evaluation runs: one plan per run, and for a replay the cassettes
 * found for each scenario (1.json, 2.json, …), read and checked before the
 * first run. A cassette that records a failed call instead of a reply is
 * planned as stale: the run is reported, never evaluated on it.
 */
import { readdirSync } from "node:fs";
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

/**
 * One run per cassette recorded (1.json, 2.json, …), or the first `runs` of
 * them; a gap in the numbers (a cassette lost from the set) is refused before
 * any run, naming the missing file. Messages name the options as `named` spells them.
 */
export function replayPlans(scenarios: readonly LoadedScenario[], runs: number | undefined, cwd: string, named: OptionNames = OPTION_NAMES.library): RunPlan[] {
  return scenarios.flatMap((loaded) => {
    restoreInterruptedSwap(loaded.cassetteDir);
    const recorded = recordedRuns(loaded.cassetteDir, cwd);
    if (recorded.length === 0) {
      throw new EvalUsageError(`Unexpected scenario "${loaded.scenario.name}" without cassettes in ${display(loaded.cassetteDir, cwd)}/, expected them recorded first: ${named.recordFirst}`);
    }
    const last = recorded[recorded.length - 1] as number;
    const missing = Array.from({ length: last }, (_, index) => index + 1).filter((run) => !recorded.includes(run));
    if (missing.length > 0) {
      const files = missing.slice(0, 5).map((run) => display(cassettePath(loaded.cassetteDir, run), cwd)).join(", ") + (missing.length > 5 ? ` and ${missing.length - 5} more` : "");
      throw new EvalUsageError(
        `Unexpected missing cassette${missing.length === 1 ? "" : "s"} ${files} of scenario "${loaded.scenario.name}", expected every run from 1.json to ${last}.json (${recorded.length} of ${last} are there); restore ${missing.length === 1 ? "it" : "them"}, or re-record the scenario with ${named.record}`,
      );
    }
    if (runs !== undefined && recorded.length < runs) {
      throw new EvalUsageError(`Unexpected ${named.runs} ${runs} for scenario "${loaded.scenario.name}", expected at most the ${recorded.length} cassette${recorded.length === 1 ? "" : "s"} recorded in ${display(loaded.cassetteDir, cwd)}/`);
    }
    return recorded.slice(0, runs ?? recorded.length).map((run): RunPlan => {
      const path = cassettePath(loaded.cassetteDir, run);
      const read = readCassette(path);
      if (read.kind !== "cassette") throw new EvalUsageError(`Unexpected cassette ${display(path, cwd)}: ${read.kind === "invalid" ? read.problem : "it could not be read"}; re-record it with ${named.record}`);
      // A cassette copied under another run's name would count one recorded run twice, and raise the pass rate.
      const { scenario, run: recordedAs } = read.cassette;
      if (scenario !== loaded.scenario.name || recordedAs !== run) {
        throw new EvalUsageError(
          `Unexpected cassette ${display(path, cwd)} recorded as run ${JSON.stringify(recordedAs)} of scenario ${JSON.stringify(scenario)}, expected run ${run} of "${loaded.scenario.name}": a copy of another run is no run of its own; re-record the scenario with ${named.record}`,
        );
      }
      const failed = failedCallProblem(read.cassette);
      return { loaded, run, cassette: read.cassette, ...(failed === undefined ? {} : { stale: `stale cassette ${display(path, cwd)}: ${failed}; re-record it with ${named.record}` }) };
    });
  });
}

/** The run numbers of the cassettes in a scenario's folder (`<run>.json`, run from 1), in order; none when there is no folder. */
function recordedRuns(cassetteDir: string, cwd: string): number[] {
  let names: string[];
  try {
    names = readdirSync(cassetteDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return [];
    // A folder that is there but cannot be listed is not "never recorded": re-recording would not help.
    throw new EvalUsageError(`Unexpected cassettes folder ${display(cassetteDir, cwd)}/ that cannot be read (${code ?? String(error)}), expected a folder of cassettes this user can read`);
  }
  return names
    .filter((name) => /^[1-9]\d{0,5}\.json$/.test(name))
    .map((name) => Number(name.slice(0, -".json".length)))
    .sort((a, b) => a - b);
}

export function replayedModel(plans: readonly RunPlan[]): string {
  const models = [...new Set(plans.map((plan) => plan.cassette?.model ?? ""))].sort();
  return models.join(", ");
}

/** A path as results and messages show it: relative to the working folder, with forward slashes. */
export function display(path: string, cwd: string): string {
  return relative(cwd, path).split(sep).join("/");
}
