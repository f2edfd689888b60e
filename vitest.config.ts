import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Pi's faux provider registers in a process-global registry; files run in
    // separate workers, tests inside a file run one after another.
    pool: "forks",
    // A folder where the first test file that needs the packed package packs it, once per run.
    globalSetup: ["test/package/pack.global.ts"],
  },
});
