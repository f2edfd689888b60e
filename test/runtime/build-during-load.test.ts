/**
 * A build that commits while loadArtifacts reads dist/: it leaves no journal,
 * only another manifest, so the old manifest and the new files would look
 * like tampering. The load starts over and returns the new build; builds that
 * keep replacing dist/ give the retryable InterruptedBuildError, and a file
 * changed under an unchanged manifest is still tampering.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { init } from "../../src/init.js";
import { ArtifactVerificationError, InterruptedBuildError, loadArtifacts } from "../../src/runtime/artifacts.js";
import type { RegularRead, RegularReadOptions } from "../../src/protocol/regular-file.js";
import { cliPath, removeTempDirs, tempDir } from "../build/helpers.js";

/** What happens right after the loader reads a file: another process committing a build, say. */
const hooks = vi.hoisted(() => ({}) as { afterRead?: (path: string) => void });
vi.mock("../../src/protocol/regular-file.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/protocol/regular-file.js")>();
  return {
    ...actual,
    readRegularFile: (path: string, options?: RegularReadOptions): RegularRead => {
      const read = actual.readRegularFile(path, options);
      hooks.afterRead?.(path);
      return read;
    },
  };
});

afterAll(removeTempDirs);
afterEach(() => {
  delete hooks.afterRead;
});

async function builtProject(): Promise<string> {
  const root = join(await tempDir("gamma build during load"), "x");
  expect((await init({ dir: root, template: "gamma" })).ok).toBe(true);
  expect(spawnSync(process.execPath, [cliPath, "build"], { cwd: root }).status).toBe(0);
  return root;
}

/** Edits the prefix and builds in another process, which commits the new dist/ before it returns. */
function rebuild(root: string, marker: string): void {
  appendFileSync(join(root, "prompts", "prefix.hbs"), `\n${marker}\n`);
  const built = spawnSync(process.execPath, [cliPath, "build"], { cwd: root, encoding: "utf8" });
  expect(built.status, built.stderr).toBe(0);
}

const isManifest = (dist: string) => (path: string) => path === join(dist, "manifest.json");

/** What loading `dist` throws, or undefined when it loads. */
function loadError(dist: string): unknown {
  try {
    loadArtifacts({ distDir: dist });
  } catch (caught) {
    return caught;
  }
  return undefined;
}

describe("a build that commits while dist/ is loaded", () => {
  it("is not taken for tampering: the load starts over and returns the new build", async () => {
    const root = await builtProject();
    const dist = join(root, "dist");
    let builds = 0;
    hooks.afterRead = (path) => {
      if (builds > 0 || !isManifest(dist)(path)) return;
      builds++;
      rebuild(root, "Redeployed while a host loaded dist/.");
    };
    const loaded = loadArtifacts({ distDir: dist });
    expect(builds).toBe(1);
    expect(loaded.prefix).toContain("Redeployed while a host loaded dist/.");
    expect(loaded.prefix).toBe(readFileSync(join(dist, "prefix.md"), "utf8"));
  });

  it("gives the retryable InterruptedBuildError when builds replace dist/ at every attempt", async () => {
    const root = await builtProject();
    const dist = join(root, "dist");
    const first = join(root, "first-build");
    cpSync(dist, first, { recursive: true });
    rebuild(root, "A second build.");
    const second = join(root, "second-build");
    cpSync(dist, second, { recursive: true });
    // After each read of the manifest, the other build takes dist/'s place.
    let swaps = 0;
    hooks.afterRead = (path) => {
      if (!isManifest(dist)(path)) return;
      swaps++;
      const next = swaps % 2 === 1 ? first : second;
      renameSync(dist, join(root, `replaced-${swaps}`));
      cpSync(next, dist, { recursive: true });
    };
    const error = loadError(dist);
    expect(error).toBeInstanceOf(InterruptedBuildError);
    expect((error as InterruptedBuildError).message).toBe("builds replaced dist/ while it was read (3 times in a row); load it again when they have finished");
  });

  it("still reports a file changed under an unchanged manifest as tampering", async () => {
    const root = await builtProject();
    const dist = join(root, "dist");
    hooks.afterRead = (path) => {
      if (isManifest(dist)(path)) writeFileSync(join(dist, "prefix.md"), "tampered\n");
    };
    const error = loadError(dist);
    expect(error).toBeInstanceOf(ArtifactVerificationError);
    expect(error).not.toBeInstanceOf(InterruptedBuildError);
    expect((error as ArtifactVerificationError).problems.map((problem) => problem.file)).toContain("prefix.md");
  });
});
