import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build, createBuildCache, type BuildResult } from "../../src/build.js";
import { PROJECT_SOURCES } from "../../src/pipeline/discover/project-sources.js";
import { copyProject, removeTempDirs, snapshotTree } from "./helpers.js";
import { tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

describe("the persistent build cache", () => {
  it("answers a no-change build from the cache, with the same diagnostics and summary", async () => {
    const root = await copyProject("basic");
    const cold = await build({ root });
    expect(cold.fromCache).toBe(false);
    expect(await readdir(join(root, "node_modules/.cache/gamma-prompt"))).toHaveLength(1);
    const warm = await build({ root });
    expect(warm.fromCache).toBe(true);
    expect(warm.ok).toBe(true);
    expect(warm.written).toEqual([]);
    expect(warm.unchanged).toEqual(cold.written);
    expect(warm.diagnostics).toEqual(cold.diagnostics);
    expect(warm.summary).toEqual(cold.summary);
    expect(warm.manifest).toEqual(cold.manifest);
  });

  it("keeps the record of an agent folder inside a package in that package's node_modules, never making the agent folder look like a package", async () => {
    // packages/agent-c/package.json with the agent in packages/agent-c/agent/: npm takes a folder with a node_modules as a package root.
    const repository = await tempDir("gamma cache package");
    await mkdir(join(repository, ".git"));
    const pkg = join(repository, "packages", "agent-c");
    const agent = await copyProject("basic", join(pkg, "agent"));
    await writeFile(join(pkg, "package.json"), '{ "name": "agent-c", "private": true }\n');
    const own = await copyProject("basic", join(repository, "other"));
    const cold = await build({ root: agent });
    expect(cold.fromCache).toBe(false);
    expect(existsSync(join(agent, "node_modules"))).toBe(false);
    expect(await readdir(join(pkg, "node_modules/.cache/gamma-prompt"))).toHaveLength(1);
    expect((await build({ root: agent })).fromCache).toBe(true);
    // With no package.json above it (up to the repository's top), the record stays in the root, as for a package.
    expect((await build({ root: own })).fromCache).toBe(false);
    expect(await readdir(join(own, "node_modules/.cache/gamma-prompt"))).toHaveLength(1);
    expect(existsSync(join(repository, "node_modules"))).toBe(false);
  });

  it("never trusts the cache over dist/: a tampered artifact is rebuilt", async () => {
    const root = await copyProject("basic");
    await build({ root });
    const expected = await snapshotTree(join(root, "dist"));
    await writeFile(join(root, "dist/prefix.md"), "tampered\n");
    const result = await build({ root });
    expect(result.fromCache).toBe(false);
    expect(result.written).toEqual(["prefix.md"]);
    expect(await snapshotTree(join(root, "dist"))).toEqual(expected);
  });

  it("renders again when any source changes, and ignores a corrupt cache file", async () => {
    const root = await copyProject("basic");
    await build({ root });
    const intro = join(root, "prompts/partials/intro.hbs");
    await writeFile(intro, `${await readFile(intro, "utf8")}Be brief.\n`);
    const changed = await build({ root });
    expect(changed.fromCache).toBe(false);
    expect(changed.written).toContain("prefix.md");
    const [file] = await readdir(join(root, "node_modules/.cache/gamma-prompt"));
    await writeFile(join(root, "node_modules/.cache/gamma-prompt", file as string), "{not json");
    const again = await build({ root });
    expect(again.ok).toBe(true);
    expect(again.fromCache).toBe(false);
    expect(again.written).toEqual([]);
  });

  it("looks again at every path outside the sources a finding depends on: a link target removed after a build fails the next one", async () => {
    const root = await copyProject("basic");
    const skillFindings = (result: BuildResult): Array<[string, string]> =>
      result.diagnostics.filter((diagnostic) => diagnostic.ruleId.startsWith("skill/")).map((diagnostic) => [diagnostic.ruleId, diagnostic.severity]);
    const skill = join(root, "skills/card-style/SKILL.md");
    await writeFile(skill, `${await readFile(skill, "utf8")}\nSee [the notes](../../NOTES.md).\n`);
    await writeFile(join(root, "NOTES.md"), "Notes for people.\n");
    const first = await build({ root });
    expect(first.ok).toBe(true);
    expect(skillFindings(first)).toEqual([["skill/link-outside-skill", "warning"]]);
    const dist = await snapshotTree(join(root, "dist"));
    // NOTES.md is no source: the sources and dist/ are unchanged, only the link's target is gone.
    await rm(join(root, "NOTES.md"));
    const second = await build({ root });
    expect(second.fromCache).toBe(false);
    expect(second.ok).toBe(false);
    expect(skillFindings(second)).toEqual([["skill/broken-link", "error"]]);
    expect(await snapshotTree(join(root, "dist"))).toEqual(dist);
  });

  it("looks again at a file a path mention did not find: once it exists, the finding is gone", async () => {
    const root = await copyProject("basic");
    const skill = join(root, "skills/card-style/SKILL.md");
    await writeFile(skill, `${await readFile(skill, "utf8")}\nThe palette is in references/palette.md.\n`);
    const first = await build({ root });
    expect(first.diagnostics.map((diagnostic) => diagnostic.ruleId)).toContain("skill/unresolved-path");
    expect((await build({ root })).fromCache).toBe(true);
    // The project's own references/ folder, above the skill's: no source of the build.
    await mkdir(join(root, "references"));
    await writeFile(join(root, "references/palette.md"), "Blue.\n");
    const after = await build({ root });
    expect(after.fromCache).toBe(false);
    expect(after.ok).toBe(true);
    expect(after.diagnostics.map((diagnostic) => diagnostic.ruleId)).not.toContain("skill/unresolved-path");
  });

  // Every file used to list and sort its whole folder while the key was computed: 20,000 files took tens of minutes.
  it("keys a skill folder of 20,000 supporting files: a no-change build comes from the cache, a new file in it does not", async () => {
    const root = await copyProject("basic");
    const bulk = join(root, "skills/card-style/references/bulk");
    await mkdir(bulk, { recursive: true });
    for (let index = 0; index < 20_000; index++) await writeFile(join(bulk, `f${index}.md`), `note ${index}\n`);
    // A folder without SKILL.md is keyed by its listing.
    await mkdir(join(root, "skills/loose/references"), { recursive: true });
    await writeFile(join(root, "skills/loose/references/a.md"), "a\n");
    const cold = await build({ root });
    expect(cold.fromCache).toBe(false);
    expect(cold.written.filter((path) => path.includes("/references/bulk/"))).toHaveLength(20_000);
    const warm = await build({ root });
    expect(warm.fromCache).toBe(true);
    expect(warm.diagnostics).toEqual(cold.diagnostics);
    await writeFile(join(bulk, "added.md"), "added\n");
    const added = await build({ root });
    expect(added.fromCache).toBe(false);
    expect(added.written.filter((path) => path.includes("/references/bulk/"))).toEqual([expect.stringMatching(/\/references\/bulk\/added\.md$/)]);
    await writeFile(join(root, "skills/loose/references/b.md"), "b\n");
    expect((await build({ root })).fromCache).toBe(false);
    expect((await build({ root })).fromCache).toBe(true);
  }, 120_000);

  it("reuses an in-memory cache across builds and re-reads only the changed prompt sources", async () => {
    const root = await copyProject("basic");
    const cache = createBuildCache();
    const first = await build({ root, cache, persistentCache: false });
    expect(first.ok).toBe(true);
    expect(cache.keep(PROJECT_SOURCES, () => new Map()).size).toBeGreaterThan(0);
    const intro = join(root, "prompts/partials/intro.hbs");
    await writeFile(intro, `${await readFile(intro, "utf8")}Be brief.\n`);
    // Not listed as changed: the cached text is used, so the output does not move.
    const stale = await build({ root, cache, persistentCache: false, changedPaths: ["skills/card-style/SKILL.md"] });
    expect(stale.written).toEqual([]);
    const fresh = await build({ root, cache, persistentCache: false, changedPaths: ["prompts/partials/intro.hbs"] });
    expect(fresh.written).toContain("prefix.md");
  });
});
