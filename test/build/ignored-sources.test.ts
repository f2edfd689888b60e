/**
 * What a folder of sources holds that the build never reads (a note in a
 * sub-folder of knowledge/, a tool schema written as YAML, a note whose
 * extension is in capitals) is told with a warning, source/ignored-file,
 * rather than left out silently. Files for people, dotfiles and what editors
 * leave beside sources are not reported; the build's cache key covers the
 * entries, so a repeated build tells the same, and one after the entry left
 * no longer does.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { lint } from "../../src/lint.js";
import { copyProject, removeTempDirs } from "./helpers.js";

afterAll(removeTempDirs);

const NOTE = "---\nid: brand-logo\nscope: Use for logo placement in this workspace.\n---\n\nThe blue logo goes on dark backgrounds.\n";

const found = (diagnostics: ReadonlyArray<{ ruleId: string; file: string; severity: string; message: string }>) =>
  diagnostics.filter((diagnostic) => diagnostic.ruleId === "source/ignored-file").map((diagnostic) => [diagnostic.file, diagnostic.severity, diagnostic.message]);

describe("entries of a folder of sources that the build does not read", () => {
  it("are warnings naming each, the build goes on, and a repeated build says the same until the entry leaves", async () => {
    const root = await copyProject("basic");
    await mkdir(join(root, "knowledge", "brand"), { recursive: true });
    await writeFile(join(root, "knowledge", "brand", "logo.md"), NOTE);
    await writeFile(join(root, "knowledge", "Typography.MD"), NOTE);
    await writeFile(join(root, "schemas", "tools", "search.yaml"), "name: search\n");
    // Not reported: a file for people, a dotfile, an editor's backup.
    await writeFile(join(root, "schemas", "tools", "README.md"), "# Tools\n");
    await writeFile(join(root, "knowledge", ".DS_Store"), "");
    await writeFile(join(root, "prompts", "partials", "identity.hbs~"), "old\n");

    const expected = [
      ["knowledge/Typography.MD", "warning", "Unexpected file knowledge/Typography.MD that the build does not read (the extension is .md, in lower case), expected knowledge notes as knowledge/<id>.md, directly in knowledge/"],
      ["knowledge/brand", "warning", "Unexpected folder knowledge/brand/ that the build does not read, expected knowledge notes as knowledge/<id>.md, directly in knowledge/"],
      ["schemas/tools/search.yaml", "warning", "Unexpected file schemas/tools/search.yaml that the build does not read, expected tool schemas as schemas/tools/<name>.json, directly in schemas/tools/"],
    ];
    const first = await build({ root });
    expect(first.ok).toBe(true);
    expect(found(first.diagnostics)).toEqual(expected);
    expect(found((await lint({ root })).diagnostics)).toEqual(expected);

    const again = await build({ root });
    expect(found(again.diagnostics)).toEqual(expected);
    const manifest = await readFile(join(root, "dist", "manifest.json"), "utf8");

    await rm(join(root, "knowledge", "brand"), { recursive: true });
    const after = await build({ root });
    expect(found(after.diagnostics)).toEqual(expected.filter(([file]) => file !== "knowledge/brand"));
    // Nothing the build reads changed: the same artifacts.
    expect(await readFile(join(root, "dist", "manifest.json"), "utf8")).toBe(manifest);
  });
});
