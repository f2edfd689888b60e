/**
 * Two ways a project's own files once made a build that its `check` and the runtime refused, or a source
 * that only a clean build saw: a line break written as an escape in a value (an injection's meaning in YAML,
 * a tool's description in JSON) put a CRLF into prompts that every reader of dist/ reads as LF; and a
 * dotfile in prompts/partials/, knowledge/ or a tools folder (macOS' `._name` beside a copied file) was read
 * as a source, though watch ignores it and the skills' readers skip it.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import { init } from "../../src/init.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { removeTempDirs, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

async function gammaProject(label: string): Promise<string> {
  const root = join(await tempDir(label), "agent");
  expect((await init({ dir: root, template: "gamma" })).ok).toBe(true);
  return root;
}

function errors(diagnostics: ReadonlyArray<{ severity: string; ruleId: string; file: string }>): string[] {
  return diagnostics.filter((diagnostic) => diagnostic.severity === "error").map((diagnostic) => `${diagnostic.file} ${diagnostic.ruleId}`);
}

function builtTexts(root: string): Map<string, string> {
  const dist = join(root, "dist");
  const texts = new Map<string, string>([["prefix.md", readFileSync(join(dist, "prefix.md"), "utf8")]]);
  for (const name of readdirSync(join(dist, "variants"))) texts.set(`variants/${name}`, readFileSync(join(dist, "variants", name), "utf8"));
  return texts;
}

describe("a CRLF written as an escape in a value", () => {
  it("reaches the prompts as LF, and the build checks as current and loads", async () => {
    const root = await gammaProject("crlf escape");
    const injections = join(root, "prompts", "injections.yaml");
    const yaml = readFileSync(injections, "utf8");
    expect(yaml).toContain('meaning: "Passive context about the current task."');
    writeFileSync(injections, yaml.replace('meaning: "Passive context about the current task."', 'meaning: "Passive context\\r\\nabout the current task."'));
    const bash = join(root, "schemas", "tools", "bash.json");
    const schema = JSON.parse(readFileSync(bash, "utf8")) as { description: string };
    writeFileSync(bash, `${JSON.stringify({ ...schema, description: `Run a shell command.\r\n${schema.description}` }, null, 2)}\n`);
    // The template renders each tool's description, as a project's own prefix may.
    const partial = join(root, "prompts", "partials", "interface.hbs");
    writeFileSync(partial, `${readFileSync(partial, "utf8")}\n{{#each tools}}\n- {{name}}: {{description}}\n{{/each}}\n`);

    const built = await build({ root, persistentCache: false });
    expect(errors(built.diagnostics)).toEqual([]);
    const texts = builtTexts(root);
    for (const [file, text] of texts) expect(text.includes("\r"), file).toBe(false);
    expect(texts.get("prefix.md")).toContain("Passive context\nabout the current task.");
    expect(texts.get("prefix.md")).toContain("Run a shell command.\n");

    const checked = await check({ root });
    expect(errors(checked.diagnostics)).toEqual([]);
    expect(checked.ok).toBe(true);
    expect(() => loadArtifacts({ distDir: join(root, "dist") })).not.toThrow();
  });
});

describe("dotfiles beside the project's sources", () => {
  it("are not sources: the build, lint's view and check are those of the project without them", async () => {
    const root = await gammaProject("dotfiles");
    expect(errors((await build({ root, persistentCache: false })).diagnostics)).toEqual([]);
    const before = builtTexts(root);
    const manifest = readFileSync(join(root, "dist", "manifest.json"), "utf8");

    // macOS' AppleDouble files, as a copy over SMB, a USB stick or tar leaves them, and a hidden draft.
    const appleDouble = "\u0000\u0005\u0016\u0007\u0000\u0002\u0000\u0000Mac OS X        ";
    for (const file of ["prompts/partials/._identity.hbs", "knowledge/._brand-images.md", "schemas/tools/._bash.json", "schemas/namespaces/drive/tools/._drive_search.json"]) {
      writeFileSync(join(root, file), appleDouble);
    }
    writeFileSync(join(root, "knowledge", ".draft-rules.md"), readFileSync(join(root, "knowledge", "brand-images.md"), "utf8"));
    writeFileSync(join(root, "schemas", "tools", ".bash.json"), readFileSync(join(root, "schemas", "tools", "bash.json"), "utf8"));

    const checked = await check({ root });
    expect(errors(checked.diagnostics)).toEqual([]);
    expect(checked.ok).toBe(true);
    const rebuilt = await build({ root, persistentCache: false });
    expect(errors(rebuilt.diagnostics)).toEqual([]);
    expect(builtTexts(root)).toEqual(before);
    expect(readFileSync(join(root, "dist", "manifest.json"), "utf8")).toBe(manifest);
  });
});
