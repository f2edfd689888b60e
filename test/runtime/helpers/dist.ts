/**
 * dist/ folders for runtime tests: `prepareDist` copies the real
 * embedded-default dist/ the compiler built, after verifying it. A dist/
 * that is missing or fails verification fails the tests that need it, with
 * the reason: the runtime is only ever tested against the compiler's output.
 */
import { cpSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";
import { loadArtifacts } from "../../../src/runtime/artifacts.js";
import { removeTempDirs, tempDirSync } from "../../helpers/temp-project.js";

/** The real dist/ the tests copy: the repository's own, or GAMMA_DIST when set. */
export const repoDist = process.env["GAMMA_DIST"] ?? fileURLToPath(new URL("../../../dist/", import.meta.url));

afterAll(removeTempDirs);

/** A fresh temp folder, removed after the test file's tests. */
export function tempDir(prefix = "gamma-runtime"): string {
  return tempDirSync(prefix);
}

/** A temp copy of the real dist/; throws when it is missing or does not verify. */
export function prepareDist(): string {
  try {
    loadArtifacts({ distDir: repoDist });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`the embedded default's dist/ (${repoDist}) does not verify: ${reason}; rebuild it with \`node lib/cli/index.js build\``);
  }
  const copy = tempDir();
  cpSync(repoDist, copy, { recursive: true });
  return copy;
}
