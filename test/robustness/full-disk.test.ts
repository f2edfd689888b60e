/**
 * A disk that fills while a command writes: every write of node:fs from a
 * given moment writes a few bytes, then fails with ENOSPC, as a full disk
 * does. Files a command writes for the user are written whole or not at all:
 * `init` leaves no half scaffold, `report --output` and `eval --output` keep
 * the previous file. Nothing is left behind beside them.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import * as realFs from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { build } from "../../src/build.js";
import { init } from "../../src/init.js";
import { repoRoot } from "../build/helpers.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { removeTempDirs, snapshotTree, tempDir } from "../helpers/temp-project.js";

const disk = vi.hoisted(() => ({ writesLeft: Number.POSITIVE_INFINITY, under: "" }));

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const full = (): NodeJS.ErrnoException => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28, syscall: "write" });
  /** Counts a write under the watched folder; once none are left, the write puts a few bytes down and fails. */
  const fills = (path: unknown): boolean => {
    if (disk.under === "" || (typeof path === "string" && !path.startsWith(disk.under))) return false;
    return disk.writesLeft-- <= 0;
  };
  const writeFileSync: typeof fs.writeFileSync = (path, data, options) => {
    if (!fills(path)) return fs.writeFileSync(path, data, options);
    const bytes = typeof data === "string" ? Buffer.from(data) : Buffer.from(data as Uint8Array);
    fs.writeFileSync(path, bytes.subarray(0, Math.min(3, bytes.length)), options);
    throw full();
  };
  const writeSync = ((fd: number, buffer: Uint8Array, ...rest: unknown[]) => {
    if (!(disk.under !== "" && disk.writesLeft-- <= 0)) return (fs.writeSync as (...args: unknown[]) => number)(fd, buffer, ...rest);
    throw full();
  }) as typeof fs.writeSync;
  return { ...fs, default: { ...fs, writeFileSync, writeSync }, writeFileSync, writeSync };
});

let project: string;

beforeAll(async () => {
  project = join(await tempDir("gamma full disk"), "project");
  expect((await init({ dir: project, template: "gamma" })).ok).toBe(true);
  expect((await build({ root: project, persistentCache: false })).ok).toBe(true);
}, 120_000);

afterAll(removeTempDirs);

/** Every file and folder under `dir`, dotfiles too, with the files' bytes. */
async function everything(dir: string): Promise<{ entries: string[]; files: Record<string, string> }> {
  return { entries: (readdirSync(dir, { recursive: true }) as string[]).sort(), files: await snapshotTree(dir) };
}

/** The disk fills after `writes` more writes under `folder`. */
function fillAfter(writes: number, folder: string): void {
  disk.writesLeft = writes;
  disk.under = folder;
}

function diskFree(): void {
  disk.writesLeft = Number.POSITIVE_INFINITY;
  disk.under = "";
}

describe("a disk that fills while init writes the scaffold", () => {
  it("leaves nothing of the scaffold, says which file failed and that nothing was written; run again, it succeeds", async () => {
    const dir = join(await tempDir("gamma init full disk"), "newproj");
    fillAfter(11, dir);
    const failed = await runCliInProcessFrom(join(dir, ".."), "init", "newproj");
    diskFree();
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/^gamma-prompt init: "newproj" cannot be written: [\w/.-]+: no space left on the device \(ENOSPC\); nothing was written\n$/);
    // The folder init made is gone again: nothing half-made that a second run would refuse.
    expect(readdirSync(join(dir, ".."))).toEqual([]);
    const again = await runCliInProcessFrom(join(dir, ".."), "init", "newproj");
    expect(again.code).toBe(0);
  });

  it("into a folder that holds other files: they stay as they were, no file of the scaffold and no temporary file is left", async () => {
    const dir = await tempDir("gamma init full disk beside");
    writeFileSync(join(dir, "notes.txt"), "mine\n");
    mkdirSync(join(dir, "prompts"));
    const before = await everything(dir);
    fillAfter(5, dir);
    const failed = await runCliInProcessFrom(dir, "init");
    diskFree();
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain("; nothing was written\n");
    expect(await everything(dir)).toEqual(before);
  });
});

describe("--force where a scaffold file's path is a folder", () => {
  it("writes nothing and names the path (exit 2)", async () => {
    const dir = await tempDir("gamma init force folder");
    writeFileSync(join(dir, "gamma-prompt.config.json"), "{}\n");
    mkdirSync(join(dir, "prompts", "prefix.hbs"), { recursive: true });
    const before = await everything(dir);
    const failed = await runCliInProcessFrom(dir, "init", "--force");
    expect(failed.code).toBe(2);
    expect(failed.stderr).toBe('gamma-prompt init: "." cannot be written: prompts/prefix.hbs: it is a folder, expected a file; nothing was written\n');
    expect(await everything(dir)).toEqual(before);
  });
});

describe("--output on a disk that fills", () => {
  it("report --output keeps the previous report whole and leaves no temporary file", async () => {
    const out = await tempDir("gamma report full disk");
    const file = join(out, "summary.md");
    expect((await runCliInProcessFrom(project, "report", "--format", "markdown", "--output", file)).code).toBe(0);
    const previous = readFileSync(file);
    expect(previous.length).toBeGreaterThan(100);
    fillAfter(0, out);
    const failed = await runCliInProcessFrom(project, "report", "--output", file);
    diskFree();
    expect(failed.code).toBe(2);
    expect(failed.stderr).toBe(`gamma-prompt report: cannot write the report to ${file}: no space left on the device (ENOSPC)\n`);
    expect(readFileSync(file)).toEqual(previous);
    expect(readdirSync(out)).toEqual(["summary.md"]);
  });

  it("eval --output keeps the previous results (the next --baseline) whole", async () => {
    const out = await tempDir("gamma eval full disk");
    const file = join(out, "results.json");
    cpSync(join(repoRoot, "test/fixtures/eval-results/blocking-question.json"), file);
    const previous = readFileSync(file);
    fillAfter(0, out);
    const failed = await runCliInProcessFrom(project, "eval", "--replay", "evals/blocking-question.yaml", "--output", file);
    diskFree();
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain(`cannot write the results to ${file}: no space left on the device (ENOSPC)`);
    expect(readFileSync(file)).toEqual(previous);
    expect(readdirSync(out)).toEqual(["results.json"]);
  }, 60_000);

  it("a replaced file keeps its permissions", async () => {
    const out = await tempDir("gamma report mode");
    const file = join(out, "summary.md");
    writeFileSync(file, "old\n", { mode: 0o640 });
    realFs.chmodSync(file, 0o640);
    expect((await runCliInProcessFrom(project, "report", "--format", "markdown", "--output", file)).code).toBe(0);
    expect(realFs.statSync(file).mode & 0o777).toBe(0o640);
    expect(readFileSync(file, "utf8")).not.toBe("old\n");
  });
});
