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

/** How the packaged CLI is run: pinned to `cores` cores (util-linux's taskset), with `nodeArgs` before the CLI. */
interface Run {
  cores?: number;
  nodeArgs?: string[];
}

/** The packaged CLI's build, with the tokenizer's loads reported by thread. */
function buildProcess(root: string, out: string, { cores, nodeArgs = [] }: Run = {}): { status: number | null; mainLoaded: boolean; workerLoaded: boolean; stderr: string } {
  const command = [process.execPath, ...nodeArgs, "--require", hook, cliPath, "build", "--root", root, "--out", out];
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

/** What a compile of `root` with the worker in `file` would write; `later`, when given, is asked of the worker afterwards and must get nothing. */
async function compiledWith(root: string, file: URL, later?: string[]): Promise<Map<string, string>> {
  const worker = TokenWorker.start(file);
  expect(worker).toBeDefined();
  try {
    const artifacts = written(await compileProject(root, undefined, undefined, { tokenWorker: worker as TokenWorker }));
    if (later) expect(await worker?.count(later)).toBeUndefined();
    return artifacts;
  } finally {
    worker?.close();
  }
}

describe("counting tokens on a worker thread", () => {
  for (const { how, run, onWorker } of [
    { how: "with two cores", run: {}, onWorker: true },
    { how: "pinned to one core", run: { cores: 1 }, onWorker: false },
    { how: "under Node's permission model without --allow-worker", run: { nodeArgs: ["--permission", "--allow-fs-read=*", "--allow-fs-write=*"] }, onWorker: false },
  ] satisfies Array<{ how: string; run: Run; onWorker: boolean }>) {
    it(`a large one-shot build ${how} counts on the ${onWorker ? "worker" : "main thread"}, and writes the bytes of a build that counts on the main thread`, async () => {
      const root = await largeProject(320);
      const result = buildProcess(root, "dist", run);
      expect(result.status, result.stderr).toBe(0);
      expect(result.workerLoaded).toBe(onWorker);
      expect(result.mainLoaded).toBe(!onWorker);
      await expectMainThreadBytes(root, "dist");
    });
  }

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

  it("a compile takes the worker's counts: one token too many for every text shows in its artifacts", async () => {
    const root = await largeProject(40);
    expect(await compiledWith(root, fixtureWorker("answers-plus-one.mjs"))).not.toEqual(written(await compileProject(root)));
  });

  it("a compile given the compiled worker makes the same artifacts as one without", async () => {
    const root = await largeProject(40);
    expect(await compiledWith(root, compiledWorker)).toEqual(written(await compileProject(root)));
  });

  for (const [name, what] of [
    ["throws-at-start.mjs", "fails while it starts"],
    ["exits-on-request.mjs", "stops at its first request"],
    ["answers-short.mjs", "answers something else than was asked"],
  ] as const) {
    it(`a worker that ${what} leaves the counting to the main thread: the same artifacts`, async () => {
      const root = await largeProject(40);
      // Stopped or not, the worker answers every later request with nothing, never a rejection.
      const later = name === "answers-short.mjs" ? undefined : ["one more text"];
      expect(await compiledWith(root, fixtureWorker(name), later)).toEqual(written(await compileProject(root)));
    });
  }

  it("there is no worker to start where no compiled worker is", () => {
    expect(TokenWorker.start(fixtureWorker("no-such-worker.mjs"))).toBeUndefined();
  });
});
