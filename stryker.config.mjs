// Mutation testing (see docs/mutation-testing.md). One module per run:
// GAMMA_MUTATION_MODULE names it (scripts/mutate.mjs sets it).
import { MUTATION_MODULES } from "./scripts/mutation-modules.mjs";

const name = process.env.GAMMA_MUTATION_MODULE ?? "";
const module = MUTATION_MODULES[name];
if (module === undefined) {
  throw new Error(`Unexpected mutation module ${JSON.stringify(name)}, expected one of ${Object.keys(MUTATION_MODULES).join(", ")}`);
}

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts", related: false },
  checkers: ["typescript"],
  tsconfigFile: `.mutation-tsconfig.${name}.json`,
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: "perTest",
  mutate: module.mutate,
  concurrency: 2,
  timeoutMS: 5_000,
  reporters: ["clear-text", "progress-append-only", "html", "json"],
  htmlReporter: { fileName: `reports/mutation/${name}/index.html` },
  jsonReporter: { fileName: `reports/mutation/${name}/mutation.json` },
  thresholds: { high: 85, low: 70, break: null },
  tempDirName: `.stryker-tmp/${name}`,
  cleanTempDir: true,
  ignorePatterns: ["reports", ".bench", "coverage", "bench"],
  incremental: false,
};
