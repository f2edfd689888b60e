/**
 * dist/ folders for runtime tests: `prepareDist` copies the real
 * embedded-default dist/ the compiler built, after verifying it. A dist/
 * that is missing or fails verification fails the tests that need it, with
 * the reason: the runtime is only ever tested against the compiler's output.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";
import { loadArtifacts } from "../../../src/runtime/artifacts.js";

/** The real dist/ the tests copy: the repository's own, or GAMMA_DIST when set. */
export const repoDist = process.env["GAMMA_DIST"] ?? fileURLToPath(new URL("../../../dist/", import.meta.url));

const created: string[] = [];
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temp folder, removed after the test file's tests. */
export function tempDir(prefix = "gamma-runtime-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
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
