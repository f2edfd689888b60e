import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import type { DistManifest } from "../../src/protocol/dist-manifest.js";
import { copyProject, fixturesDir, listFiles, removeTempDirs, repoRoot, updateGolden } from "./helpers.js";

afterAll(removeTempDirs);

const expectedDir = join(fixturesDir, "basic/expected");

describe("golden build of the basic fixture project", () => {
  it("writes exactly the expected dist/ files, byte for byte, and reports the expected diagnostics", async () => {
    const root = await copyProject("basic");
    const result = await build({ root, persistentCache: false });
    expect(result.ok).toBe(true);
    const produced = await listFiles(join(root, "dist"));
    if (updateGolden) {
      await rm(join(expectedDir, "dist"), { recursive: true, force: true });
      for (const file of produced) {
        await mkdir(dirname(join(expectedDir, "dist", file)), { recursive: true });
        await writeFile(join(expectedDir, "dist", file), await readFile(join(root, "dist", file)));
      }
      await writeFile(join(expectedDir, "diagnostics.json"), `${JSON.stringify(result.diagnostics, null, 2)}\n`);
    }
    expect(produced).toEqual(await listFiles(join(expectedDir, "dist")));
    for (const file of produced) {
      const actual = await readFile(join(root, "dist", file));
      const expected = await readFile(join(expectedDir, "dist", file));
      expect(actual.equals(expected), `dist/${file} differs from its golden file`).toBe(true);
    }
    expect(result.diagnostics).toEqual(JSON.parse(await readFile(join(expectedDir, "diagnostics.json"), "utf8")));
  });
});

describe("dist/manifest.json as a public contract", () => {
  it("validates against schemas/manifest.schema.json and lists every other artifact with its sha256 and size", async () => {
    const root = await copyProject("basic");
    await build({ root, persistentCache: false });
    const text = await readFile(join(root, "dist/manifest.json"), "utf8");
    const manifest = JSON.parse(text) as DistManifest;
    const schema = JSON.parse(await readFile(join(repoRoot, "schemas/manifest.schema.json"), "utf8")) as object;
    const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);

    const others = (await listFiles(join(root, "dist"))).filter((file) => file !== "manifest.json");
    expect(Object.keys(manifest.artifacts)).toEqual(others);
    expect(Object.keys(manifest.variants)).toEqual(["base", "deck-generation", "import"]);
    expect(manifest.variants.base?.sha256).toBe(manifest.staticPrefix.sha256);
    expect(manifest.variants["deck-generation"]?.preloadedSkills).toEqual(["outline-deck", "card-style"]);
    expect(manifest.tools.order).toEqual(["todo", "skill", "read_workspace_rule", "message_user"]);
    expect(manifest.templateEngine).toEqual({ name: "handlebars", version: "4.7.10" });
    expect(manifest.tokenizer).toEqual({ name: "gpt-tokenizer", version: "4.0.0", encoding: "o200k_base" });
    expect(text.endsWith("}\n")).toBe(true);
    expect(text).not.toContain(root);
  });

  it("makes the skill tool's name an enum of the catalog's names and keeps the declared tool order", async () => {
    const root = await copyProject("basic");
    await build({ root, persistentCache: false });
    const tools = JSON.parse(await readFile(join(root, "dist/tools.json"), "utf8")) as Array<{ name: string; parameters: { properties: { name?: { enum?: string[] } } } }>;
    expect(tools.map((tool) => tool.name)).toEqual(["todo", "skill", "read_workspace_rule", "message_user"]);
    expect(tools.find((tool) => tool.name === "skill")?.parameters.properties.name?.enum).toEqual(["card-style", "import-file", "outline-deck"]);
  });

  it("starts every variant with the static prefix's bytes", async () => {
    const root = await copyProject("basic");
    const result = await build({ root, persistentCache: false });
    const prefix = await readFile(join(root, "dist/prefix.md"), "utf8");
    expect(prefix.endsWith("\n") && !prefix.endsWith("\n\n")).toBe(true);
    for (const variant of Object.values(result.manifest?.variants ?? {})) {
      const text = await readFile(join(root, "dist", variant.file), "utf8");
      expect(text.startsWith(prefix)).toBe(true);
      expect(variant.sharedPrefixTokens).toBe(result.manifest?.staticPrefix.tokens);
    }
  });
});
