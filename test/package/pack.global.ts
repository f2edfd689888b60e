/**
 * One folder per test run where the package is packed once (by the first
 * test file that asks, see test/helpers/packed-package.ts) and shared by
 * every file that installs it: a run that needs no tarball packs none.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    packDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const packDir = mkdtempSync(join(tmpdir(), "gamma-pack-run-"));
  project.provide("packDir", packDir);
  return () => rmSync(packDir, { recursive: true, force: true });
}
