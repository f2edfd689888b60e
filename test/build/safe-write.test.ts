import { mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import { ProjectRootError } from "../../src/pipeline/discover/discover.js";
import { copyProject, removeTempDirs, snapshotTree } from "./helpers.js";

afterAll(removeTempDirs);

async function builtProject(): Promise<string> {
  const root = await copyProject("basic");
  const first = await build({ root, persistentCache: false });
  expect(first.ok).toBe(true);
  return root;
}

async function inodes(dir: string, files: string[]): Promise<Record<string, [number, number]>> {
  const found: Record<string, [number, number]> = {};
  for (const file of files) {
    const info = await stat(join(dir, file));
    found[file] = [info.ino, info.mtimeMs];
  }
  return found;
}

describe("safe writing of dist/", () => {
  it("leaves dist/ byte-for-byte as it was when the sources have an error, with no temporary files", async () => {
    const root = await builtProject();
    const before = await snapshotTree(join(root, "dist"));
    const siblingsBefore = (await readdir(dirname(join(root, "dist")))).sort();
    await writeFile(join(root, "prompts/prefix.hbs"), "{{> intro}}\n{{catalog}}\n{{> nowhere}}\n");
    const result = await build({ root, persistentCache: false });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => d.ruleId)).toContain("template/unknown-partial");
    expect(await snapshotTree(join(root, "dist"))).toEqual(before);
    expect((await readdir(dirname(join(root, "dist")))).sort()).toEqual(siblingsBefore);
  });

  it("puts every original back when a write fails halfway (a folder blocks one artifact's path)", async () => {
    const root = await builtProject();
    await rm(join(root, "dist/tools.json"));
    await mkdir(join(root, "dist/tools.json"));
    const before = await snapshotTree(join(root, "dist"));
    const siblingsBefore = (await readdir(dirname(join(root, "dist")))).sort();
    // Changes the catalog, so prefix.md and catalog.xml are replaced before tools.json fails.
    await writeFile(join(root, "skills/card-style/SKILL.md"), "---\nname: card-style\ntype: reference\ndescription: Use when writing card text.\n---\n\n# Card style\n");
    const result = await build({ root, persistentCache: false });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.find((d) => d.severity === "error")).toMatchObject({ ruleId: "dist/write-failed", file: "dist/tools.json" });
    expect(await snapshotTree(join(root, "dist"))).toEqual(before);
    expect((await stat(join(root, "dist/tools.json"))).isDirectory()).toBe(true);
    expect((await readdir(dirname(join(root, "dist")))).sort()).toEqual(siblingsBefore);
  });

  it("does not rewrite unchanged files and rewrites only what changed", async () => {
    const root = await builtProject();
    const files = Object.keys(await snapshotTree(join(root, "dist")));
    const before = await inodes(join(root, "dist"), files);
    const again = await build({ root, persistentCache: false });
    expect(again.written).toEqual([]);
    expect(again.unchanged).toEqual(files);
    expect(await inodes(join(root, "dist"), files)).toEqual(before);

    await writeFile(join(root, "skills/card-style/SKILL.md"), "---\nname: card-style\ntype: reference\ndescription: Use when writing card text.\n---\n\n# Card style\n\n- Titles are short.\n");
    const changed = await build({ root, persistentCache: false });
    expect(changed.ok).toBe(true);
    // The description and the body changed: catalog, prefix, every variant, the skill body, the manifest.
    expect(changed.written).toContain("skills/card-style.md");
    expect(changed.written).toContain("manifest.json");
    expect(changed.unchanged).toContain("skills/outline-deck.md");
    expect(changed.unchanged).toContain("tools.json");
    const after = await inodes(join(root, "dist"), ["skills/outline-deck.md", "tools.json"]);
    expect(after["tools.json"]).toEqual(before["tools.json"]);
    expect(changed.prefixChanged).toBe(true);
  });

  it("removes files that no longer belong and the folders they leave empty", async () => {
    const root = await builtProject();
    await mkdir(join(root, "dist/old"), { recursive: true });
    await writeFile(join(root, "dist/old/stale.md"), "stale\n");
    await writeFile(join(root, "dist/variants/retired.md"), "retired\n");
    const result = await build({ root, persistentCache: false });
    expect(result.removed).toEqual(["old/stale.md", "variants/retired.md"]);
    expect(await readdir(join(root, "dist"))).not.toContain("old");
    expect(await readdir(join(root, "dist/variants"))).not.toContain("retired.md");
  });

  it("never deletes files in an output folder it did not write (no manifest.json)", async () => {
    const root = await copyProject("basic");
    await mkdir(join(root, "dist"), { recursive: true });
    await writeFile(join(root, "dist/notes.txt"), "mine\n");
    const result = await build({ root, persistentCache: false });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.find((d) => d.severity === "error")).toMatchObject({ ruleId: "dist/not-owned", file: "dist/notes.txt" });
    expect(await snapshotTree(join(root, "dist"))).toEqual({ "notes.txt": Buffer.from("mine\n").toString("base64") });
  });

  it("refuses an output folder that holds the sources (the root or above it), even one with a manifest.json", async () => {
    const root = await copyProject("basic");
    await writeFile(join(root, "manifest.json"), '{"artifacts":{}}\n');
    const before = await snapshotTree(root);
    await expect(build({ root, outDir: ".", persistentCache: false })).rejects.toBeInstanceOf(ProjectRootError);
    await expect(build({ root, outDir: "..", persistentCache: false })).rejects.toBeInstanceOf(ProjectRootError);
    expect(await snapshotTree(root)).toEqual(before);
  });

  it.each(["skills", "prompts", "schemas", "knowledge"])("refuses an output folder inside the source folder %s/, whose artifacts would become sources of the next build", async (folder) => {
    const root = await copyProject("basic");
    await mkdir(join(root, folder), { recursive: true });
    const before = await snapshotTree(root);
    const refused = build({ root, outDir: `${folder}/out`, persistentCache: false });
    await expect(refused).rejects.toBeInstanceOf(ProjectRootError);
    await expect(refused).rejects.toThrow(`output folder "${folder}/out" is inside the source folder ${folder}/, expected a folder of its own such as "dist"`);
    // check refuses it the same way: it would report the sources there as artifacts to remove, and ask for a build that is refused.
    const checked = check({ root, outDir: `${folder}/out` });
    await expect(checked).rejects.toBeInstanceOf(ProjectRootError);
    await expect(checked).rejects.toThrow(`output folder "${folder}/out" is inside the source folder ${folder}/, expected a folder of its own such as "dist"`);
    expect(await snapshotTree(root)).toEqual(before);
  });

  it("reports prefixChanged only when the cacheable prefix (prefix text or tool schemas) changes", async () => {
    const root = await builtProject();
    await writeFile(join(root, "skills/outline-deck/SKILL.md"), "---\nname: outline-deck\ntype: workflow\ndescription: TRIGGER for every request to outline a new deck, including one that names only a topic.\nrequiresSkills: [card-style]\nconflictsWith: [import-file]\n---\n\n# Outline a deck\n\n1. Read the request.\n2. Write one line per card.\n3. Verify every card has a title.\n");
    const bodyOnly = await build({ root, persistentCache: false });
    expect(bodyOnly.written).toContain("variants/deck-generation.md");
    expect(bodyOnly.written).not.toContain("prefix.md");
    expect(bodyOnly.prefixChanged).toBe(false);
    await writeFile(join(root, "schemas/tools/order.json"), '["message_user", "read_workspace_rule", "skill", "todo"]\n');
    const toolsOnly = await build({ root, persistentCache: false });
    expect(toolsOnly.written).toContain("tools.json");
    expect(toolsOnly.prefixChanged).toBe(true);
  });
});
