import { readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { copyProject, removeTempDirs, snapshotTree } from "./helpers.js";

afterAll(removeTempDirs);

async function builtProject(): Promise<string> {
  const root = await copyProject("basic");
  expect((await build({ root, persistentCache: false })).ok).toBe(true);
  return root;
}

describe("check", () => {
  it("passes right after a build and writes nothing", async () => {
    const root = await builtProject();
    const before = await snapshotTree(root);
    const result = await check({ root });
    expect(result.ok).toBe(true);
    expect(result.drift).toEqual([]);
    expect(result.artifactCount).toBe(14);
    expect(await snapshotTree(root)).toEqual(before);
  });

  it("maps a template edit to the first differing byte, token and template line, and flags the shared prefix", async () => {
    const root = await builtProject();
    const intro = join(root, "prompts/partials/intro.hbs");
    await writeFile(intro, (await readFile(intro, "utf8")).replace("Follow the skill contracts.", "Follow every skill contract."));
    const result = await check({ root });
    expect(result.ok).toBe(false);
    expect(result.invalidatesSharedPrefix).toBe(true);
    const prefix = result.drift.find((entry) => entry.artifact === "prefix.md");
    expect(prefix).toMatchObject({
      kind: "changed",
      firstDifference: { line: 3, column: 24 },
      prefix: { expectedToken: " every", actualToken: " the", source: { file: "prompts/partials/intro.hbs", line: 3, column: 24, kind: "content" } },
    });
    // Every variant starts with the prefix, so every variant drifts too.
    expect(result.drift.filter((entry) => entry.kind === "changed").map((entry) => entry.artifact)).toEqual([
      "cache-plan.json",
      "manifest.json",
      "prefix.md",
      "variants/base.md",
      "variants/deck-generation.md",
      "variants/import.md",
    ]);
    const diagnostic = result.diagnostics.find((d) => d.file === "dist/prefix.md");
    expect(diagnostic).toMatchObject({ ruleId: "dist/changed", line: 3, column: 24 });
    expect(diagnostic?.message).toContain("prompts/partials/intro.hbs:3:");
    expect(diagnostic?.message).toContain("invalidates the shared cache prefix of every variant");
    const variant = result.diagnostics.find((d) => d.file === "dist/variants/import.md");
    expect(variant?.message).toContain("the shared prefix changed (see prefix.md)");
    expect(variant?.message).not.toContain("unaffected");
  });

  it("maps drift inside a rendered value to the {{expression}} that produced it", async () => {
    const root = await builtProject();
    const skill = join(root, "skills/import-file/SKILL.md");
    await writeFile(skill, (await readFile(skill, "utf8")).replace("uploads a file", "uploads any file"));
    const result = await check({ root });
    const prefix = result.drift.find((entry) => entry.artifact === "prefix.md");
    expect(prefix?.prefix?.source).toEqual({ file: "prompts/prefix.hbs", line: 8, column: 1, kind: "{{catalog}}" });
  });

  it("reports a tampered file both as changed and as a manifest hash mismatch", async () => {
    const root = await builtProject();
    const file = join(root, "dist/skills/card-style.md");
    await writeFile(file, `${await readFile(file, "utf8")}extra line\n`);
    const result = await check({ root });
    expect(result.drift.map((entry) => [entry.artifact, entry.kind])).toEqual([
      ["skills/card-style.md", "changed"],
      ["skills/card-style.md", "hash-mismatch"],
    ]);
    expect(result.invalidatesSharedPrefix).toBe(false);
    expect(result.diagnostics.map((d) => d.ruleId).sort()).toEqual(["budget/prefix-below-cache-minimum", "dist/changed", "dist/hash-mismatch"]);
  });

  it("says which side of a hash mismatch was edited: the file, or manifest.json when the file is as built", async () => {
    const root = await builtProject();
    const file = join(root, "dist/skills/card-style.md");
    await writeFile(file, `${await readFile(file, "utf8")}extra line\n`);
    const edited = await check({ root });
    expect(edited.diagnostics.find((d) => d.ruleId === "dist/hash-mismatch")?.message).toMatch(/ \(the file was edited after the build\)$/);

    const rebuilt = await builtProject();
    const manifestFile = join(rebuilt, "dist/manifest.json");
    const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as { artifacts: Record<string, { sha256: string }> };
    manifest.artifacts["skills/card-style.md"]!.sha256 = "0".repeat(64);
    await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    const result = await check({ root: rebuilt });
    expect(result.drift.map((entry) => [entry.artifact, entry.kind])).toEqual([
      ["manifest.json", "changed"],
      ["skills/card-style.md", "hash-mismatch"],
    ]);
    const mismatch = result.diagnostics.find((d) => d.ruleId === "dist/hash-mismatch");
    expect(mismatch?.file).toBe("dist/skills/card-style.md");
    expect(mismatch?.message).toMatch(/, expected 000000000000 as recorded in manifest\.json \(manifest\.json was edited after the build: the file has the bytes the sources produce\)$/);
  });

  it("reports a dist/ that was never built as one error naming the folder, not one per artifact", async () => {
    const root = await copyProject("basic");
    const result = await check({ root });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.filter((diagnostic) => diagnostic.severity === "error").map((diagnostic) => [diagnostic.ruleId, diagnostic.file, diagnostic.message])).toEqual([
      ["dist/missing", "dist", "Unexpected missing output folder dist/, expected the folder `gamma-prompt build` writes (run `gamma-prompt build` first)"],
    ]);
    const printed = await runCliInProcessFrom(root, "check");
    expect(printed.code).toBe(1);
    expect(printed.stdout.match(/ error /g)).toHaveLength(1);
    expect(printed.stdout).not.toContain("every variant loses its shared cached prefix");
    expect(printed.stdout).toContain("(1 error, ");
  });

  it("reports missing and extra artifacts", async () => {
    const root = await builtProject();
    await rm(join(root, "dist/catalog.xml"));
    await writeFile(join(root, "dist/notes.md"), "not an artifact\n");
    const result = await check({ root });
    expect(result.drift.map((entry) => [entry.artifact, entry.kind])).toEqual([
      ["catalog.xml", "missing"],
      ["notes.md", "extra"],
    ]);
    expect(result.diagnostics.filter((diagnostic) => diagnostic.ruleId.startsWith("dist/")).map((diagnostic) => [diagnostic.ruleId, diagnostic.file])).toEqual([
      ["dist/missing", "dist/catalog.xml"],
      ["dist/extra", "dist/notes.md"],
    ]);
  });

  it("reports unreadable entries in dist/ (dangling links) as drift instead of failing", async () => {
    const root = await builtProject();
    await rm(join(root, "dist/catalog.xml"));
    await symlink(join(root, "nowhere"), join(root, "dist/catalog.xml"));
    await symlink(join(root, "nowhere"), join(root, "dist/stray.md"));
    const result = await check({ root });
    expect(result.ok).toBe(false);
    expect(result.drift.map((entry) => [entry.artifact, entry.kind])).toEqual([
      ["catalog.xml", "missing"],
      ["stray.md", "extra"],
    ]);
  });

  it("says a variant-only change leaves the shared prefix intact", async () => {
    const root = await builtProject();
    const variant = join(root, "prompts/variant.hbs");
    await writeFile(variant, (await readFile(variant, "utf8")).replace("# Preloaded skills for", "# Skills preloaded for"));
    const result = await check({ root });
    expect(result.invalidatesSharedPrefix).toBe(false);
    expect(result.drift.map((entry) => entry.artifact)).toEqual(["cache-plan.json", "manifest.json", "variants/deck-generation.md", "variants/import.md"]);
    expect(result.diagnostics.find((d) => d.file === "dist/variants/import.md")?.message).toContain("shared prefix is unaffected");
    // Only the variant tails went cold: what that costs, per affected variant.
    expect(result.invalidation?.map((entry) => entry.variant)).toEqual(["deck-generation", "import"]);
    for (const entry of result.invalidation ?? []) {
      expect(entry.tokens).toBeGreaterThan(0);
      expect(Object.keys(entry.dollarsPer1000Sessions)).toEqual(["anthropic/claude-sonnet-4-5", "openai/gpt-5"]);
    }
  });

  it("reports a tool schema change as invalidating the shared prefix", async () => {
    const root = await builtProject();
    await writeFile(join(root, "schemas/tools/order.json"), '["message_user", "read_workspace_rule", "skill", "todo"]\n');
    const result = await check({ root });
    expect(result.invalidatesSharedPrefix).toBe(true);
    expect(result.drift.map((entry) => entry.artifact)).toContain("tools.json");
  });

  it("fails with the source diagnostics when the sources have errors", async () => {
    const root = await builtProject();
    await writeFile(join(root, "prompts/variants.yaml"), "variants:\n  base:\n    preload: [nope]\n");
    const result = await check({ root });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.find((d) => d.severity === "error")).toMatchObject({ ruleId: "variant/unknown-skill", file: "prompts/variants.yaml", line: 3, column: 15 });
  });
});
