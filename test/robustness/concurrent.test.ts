/**
 * One build at a time per output folder, with real processes: builds started
 * together all succeed one after another; a live holder makes a build give
 * up with exit 2 naming it; a dead holder's lock is taken over.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { lockPathFor } from "../../src/pipeline/emit/lock.js";
import { cliPath, copyProject, removeTempDirs, snapshotTree } from "../build/helpers.js";

afterAll(removeTempDirs);

function runBuild(root: string, args: string[] = []): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, "build", "--root", root, "--format", "json", ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (status) => resolve({ status, stderr }));
  });
}

function leftovers(root: string): string[] {
  return readdirSync(root).filter((name) => name.startsWith(".gamma-prompt-"));
}

async function expectedDist(): Promise<Record<string, string>> {
  const root = await copyProject("basic");
  expect((await build({ root, persistentCache: false })).ok).toBe(true);
  return snapshotTree(join(root, "dist"));
}

describe("builds of one output folder", () => {
  it("run one at a time when three start together, and all succeed", async () => {
    const expected = await expectedDist();
    const root = await copyProject("basic");
    const results = await Promise.all([runBuild(root), runBuild(root), runBuild(root)]);
    expect(results.map((result) => result.status)).toEqual([0, 0, 0]);
    expect(await snapshotTree(join(root, "dist"))).toEqual(expected);
    expect(leftovers(root)).toEqual([]);
  }, 60_000);

  it("gives up after --wait with exit 2 naming the live holder, and takes over the lock once it is dead", async () => {
    const root = await copyProject("basic");
    const holder: ChildProcess = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    try {
      const lock = lockPathFor(join(root, "dist"));
      await writeFile(lock, `${JSON.stringify({ pid: holder.pid, startedAt: "2026-01-01T00:00:00.000Z", token: "held" })}\n`);
      const refused = spawnSync(process.execPath, [cliPath, "build", "--root", root, "--wait", "0.3"], { encoding: "utf8", timeout: 30_000 });
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain(`waiting up to 0.3 s for the build of dist/ by pid ${holder.pid}`);
      expect(refused.stderr).toContain(`build pid ${holder.pid} (started 2026-01-01T00:00:00.000Z) holds`);
      expect(existsSync(join(root, "dist"))).toBe(false);
      holder.kill("SIGKILL");
      await new Promise((resolve) => holder.once("exit", resolve));
      const taken = spawnSync(process.execPath, [cliPath, "build", "--root", root, "--wait", "0"], { encoding: "utf8", timeout: 30_000 });
      expect(taken.status).toBe(0);
      expect(existsSync(lock)).toBe(false);
    } finally {
      holder.kill("SIGKILL");
    }
  }, 60_000);
});
