/**
 * A source edited while a build runs: the build snapshots its sources before
 * reading them and compares again just before writing dist/. The edit is
 * made from inside the compile step (the real compile, wrapped), so it lands
 * in the window every time instead of by timing luck.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { build, createBuildCache } from "../../src/build.js";
import { check } from "../../src/check.js";
import { copyProject, removeTempDirs, snapshotTree } from "../build/helpers.js";

const edits = vi.hoisted(() => ({ remaining: 0, file: "", counter: 0 }));
vi.mock("../../src/pipeline/compile/compile.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/pipeline/compile/compile.js")>();
  const { appendFileSync } = await import("node:fs");
  return {
    ...actual,
    compileProject: async (...args: Parameters<typeof actual.compileProject>) => {
      const compiled = await actual.compileProject(...args);
      if (edits.remaining > 0) {
        edits.remaining--;
        appendFileSync(edits.file, `- Edit ${++edits.counter} made during the build.\n`);
      }
      return compiled;
    },
  };
});

afterAll(removeTempDirs);

describe("a source edited during the build", () => {
  it("makes the build start over once and write what the sources now say", async () => {
    const root = await copyProject("basic");
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    edits.file = join(root, "skills/card-style/SKILL.md");
    edits.remaining = 1;
    const result = await build({ root });
    expect(result.ok).toBe(true);
    expect(await readFile(join(root, "dist/skills/card-style.md"), "utf8")).toContain("made during the build.");
    expect((await check({ root })).ok).toBe(true);
  });

  it("in a watch rebuild, notices an edit to a file the rebuild re-read and starts over", async () => {
    const root = await copyProject("basic");
    const cache = createBuildCache();
    expect((await build({ root, cache, persistentCache: false })).ok).toBe(true);
    edits.file = join(root, "skills/card-style/SKILL.md");
    // The save the watcher reported, then one more while the rebuild runs.
    await writeFile(edits.file, `${await readFile(edits.file, "utf8")}- Saved before the rebuild.\n`);
    edits.remaining = 1;
    const result = await build({ root, cache, persistentCache: false, changedPaths: ["skills/card-style/SKILL.md"] });
    expect(result.ok).toBe(true);
    expect(await readFile(join(root, "dist/skills/card-style.md"), "utf8")).toContain("made during the build.");
    expect((await check({ root })).ok).toBe(true);
  });

  it("fails with source/changed-during-build when the sources change again, and leaves dist/ as it was", async () => {
    const root = await copyProject("basic");
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const before = await snapshotTree(join(root, "dist"));
    edits.file = join(root, "skills/card-style/SKILL.md");
    edits.remaining = 2;
    const result = await build({ root, persistentCache: false });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.filter((d) => d.severity === "error").map((d) => [d.file, d.ruleId])).toEqual([["dist", "source/changed-during-build"]]);
    expect(await snapshotTree(join(root, "dist"))).toEqual(before);
  });
});
