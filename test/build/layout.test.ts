/**
 * build, check and watch find skills where lint does: the config's `skills`
 * globs and `ignore`, with lint's rules for dot folders and duplicate names.
 * The case: an init scaffold whose skills live in plugins/<plugin>/skills/,
 * laid out by test/fixtures/build/plugins-layout.
 */
import { cp, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import { init } from "../../src/init.js";
import { lint } from "../../src/lint.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { watch, type WatchBuildEvent, type WatchEvent, type WatchHandle } from "../../src/watch.js";
import { waitFor } from "../watch/helpers.js";
import { applyLayout, fixturesDir, removeTempDirs, tempDir } from "./helpers.js";

afterAll(removeTempDirs);
const open: WatchHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((handle) => handle.close()));
});

const CASE = join(fixturesDir, "plugins-layout");

/** init, move its skills into plugins/writing/skills/, add the case's plugins and its `skills`/`ignore`. */
async function pluginsProject(): Promise<string> {
  const root = await tempDir();
  expect((await init({ dir: root })).ok).toBe(true);
  await mkdir(join(root, "plugins/writing"), { recursive: true });
  await rename(join(root, "skills"), join(root, "plugins/writing/skills"));
  await cp(join(CASE, "plugins"), join(root, "plugins"), { recursive: true });
  await applyLayout(root, CASE);
  return root;
}

/** Each plugin of the plugins project declared by its own .claude-plugin/plugin.json. */
async function declarePlugins(root: string): Promise<void> {
  for (const plugin of ["writing", "review"]) {
    await mkdir(join(root, `plugins/${plugin}/.claude-plugin`), { recursive: true });
    await writeFile(join(root, `plugins/${plugin}/.claude-plugin/plugin.json`), JSON.stringify({ name: plugin }));
  }
}

/** A second skill named "proofread", in the writing plugin. */
async function copyProofreadIntoWriting(root: string): Promise<void> {
  await cp(join(root, "plugins/review/skills/proofread"), join(root, "plugins/writing/skills/proofread"), { recursive: true });
}

/** A good build, then a second "proofread" and the build that meets it, with the manifest the good one wrote. */
async function duplicateAfterAGoodBuild(root: string) {
  expect((await build({ root })).ok).toBe(true);
  const manifest = await readFile(join(root, "dist/manifest.json"));
  await copyProofreadIntoWriting(root);
  return { manifest, built: await build({ root }) };
}

const SKILLS = ["draft-outline", "proofread", "style-guide"];

describe("a plugins/*/skills/* layout", () => {
  it("builds every skill the layout names, with its supporting files; check and loadArtifacts pass", async () => {
    const root = await pluginsProject();
    const linted = await lint({ root });
    expect(linted.skills.map((skill) => skill.name)).toEqual(SKILLS);
    const built = await build({ root });
    expect(built.diagnostics).toEqual([]);
    expect(built.ok).toBe(true);
    // The dot folder and the ignored plugin are never read, as under lint.
    expect(Object.keys(built.manifest?.skills ?? {})).toEqual(SKILLS);
    expect(built.manifest?.skills["proofread"]?.files).toEqual(["scripts/count.py"]);
    expect(built.manifest?.skills["style-guide"]?.files).toEqual(["references/checklist.md"]);
    // The fixture's script has CRLF line endings, as a Windows checkout gives it: dist/ holds its LF text.
    expect(await readFile(join(root, "dist/skills/proofread/scripts/count.py"), "utf8")).toBe((await readFile(join(root, "plugins/review/skills/proofread/scripts/count.py"), "utf8")).replaceAll("\r\n", "\n"));
    expect((await readFile(join(root, "dist/catalog.xml"), "utf8")).match(/name="[^"]+"/g)).toEqual(SKILLS.map((name) => `name="${name}"`));

    const checked = await check({ root });
    expect(checked.diagnostics).toEqual([]);
    expect(checked.ok).toBe(true);
    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    expect([...artifacts.skills.keys()].sort()).toEqual(SKILLS);
    expect([...(artifacts.skills.get("proofread")?.files.keys() ?? [])]).toEqual(["scripts/count.py"]);

    // A second build with nothing changed is served by the persistent cache, which lists the same folders.
    expect((await build({ root })).fromCache).toBe(true);
    await writeFile(join(root, "plugins/review/skills/proofread/scripts/count.py"), "print(0)\n");
    const rebuilt = await build({ root });
    expect(rebuilt.fromCache).toBe(false);
    expect(rebuilt.written).toContain("skills/proofread/scripts/count.py");
    expect((await check({ root })).ok).toBe(true);
  });

  it("refuses two skills of one name across plugins, as lint does, and leaves dist/ as it was", async () => {
    const root = await pluginsProject();
    const { manifest, built } = await duplicateAfterAGoodBuild(root);
    expect(built.ok).toBe(false);
    const duplicates = built.diagnostics.filter((diagnostic) => diagnostic.ruleId === "skill/name-duplicate");
    expect(duplicates.map((diagnostic) => [diagnostic.file, diagnostic.related?.file])).toEqual((await lint({ root })).diagnostics.filter((d) => d.ruleId === "skill/name-duplicate").map((d) => [d.file, d.related?.file]));
    expect(duplicates).toHaveLength(1);
    expect(await readFile(join(root, "dist/manifest.json"))).toEqual(manifest);
    expect((await check({ root })).ok).toBe(false);
  });

  // A host of a plain collection names a plugin's skills plugin:skill; an agent loads a skill by its name alone
  // (the skill tool, dist/skills/<name>.md, the manifest), so there the plugins do not keep two skills apart.
  for (const [kind, mark] of [
    ["each plugin with .claude-plugin/plugin.json", declarePlugins],
    ["a marketplace's plugins", async (root: string) => {
      await mkdir(join(root, ".claude-plugin"), { recursive: true });
      await writeFile(join(root, ".claude-plugin/marketplace.json"), JSON.stringify({ name: "m", plugins: [{ name: "writing", source: "./plugins/writing" }, { name: "review", source: "./plugins/review" }] }));
    }],
  ] as const) {
    it(`refuses two skills of one name in two plugins (${kind}), naming both files, and leaves dist/ as it was`, async () => {
      const root = await pluginsProject();
      await mark(root);
      const { manifest, built } = await duplicateAfterAGoodBuild(root);
      expect(built.ok).toBe(false);
      const duplicates = built.diagnostics.filter((diagnostic) => diagnostic.ruleId === "skill/name-duplicate");
      expect(duplicates.map((diagnostic) => [diagnostic.severity, diagnostic.file, diagnostic.related?.file])).toEqual([["error", "plugins/writing/skills/proofread/SKILL.md", "plugins/review/skills/proofread/SKILL.md"]]);
      expect(duplicates[0]?.message).toContain("plugins/review/skills/proofread/SKILL.md");
      expect(await readFile(join(root, "dist/manifest.json"))).toEqual(manifest);
      expect((await check({ root })).ok).toBe(false);
      // lint says so too, under the agent's profile and under agentskills, as the project is an agent.
      for (const profile of ["gamma", "agentskills"] as const) {
        const linted = await lint({ root, profile });
        expect(linted.diagnostics.filter((diagnostic) => diagnostic.ruleId === "skill/name-duplicate").map((diagnostic) => [diagnostic.severity, diagnostic.file])).toEqual([["error", "plugins/writing/skills/proofread/SKILL.md"]]);
      }
      // The same skills as a plain collection (no agent files): its hosts keep them apart, and lint under agentskills lets them be.
      await rm(join(root, "prompts"), { recursive: true });
      expect((await lint({ root, profile: "agentskills" })).diagnostics.filter((diagnostic) => diagnostic.ruleId === "skill/name-duplicate")).toEqual([]);
    });
  }

  /** The plugins project with "proofread" in two plugins, each declared by its plugin.json. */
  async function proofreadInTwoPlugins(): Promise<string> {
    const root = await pluginsProject();
    await declarePlugins(root);
    await copyProofreadIntoWriting(root);
    return root;
  }

  it("keeps two skills of one name an error when the config's rules turn the rule off or down", async () => {
    const root = await proofreadInTwoPlugins();
    const configPath = join(root, "gamma-prompt.config.json");
    const config = JSON.parse(await readFile(configPath, "utf8")) as object;
    // The finding as the rule raises it: the other file and its plugin.
    const raised = (await build({ root })).diagnostics.find((diagnostic) => diagnostic.ruleId === "skill/name-duplicate")?.message;
    expect(raised).toBe(
      'Unexpected second skill named "proofread" (plugins/review/skills/proofread/SKILL.md has it too, in the plugin plugins/review/), expected unique names: an agent loads a skill by its name alone, whatever plugin holds it',
    );
    for (const setting of ["off", "warn", "note"]) {
      await writeFile(configPath, JSON.stringify({ ...config, rules: { "skill/name-duplicate": setting } }, null, 2));
      const built = await build({ root });
      expect(built.ok).toBe(false);
      const kept = built.diagnostics.filter((diagnostic) => diagnostic.ruleId === "skill/name-duplicate");
      expect(kept.map((diagnostic) => [diagnostic.severity, diagnostic.file, diagnostic.related?.file])).toEqual([
        ["error", "plugins/writing/skills/proofread/SKILL.md", "plugins/review/skills/proofread/SKILL.md"],
      ]);
      // Worded as the rule words it, plugin included, and why it stays an error.
      expect(kept[0]?.message).toBe(`${raised} (in an agent this finding stays an error whatever the config's rules or a suppression say)`);
      expect((await lint({ root })).errorCount).toBe(1);
    }
  });

  it("keeps two skills of one name an error with the rule turned off while either skill has another error", async () => {
    const root = await proofreadInTwoPlugins();
    const configPath = join(root, "gamma-prompt.config.json");
    const config = JSON.parse(await readFile(configPath, "utf8")) as object;
    await writeFile(configPath, JSON.stringify({ ...config, rules: { "skill/name-duplicate": "off" } }, null, 2));
    for (const plugin of ["review", "writing"]) {
      const skill = join(root, `plugins/${plugin}/skills/proofread/SKILL.md`);
      const before = await readFile(skill, "utf8");
      await writeFile(skill, `${before}\nSee [the notes](missing-notes.md).\n`);
      try {
        const linted = await lint({ root });
        expect(linted.diagnostics.map((diagnostic) => [diagnostic.ruleId, diagnostic.severity, diagnostic.file]), plugin).toEqual(
          expect.arrayContaining([
            ["skill/broken-link", "error", `plugins/${plugin}/skills/proofread/SKILL.md`],
            ["skill/name-duplicate", "error", "plugins/writing/skills/proofread/SKILL.md"],
          ]),
        );
        expect(linted.errorCount, plugin).toBe(2);
      } finally {
        await writeFile(skill, before);
      }
    }
  });

  it("refuses an output folder inside a skill folder of the layout", async () => {
    const root = await pluginsProject();
    await expect(build({ root, outDir: "plugins/review/skills/proofread/dist" })).rejects.toThrow(/inside the source folder plugins\/review\/skills\/proofread\//);
  });

  it("watch rebuilds on a real edit to a supporting file under plugins/", async () => {
    const root = await pluginsProject();
    const events: WatchEvent[] = [];
    const handle = await watch({ root, onEvent: (event) => events.push(event) });
    open.push(handle);
    expect(events[0]).toMatchObject({ type: "initial", ok: true, errorCount: 0 });
    const rebuilds = () => events.filter((event): event is WatchBuildEvent => event.type === "rebuild");
    const script = join(root, "plugins/review/skills/proofread/scripts/count.py");
    await writeFile(script, "print('edited')\n");
    await waitFor("the rebuild after the script edit", () => rebuilds().some((event) => event.written.includes("skills/proofread/scripts/count.py")));
    expect(rebuilds().at(-1)).toMatchObject({ ok: true, changedPaths: ["plugins/review/skills/proofread/scripts/count.py"] });
    expect(await readFile(join(root, "dist/skills/proofread/scripts/count.py"), "utf8")).toBe("print('edited')\n");
    // A plugin folder the config starts naming while watch runs is watched from then on.
    await mkdir(join(root, "extra/skills"), { recursive: true });
    await cp(join(root, "plugins/review/skills/proofread"), join(root, "extra/skills/proofread-extra"), { recursive: true });
    const extra = join(root, "extra/skills/proofread-extra/SKILL.md");
    await writeFile(extra, (await readFile(extra, "utf8")).replace("name: proofread", "name: proofread-extra"));
    const configPath = join(root, "gamma-prompt.config.json");
    const config = JSON.parse(await readFile(configPath, "utf8")) as { skills: string[] };
    await writeFile(configPath, JSON.stringify({ ...config, skills: [...config.skills, "extra/skills/*"] }, null, 2));
    await waitFor("the rebuild after the config edit", () => rebuilds().some((event) => event.written.includes("skills/proofread-extra.md")));
    // The watcher scans the new folder in the background: an edit made while it scans counts as already there, so edit until one is seen.
    const edited = join(root, "extra/skills/proofread-extra/scripts/count.py");
    const seen = () => rebuilds().some((event) => event.changedPaths.includes("extra/skills/proofread-extra/scripts/count.py") && event.ok);
    for (let attempt = 1; !seen(); attempt++) {
      await writeFile(edited, `print('extra ${attempt}')\n`);
      await waitFor("the rebuild after an edit in the new folder", seen, 2_000).catch((error: unknown) => {
        if (attempt === 5) throw error;
      });
    }
    expect(await readFile(join(root, "dist/skills/proofread-extra/scripts/count.py"), "utf8")).toBe(await readFile(edited, "utf8"));
    await rm(join(root, "extra"), { recursive: true });
  });
});

describe("a skills pattern that leaves the project", () => {
  it("is config/invalid at the pattern, never searched: no skill or link finding for the folder beside the project", async () => {
    const top = await tempDir();
    const root = join(top, "proj");
    await mkdir(join(top, "sib"), { recursive: true });
    await writeFile(join(top, "sib/SKILL.md"), "---\nname: sib\ndescription: Use when x.\n---\n\nbody\n");
    await mkdir(join(root, "skills/a"), { recursive: true });
    await writeFile(join(root, "skills/a/SKILL.md"), "---\nname: a\ndescription: Use when x.\n---\n\nbody\n");
    await writeFile(join(root, "gamma-prompt.config.json"), '{"profile":"agentskills","skills":["skills/*","../*"]}\n');
    const built = await build({ root });
    expect(built.diagnostics.filter((diagnostic) => diagnostic.ruleId === "config/invalid" || diagnostic.file.startsWith("../")).map((diagnostic) => [diagnostic.ruleId, diagnostic.file, diagnostic.line, diagnostic.column])).toEqual([["config/invalid", "gamma-prompt.config.json", 1, 47]]);
    for (const outcome of [await lint({ root })]) {
      expect(outcome.diagnostics.map((diagnostic) => [diagnostic.ruleId, diagnostic.file, diagnostic.line, diagnostic.column, diagnostic.message])).toEqual([
        [
          "config/invalid",
          "gamma-prompt.config.json",
          1,
          47,
          'Unexpected pattern "../*" in skills that leaves the project root, expected a folder or glob inside the project (skills are found only there; this pattern was not searched)',
        ],
      ]);
    }
  });
});
