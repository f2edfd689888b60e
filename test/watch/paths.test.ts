import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isIgnoredSource, layoutTopFolders, toRootRelative } from "../../src/watch/paths.js";

describe("which paths trigger a rebuild", () => {
  it.each([
    ["", false], // the root itself, so the watcher descends into it
    ["skills", false],
    ["skills/import/SKILL.md", false],
    ["prompts/partials/identity.hbs", false],
    ["prompts/variants.yaml", false],
    ["schemas/tools/read.json", false],
    ["gamma-prompt.config.json", false],
    ["dist", true],
    ["dist/manifest.json", true],
    ["node_modules/chokidar/index.js", true],
    ["README.md", true],
    ["src/index.ts", true],
    ["skills/.DS_Store", true],
    ["skills/import/.SKILL.md.swp", true],
    ["skills/import/SKILL.md.swx", true],
    ["skills/import/SKILL.md~", true],
    ["skills/import/4913", true],
    ["skills/import/#SKILL.md#", true],
    ["skills/import/.#SKILL.md", true],
    ["skills/import/sedQcwuwi", true], // GNU sed -i's temporary file
    ["skills/import/SKILL.md___jb_tmp___", true], // JetBrains' safe write
    ["skills/import/SKILL.md___jb_old___", true],
    ["skills/sed-helper/SKILL.md", false],
    ["skills/import/sedation.md", false],
    ["skills/import/sediments", false], // a word, not sed's random name
    ["skills/import/scripts/__pycache__/fill.cpython-311.pyc", true],
    ["skills/import/backup~/notes.md", false], // a folder's name ending in ~ is no editor's backup file
    ["skills/.gamma-prompt-tmp-123", true],
    ["skills/node_modules/x/SKILL.md", true],
    [".git/index", true],
  ])("%s ignored: %s", (path, ignored) => {
    expect(isIgnoredSource(path, "dist")).toBe(ignored);
  });

  it("ignores a scratch file's name only for a file: a skill or supporting folder may be named so, and is watched", () => {
    for (const name of ["skills/sedan2024", "skills/import/references/v1.orig", "skills/4913", "skills/import/old~"]) {
      expect(isIgnoredSource(name, "dist", [], "folder"), name).toBe(false);
      // Asked before the watcher knows what it is: not ignored yet, judged again with its stats.
      expect(isIgnoredSource(name, "dist", [], "unknown"), name).toBe(false);
    }
    expect(isIgnoredSource("skills/sedan2024/SKILL.md", "dist")).toBe(false);
    expect(isIgnoredSource("skills/import/sedQcwuwi", "dist", [], "file")).toBe(true);
  });

  it("watches the folders the config's skill layout starts with, and everything when a pattern starts with a glob", () => {
    expect(layoutTopFolders({ skills: ["plugins/*/skills/*", "./extra/skills/*"], ignore: [] })).toEqual(["extra", "plugins"]);
    expect(layoutTopFolders({ skills: ["*/skills/*"], ignore: [] })).toBe("any");
    expect(isIgnoredSource("plugins/docs/skills/pdf/SKILL.md", "dist")).toBe(true);
    expect(isIgnoredSource("plugins/docs/skills/pdf/SKILL.md", "dist", ["plugins"])).toBe(false);
    expect(isIgnoredSource("plugins/docs/skills/pdf/.SKILL.md.swp", "dist", ["plugins"])).toBe(true);
    expect(isIgnoredSource("anywhere/SKILL.md", "dist", "any")).toBe(false);
    expect(isIgnoredSource("dist/manifest.json", "dist", "any")).toBe(true);
  });

  it("ignores an output folder placed inside a watched folder", () => {
    expect(isIgnoredSource("prompts/out/prefix.md", "prompts/out")).toBe(true);
    expect(isIgnoredSource("prompts/outline.hbs", "prompts/out")).toBe(false);
  });

  it("maps absolute paths to root-relative POSIX paths and rejects paths outside the root", () => {
    const root = join("/", "projects", "my agent");
    expect(toRootRelative(root, join(root, "skills", "a", "SKILL.md"))).toBe("skills/a/SKILL.md");
    expect(toRootRelative(root, root)).toBe("");
    expect(toRootRelative(root, join("/", "projects", "other"))).toBeUndefined();
    expect(toRootRelative(root, join(root, "..foo"))).toBe("..foo");
  });
});
