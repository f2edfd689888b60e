import { beforeEach, type TestContext } from "vitest";

/**
 * Under mutation testing only (vitest.mutation.config.ts): Stryker's vitest
 * runner runs tests in worker threads, where process.chdir is unsupported. A
 * test that runs the CLI in-process from another folder is skipped there and
 * says why, instead of failing the initial run; the ordinary suite runs it.
 */
let current: TestContext | undefined;
beforeEach((context) => {
  current = context;
});
process.chdir = (): never => {
  current?.skip("needs process.chdir, which Stryker's worker threads do not support");
  throw new Error("process.chdir is not supported in worker threads");
};
