// Mutation testing (see docs/mutation-testing.md). One module per run:
// GAMMA_MUTATION_MODULE names it and GAMMA_MUTATION_REPORT_DIR says where its
// report goes (scripts/mutate.mjs sets both).
import { MUTATION_MODULES } from "./scripts/mutation-modules.mjs";

const name = process.env.GAMMA_MUTATION_MODULE ?? "";
const module = MUTATION_MODULES[name];
if (module === undefined) {
  throw new Error(`Unexpected mutation module ${JSON.stringify(name)}, expected one of ${Object.keys(MUTATION_MODULES).join(", ")}`);
}

const reportDir = process.env.GAMMA_MUTATION_REPORT_DIR ?? `reports/mutation/${name}`;

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
  htmlReporter: { fileName: `${reportDir}/index.html` },
  jsonReporter: { fileName: `${reportDir}/mutation.json` },
  thresholds: { high: 85, low: 70, break: null },
  tempDirName: `.stryker-tmp/${name}`,
  cleanTempDir: true,
  // Other modules' sandboxes (.stryker-tmp/<module>) too: runs of two modules at once must not copy each other.
  ignorePatterns: ["reports", ".bench", "coverage", "bench", ".stryker-tmp"],
  incremental: false,
};
