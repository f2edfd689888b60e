import { cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build, createBuildCache, type BuildResult } from "../../src/build.js";
import { copyProject, fixturesDir, listFiles, removeTempDirs, snapshotTree, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

const casesDir = join(fixturesDir, "incremental");

/** Lays a case folder over the project: every file is written, the paths in remove.json are deleted. */
async function applyCase(root: string, caseDir: string): Promise<string[]> {
  const changed: string[] = [];
  for (const file of await listFiles(caseDir)) {
    if (file === "remove.json") continue;
    await mkdir(dirname(join(root, file)), { recursive: true });
    await writeFile(join(root, file), await readFile(join(caseDir, file)));
    changed.push(file);
  }
  const removals = JSON.parse(await readFile(join(caseDir, "remove.json"), "utf8").catch(() => "[]")) as string[];
  for (const file of removals) {
    await rm(dirname(join(root, file)), { recursive: true });
    changed.push(file);
  }
  return changed;
}

/** A fresh copy of the project's sources, built once with no cache of any kind. */
async function cleanBuild(root: string): Promise<{ result: BuildResult; dist: Record<string, string> }> {
  const clean = join(await tempDir(), "clean");
  for (const part of ["skills", "prompts", "schemas", "gamma-prompt.config.json"]) {
    await cp(join(root, part), join(clean, part), { recursive: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }
  const result = await build({ root: clean, persistentCache: false });
  return { result, dist: await snapshotTree(join(clean, "dist")) };
}

describe("incremental builds (watch mode)", () => {
  it("give exactly the bytes, diagnostics and figures of a clean build after every kind of edit", async () => {
    const root = await copyProject("basic");
    const cache = createBuildCache();
    const first = await build({ root, cache, persistentCache: false });
    expect(first.ok).toBe(true);
    let lastGood = await snapshotTree(join(root, "dist"));

    const cases = (await readdir(casesDir)).sort();
    expect(cases.length).toBeGreaterThanOrEqual(12);
    for (const name of cases) {
      const changedPaths = await applyCase(root, join(casesDir, name));
      const incremental = await build({ root, cache, changedPaths, persistentCache: false });
      const clean = await cleanBuild(root);
      const context = `after case ${name}`;
      expect(incremental.ok, context).toBe(clean.result.ok);
      expect(incremental.diagnostics, context).toEqual(clean.result.diagnostics);
      expect(incremental.manifest, context).toEqual(clean.result.manifest);
      if (clean.result.ok) {
        expect(await snapshotTree(join(root, "dist")), context).toEqual(clean.dist);
        lastGood = clean.dist;
      } else {
        // A failed build leaves the last good dist/ untouched.
        expect(await snapshotTree(join(root, "dist")), context).toEqual(lastGood);
      }
    }
  });

  it("checks every skill's unreferenced files anew once the rule is turned on again: what was removed while it was off is not reported", async () => {
    const root = await copyProject("basic");
    const cache = createBuildCache();
    const step = async (changedPaths: string[]) => {
      const incremental = await build({ root, cache, changedPaths, persistentCache: false });
      const clean = await cleanBuild(root);
      expect(incremental.diagnostics, changedPaths.join(", ")).toEqual(clean.result.diagnostics);
      return incremental;
    };
    expect((await build({ root, cache, persistentCache: false })).ok).toBe(true);
    const extra = "skills/card-style/references/extra.md";
    await mkdir(join(root, "skills/card-style/references"), { recursive: true });
    await writeFile(join(root, extra), "# Extra\n");
    expect((await step([extra])).diagnostics.map((diagnostic) => diagnostic.ruleId)).toContain("skill/unreferenced-file");
    await writeFile(join(root, "gamma-prompt.config.json"), `${JSON.stringify({ rules: { "skill/unreferenced-file": "off" } })}\n`);
    await step(["gamma-prompt.config.json"]);
    await rm(join(root, "skills/card-style/references"), { recursive: true });
    await step([extra]);
    await writeFile(join(root, "gamma-prompt.config.json"), `${JSON.stringify({ rules: { "skill/unreferenced-file": "error" } })}\n`);
    const on = await step(["gamma-prompt.config.json"]);
    expect(on.diagnostics.map((diagnostic) => diagnostic.ruleId)).not.toContain("skill/unreferenced-file");
  });

  it("notices a dist/ file changed behind its back and writes it again", async () => {
    const root = await copyProject("basic");
    const cache = createBuildCache();
    await build({ root, cache, persistentCache: false });
    const expected = await snapshotTree(join(root, "dist"));
    await writeFile(join(root, "dist/skills/card-style.md"), "edited by hand\n");
    await writeFile(join(root, "dist/variants/import.md"), "edited by hand\n");
    const result = await build({ root, cache, persistentCache: false });
    expect(result.written).toEqual(["skills/card-style.md", "variants/import.md"]);
    expect(await snapshotTree(join(root, "dist"))).toEqual(expected);
  });

  it("trusts its own unchanged files on a watch rebuild, rewrites missing ones, and repairs hand edits on the next full build", async () => {
    const root = await copyProject("basic");
    const cache = createBuildCache();
    await build({ root, cache, persistentCache: false });
    const expected = await snapshotTree(join(root, "dist"));
    await writeFile(join(root, "dist/skills/card-style.md"), "edited by hand\n");
    await rm(join(root, "dist/variants/import.md"));
    // A rebuild with changed paths (watch mode) does not even stat files whose bytes it would not change...
    const rebuild = await build({ root, cache, changedPaths: ["prompts/variants.yaml"], persistentCache: false });
    expect(rebuild.written).toEqual(["variants/import.md"]);
    expect(await readFile(join(root, "dist/skills/card-style.md"), "utf8")).toBe("edited by hand\n");
    // ...while a build without the hint, with the same cache, checks every file again.
    const full = await build({ root, cache, persistentCache: false });
    expect(full.written).toEqual(["skills/card-style.md"]);
    expect(await snapshotTree(join(root, "dist"))).toEqual(expected);
  });

  it("re-reads a skill named in the changed paths and reuses the others unread", async () => {
    const root = await copyProject("basic");
    const cache = createBuildCache();
    await build({ root, cache, persistentCache: false });
    const skill = join(root, "skills/card-style/SKILL.md");
    const text = await readFile(skill, "utf8");
    await writeFile(skill, text.replace("Bullets start with a verb.", "Bullets start with a strong verb."));
    const unlisted = await build({ root, cache, changedPaths: ["prompts/variants.yaml"], persistentCache: false });
    expect(unlisted.written).toEqual([]);
    const listed = await build({ root, cache, changedPaths: ["skills/card-style/SKILL.md"], persistentCache: false });
    expect(listed.written).toEqual(["cache-plan.json", "manifest.json", "skills/card-style.md", "variants/deck-generation.md"]);
  });
});
