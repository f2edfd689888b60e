/**
 * Discovery never looks inside the build's own output folder, its staging
 * and lock, node_modules or .git, whatever the config's globs say. The case
 * (test/fixtures/build/deep-layout): an init scaffold with `skills: ["**"]`
 * and a skill whose supporting file sub/SKILL.md is shaped like a skill. A
 * build copies it to dist/skills/bundle/sub/SKILL.md; were dist/ searched, the
 * next run would find that copy as a skill of its own.
 */
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import { init } from "../../src/init.js";
import { lint } from "../../src/lint.js";
import { matchSkillFolders } from "../../src/pipeline/discover/skill-folders.js";
import { watch, type WatchBuildEvent, type WatchEvent, type WatchHandle } from "../../src/watch.js";
import { waitFor } from "../watch/helpers.js";
import { applyLayout, fixturesDir, removeTempDirs, tempDir } from "./helpers.js";

afterAll(removeTempDirs);
const open: WatchHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((handle) => handle.close()));
});

const CASE = join(fixturesDir, "deep-layout");

/** init, add the case's skills and its `skills` patterns. */
async function deepProject(): Promise<string> {
  const root = await tempDir();
  expect((await init({ dir: root })).ok).toBe(true);
  await cp(join(CASE, "skills"), join(root, "skills"), { recursive: true });
  await applyLayout(root, CASE);
  return root;
}

const skillNames = async (root: string): Promise<string[]> => (await lint({ root })).skills.map((skill) => skill.name).sort();

describe("a ** layout never finds the build's own output as skills", () => {
  it("builds twice to the same skills; check passes; lint finds the same set before and after", async () => {
    const root = await deepProject();
    const before = await skillNames(root);
    expect(before).toContain("bundle");
    expect(before).not.toContain("sub");

    const first = await build({ root });
    expect(first.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
    expect(first.ok).toBe(true);
    expect(first.manifest?.skills["bundle"]?.files).toEqual(["sub/SKILL.md"]);
    expect(await readFile(join(root, "dist/skills/bundle/sub/SKILL.md"))).toEqual(await readFile(join(root, "skills/bundle/sub/SKILL.md")));

    // The copy in dist/ is shaped like a skill; neither lint nor the next build takes it for one.
    expect(await skillNames(root)).toEqual(before);
    const second = await build({ root, persistentCache: false });
    expect(second.ok).toBe(true);
    expect(Object.keys(second.manifest?.skills ?? {}).sort()).toEqual(before);
    expect(second.written).toEqual([]);
    expect((await build({ root })).fromCache).toBe(true);
    const checked = await check({ root });
    expect(checked.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
    expect(checked.ok).toBe(true);
  });

  it("skips an output folder of another name, staging and lock folders, node_modules and .git", async () => {
    const root = await deepProject();
    const before = await skillNames(root);
    const built = await build({ root, outDir: "out" });
    expect(built.ok).toBe(true);
    for (const leftover of [".gamma-prompt-tmp-out-1-ab/new/skills/bundle", "node_modules/pkg/skills/bundle", ".git/skills/bundle"]) {
      await mkdir(join(root, leftover, "sub"), { recursive: true });
      await cp(join(root, "skills/bundle"), join(root, leftover), { recursive: true });
    }
    const expected = matchSkillFolders(root, { skills: ["skills/*"], ignore: [] });
    // Even patterns that spell the folders out find nothing in them.
    const layout = { skills: ["**", ".*/**", "node_modules/**", "out/**", "out/skills/bundle/*"], ignore: [], outDir: "out" };
    expect(matchSkillFolders(root, layout)).toEqual(expected);
    expect(Object.keys((await build({ root, outDir: "out", persistentCache: false })).manifest?.skills ?? {}).sort()).toEqual(before);
    expect((await check({ root, outDir: "out" })).ok).toBe(true);
  });

  it("watch rebuilds once per edit, not in a loop off its own output", async () => {
    const root = await deepProject();
    const events: WatchEvent[] = [];
    const handle = await watch({ root, onEvent: (event) => events.push(event) });
    open.push(handle);
    expect(events[0]).toMatchObject({ type: "initial", ok: true, errorCount: 0 });
    const rebuilds = () => events.filter((event): event is WatchBuildEvent => event.type === "rebuild");
    await writeFile(join(root, "skills/bundle/sub/SKILL.md"), (await readFile(join(root, "skills/bundle/sub/SKILL.md"), "utf8")).replace("# Helper", "# Helper step"));
    await waitFor("the rebuild after the edit", () => rebuilds().length > 0);
    expect(rebuilds()[0]).toMatchObject({ ok: true, changedPaths: ["skills/bundle/sub/SKILL.md"] });
    expect(rebuilds()[0]?.written).toContain("skills/bundle/sub/SKILL.md");
    // What that rebuild wrote to dist/ starts no other rebuild.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(rebuilds()).toHaveLength(1);
    expect(await skillNames(root)).not.toContain("sub");
  });
});
