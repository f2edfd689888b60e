import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { build, createBuildCache } from "../../src/build.js";
import { JOURNAL_FILE } from "../../src/protocol/dist-journal.js";
import { copyProject, removeTempDirs } from "./helpers.js";

const renames = vi.hoisted(() => [] as Array<[string, string]>);
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  return {
    ...actual,
    renameSync: (from: fs.PathLike, to: fs.PathLike) => {
      renames.push([String(from), String(to)]);
      actual.renameSync(from, to);
    },
  };
});

afterAll(removeTempDirs);

/**
 * Reads a few artifacts in a tight loop in another process until `stop`
 * exists; prints "ready" after its first pass (so the builds start only once
 * it reads, however slowly the process started), then its reads and misses.
 */
const READER = `
const { existsSync, readFileSync } = require("node:fs");
const [dist, stop] = process.argv.slice(1);
const files = ["catalog.xml", "prefix.md", "variants/import.md", "manifest.json"].map((f) => dist + "/" + f);
let reads = 0, missing = 0, passes = 0;
while (passes === 0 || !existsSync(stop)) {
  for (const file of files) {
    try { readFileSync(file); reads++; } catch (error) { if (error.code === "ENOENT") missing++; else throw error; }
  }
  if (++passes === 1) process.stdout.write("ready\\n");
}
process.stdout.write(JSON.stringify({ reads, missing }));
`;

async function withDescription(root: string, text: string): Promise<void> {
  const skill = join(root, "skills/card-style/SKILL.md");
  await writeFile(skill, (await readFile(skill, "utf8")).replace(/^description:[\s\S]*?\n---/m, `description: ${text}\n---`));
}

describe("replacing artifacts in dist/", () => {
  it("never lets a concurrent reader find an artifact missing", async () => {
    const root = await copyProject("basic");
    const cache = createBuildCache();
    expect((await build({ root, cache, persistentCache: false })).ok).toBe(true);
    const stop = join(root, "stop-reading");
    const reader = spawn(process.execPath, ["-e", READER, join(root, "dist"), stop], { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    reader.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => reader.once("exit", resolve));
    const ready = new Promise<void>((resolve) => reader.stdout.on("data", () => output.startsWith("ready\n") && resolve()));
    await ready;
    for (let edit = 0; edit < 40; edit++) {
      await withDescription(root, `Use when writing card text (edit ${edit}).`);
      const result = await build({ root, cache, changedPaths: ["skills/card-style/SKILL.md"], persistentCache: false });
      expect(result.written).toContain("catalog.xml");
    }
    await writeFile(stop, "");
    await exited;
    const { reads, missing } = JSON.parse(output.slice("ready\n".length)) as { reads: number; missing: number };
    expect(reads).toBeGreaterThan(0);
    expect(missing).toBe(0);
  });

  it("renames each new file over its original and never moves an original out of dist/", async () => {
    const root = await copyProject("basic");
    const dist = join(root, "dist");
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    await withDescription(root, "Use when writing card text, once more.");
    renames.length = 0;
    const result = await build({ root, persistentCache: false });
    expect(result.written).toEqual(["cache-plan.json", "catalog.xml", "manifest.json", "prefix.md", "variants/base.md", "variants/deck-generation.md", "variants/import.md"]);
    const outOfDist = renames.filter(([from]) => !relative(dist, from).startsWith(".."));
    expect(outOfDist).toEqual([]);
    const intoDist = renames.map(([, to]) => relative(dist, to).split("\\").join("/")).sort();
    // The transaction's journal is renamed in once before the first artifact (and removed after the last).
    expect(intoDist.filter((path) => path === JOURNAL_FILE)).toEqual([JOURNAL_FILE]);
    expect(intoDist.filter((path) => path !== JOURNAL_FILE)).toEqual(result.written);
    expect(renames.findIndex(([, to]) => to.endsWith(JOURNAL_FILE))).toBe(0);
  });
});
