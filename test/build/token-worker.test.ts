import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { compileProject, type CompiledProject } from "../../src/pipeline/compile/compile.js";
import { TokenWorker } from "../../src/pipeline/render/token-worker-client.js";
import { cliPath, copyProject, largeProject, listFiles, removeTempDirs, repoRoot } from "./helpers.js";

// A one-shot build of a large project counts its tokens on a worker thread
// while the main thread lints and renders. The worker only ever saves time:
// the bytes are those of a build that counts everything on the main thread,
// and a worker that cannot answer leaves the counting to the main thread.

afterAll(removeTempDirs);

const hook = join(repoRoot, "test/fixtures/hooks/report-heavy-loads.cjs");
const compiledWorker = pathToFileURL(join(repoRoot, "lib/token-worker.js"));
const fixtureWorker = (name: string): URL => pathToFileURL(join(repoRoot, "test/fixtures/token-workers", name));

/** The packaged CLI's build, with the tokenizer's loads reported by thread; `cores` pins the process to that many (util-linux's taskset). */
function buildProcess(root: string, out: string, cores?: number): { status: number | null; mainLoaded: boolean; workerLoaded: boolean; stderr: string } {
  const command = [process.execPath, "--require", hook, cliPath, "build", "--root", root, "--out", out];
  const pinned = cores === undefined ? command : ["taskset", "--cpu-list", `0-${cores - 1}`, ...command];
  // A worker that held the process open would show as a timeout here, never as a hung test run.
  const child = spawnSync(pinned[0] as string, pinned.slice(1), { encoding: "utf8", timeout: 60_000 });
  const lines = child.stderr.split("\n");
  return { status: child.status, mainLoaded: lines.includes("TOKENIZER LOADED"), workerLoaded: lines.includes("WORKER THREAD: TOKENIZER LOADED"), stderr: child.stderr };
}

async function tree(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const file of await listFiles(dir)) files.set(file, await readFile(join(dir, file)));
  return files;
}

/** The output folder `out` of `root` holds the bytes of a build by the library under the test runner (no worker beside it). */
async function expectMainThreadBytes(root: string, out: string): Promise<void> {
  expect((await build({ root, outDir: "main-thread", persistentCache: false })).ok).toBe(true);
  const [built, onMain] = [await tree(join(root, out)), await tree(join(root, "main-thread"))];
  expect([...built.keys()]).toEqual([...onMain.keys()]);
  for (const [path, bytes] of built) expect(bytes.equals(onMain.get(path) as Buffer), path).toBe(true);
}

/** What a compile would write, as text, for comparing compiles. */
function written(compiled: CompiledProject): Map<string, string> {
  expect(compiled.errorCount, JSON.stringify(compiled.diagnostics.slice(0, 3))).toBe(0);
  return new Map([...(compiled.artifacts ?? [])].map(([path, content]) => [path, typeof content === "string" ? content : Buffer.from(content).toString("base64")]));
}

describe("counting tokens on a worker thread", () => {
  it("a large one-shot build counts on the worker and writes the bytes of a build that counts on the main thread", async () => {
    const root = await largeProject(320);
    const result = buildProcess(root, "dist");
    expect(result.status, result.stderr).toBe(0);
    expect(result.workerLoaded).toBe(true);
    expect(result.mainLoaded).toBe(false);
    await expectMainThreadBytes(root, "dist");
  });

  it("with one core to run on, a large build counts on the main thread: the same bytes", async () => {
    const root = await largeProject(320);
    const result = buildProcess(root, "dist", 1);
    expect(result.status, result.stderr).toBe(0);
    expect(result.mainLoaded).toBe(true);
    expect(result.workerLoaded).toBe(false);
    await expectMainThreadBytes(root, "dist");
  });

  it("a large build that finds an error exits 1 at once, writing nothing: the worker it started holds nothing open", async () => {
    const root = await largeProject(320);
    const skill = join(root, "skills", "generated-007", "SKILL.md");
    await writeFile(skill, (await readFile(skill, "utf8")).replace("name: generated-007", "name: Generated 7"));
    const result = buildProcess(root, "dist");
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toContain("skill/");
    expect(existsSync(join(root, "dist"))).toBe(false);
  });

  it("a small build counts on the main thread and starts no worker", async () => {
    const root = await copyProject("basic");
    const result = buildProcess(root, "dist");
    expect(result.status, result.stderr).toBe(0);
    expect(result.mainLoaded).toBe(true);
    expect(result.workerLoaded).toBe(false);
  });

  it("a compile given the compiled worker makes the same artifacts as one without", async () => {
    const root = await largeProject(40);
    const worker = TokenWorker.start(compiledWorker);
    expect(worker).toBeDefined();
    try {
      const withWorker = await compileProject(root, undefined, undefined, { tokenWorker: worker as TokenWorker });
      expect(written(withWorker)).toEqual(written(await compileProject(root)));
    } finally {
      worker?.close();
    }
  });

  for (const [name, what] of [
    ["throws-at-start.mjs", "fails while it starts"],
    ["exits-on-request.mjs", "stops at its first request"],
    ["answers-short.mjs", "answers something else than was asked"],
  ] as const) {
    it(`a worker that ${what} leaves the counting to the main thread: the same artifacts`, async () => {
      const root = await largeProject(40);
      const worker = TokenWorker.start(fixtureWorker(name));
      expect(worker).toBeDefined();
      try {
        const withWorker = await compileProject(root, undefined, undefined, { tokenWorker: worker as TokenWorker });
        expect(written(withWorker)).toEqual(written(await compileProject(root)));
        // Stopped or not, the worker answers every later request with nothing, never a rejection.
        if (name !== "answers-short.mjs") expect(await worker?.count(["one more text"])).toBeUndefined();
      } finally {
        worker?.close();
      }
    });
  }

  it("there is no worker to start where no compiled worker is", () => {
    expect(TokenWorker.start(fixtureWorker("no-such-worker.mjs"))).toBeUndefined();
  });
});
