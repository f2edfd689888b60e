import { resolve } from "node:path";
import { expectProjectOptions } from "./protocol/arguments.js";
import { checkAndBuild, type CheckResult } from "./check.js";
import { cost, type CostResult } from "./cost/cost.js";
import { ProfileError, profileForBuild } from "./cost/profile.js";
import { compareWithBase } from "./report/base.js";
import type { BaseComparison } from "./report/model.js";
import { ArtifactVerificationError, loadArtifacts } from "./runtime/artifacts.js";

/**
 * What the sources as they are would do to the prompt cache: `check` against
 * the output folder, and the sources' build compared with the output
 * folder's as `report --base` compares two builds (each variant's blocks
 * intact, changed or invalidated, the files behind them, the tokens that go
 * uncached and the default policies' cost per 1,000 sessions before and
 * after). Writes nothing.
 */

export interface CacheImpactOptions {
  root: string;
  /** Output folder, relative to the root unless absolute (default dist). */
  outDir?: string;
  /** A traffic profile for the costs (parsed JSON), as `cost` and `report` take it. */
  profile?: unknown;
}

export interface CacheImpact {
  /** check's verdict: whether the output folder is what the sources build to. */
  check: CheckResult;
  /** The sources' build against the output folder's; absent when one of them is missing (see `comparisonProblem`). */
  comparison?: BaseComparison;
  /** Why there is no comparison: the sources have errors, or the output folder holds no verified build. */
  comparisonProblem?: string;
}

export async function cacheImpact(options: CacheImpactOptions): Promise<CacheImpact> {
  expectProjectOptions(options, "cacheImpact");
  const root = resolve(options.root);
  const outDir = resolve(root, options.outDir ?? "dist");
  // The output folder as the caller named it: check names a relative one from the root, an absolute one as given.
  const { result, built } = await checkAndBuild({ root, outDir: options.outDir ?? "dist" });
  if (!built) {
    // check's own findings about the output folder (missing, mid-build) are no errors of the sources.
    const sourceErrors = result.diagnostics.filter((diagnostic) => diagnostic.severity === "error" && !diagnostic.ruleId.startsWith("dist/")).length;
    const outputProblem = result.diagnostics.find((diagnostic) => diagnostic.severity === "error" && diagnostic.ruleId.startsWith("dist/"));
    const problem =
      sourceErrors > 0 || outputProblem === undefined
        ? `the sources have errors (${sourceErrors}), so there is no build to compare with the output folder`
        : `the output folder holds no build to compare with (${outputProblem.ruleId}: ${outputProblem.message})`;
    return { check: result, comparisonProblem: problem };
  }
  let before;
  try {
    before = loadArtifacts({ distDir: outDir });
  } catch (error) {
    if (!(error instanceof ArtifactVerificationError)) throw error;
    return { check: result, comparisonProblem: `the output folder holds no verified build to compare with: ${error.message.split("\n").join(" ")}` };
  }
  let costs: { before: CostResult; after: CostResult } | { problem: string };
  let priced: "the sources' build" | "the output folder's build" = "the sources' build";
  try {
    const after = cost({ root, profile: options.profile, artifacts: built });
    // The profile is the sources' build's: the output folder's is priced with the entries that fit it.
    priced = "the output folder's build";
    const fitted = profileForBuild(options.profile, Object.keys(before.cachePlan.variants), Object.keys(before.manifest.namespaces ?? {}));
    costs = { before: cost({ root, profile: fitted, artifacts: before }), after };
  } catch (error) {
    if (!(error instanceof ProfileError)) throw error;
    costs = { problem: `the traffic profile does not fit ${priced} (${error.message})` };
  }
  return { check: result, comparison: compareWithBase("the output folder", before, built, costs) };
}
