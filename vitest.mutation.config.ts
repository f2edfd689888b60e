import { defineConfig } from "vitest/config";
import { MUTATION_MODULES } from "./scripts/mutation-modules.mjs";

// The test files of the one module under mutation (stryker.config.mjs): the same settings as vitest.config.ts, fewer files.
const name = process.env["GAMMA_MUTATION_MODULE"] ?? "";
const module = (MUTATION_MODULES as Record<string, { tests: string[] } | undefined>)[name];
if (module === undefined) throw new Error(`Unexpected mutation module ${JSON.stringify(name)}`);

export default defineConfig({
  test: {
    include: module.tests,
    setupFiles: ["test/helpers/mutation-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
