/**
 * Knowledge notes through the real compiler: one fixture folder per rule
 * (laid over the basic project), the published artifacts, and the promise
 * that a note never touches the static prefix or its cache key.
 */
import { readdirSync } from "node:fs";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import type { DistManifest } from "../../src/protocol/dist-manifest.js";
import { listFiles, projectWithOverlay, removeTempDirs, repoRoot, updateGolden } from "../build/helpers.js";

afterAll(removeTempDirs);

const casesDir = join(repoRoot, "test/fixtures/knowledge");
const cases = readdirSync(casesDir).sort();

/** The basic project with a case's files laid over it (expected output aside). */
async function projectWithCase(name: string): Promise<string> {
  return projectWithOverlay(join(casesDir, name));
}

async function golden(file: string, actual: string): Promise<string> {
  if (updateGolden) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, actual);
  }
  return readFile(file, "utf8");
}

describe.each(cases)("knowledge case %s", (name) => {
  it("reports exactly the expected diagnostics; errors write nothing, otherwise the notes are published", async () => {
    const root = await projectWithCase(name);
    const result = await build({ root, persistentCache: false });
    const expected = await golden(join(casesDir, name, "expected.json"), `${JSON.stringify(result.diagnostics, null, 2)}\n`);
    expect(result.diagnostics).toEqual(JSON.parse(expected));
    if (result.errorCount > 0) {
      expect(result.ok).toBe(false);
      expect(await readdir(root)).not.toContain("dist");
      return;
    }
    expect(result.ok).toBe(true);
    const published = (await listFiles(join(root, "dist"))).filter((file) => file.startsWith("knowledge"));
    for (const file of published) {
      const text = await readFile(join(root, "dist", file), "utf8");
      expect(text).toBe(await golden(join(casesDir, name, "expected/dist", file), text));
    }
    expect(published).toEqual(await listFiles(join(casesDir, name, "expected/dist")));
  });
});

describe("knowledge artifacts", () => {
  it("are listed in the manifest with the inline limit, and check verifies them", async () => {
    const root = await projectWithCase("good");
    const result = await build({ root, persistentCache: false });
    expect(result.ok).toBe(true);
    const manifest = result.manifest as DistManifest;
    expect(manifest.knowledge).toEqual({ file: "knowledge.json", inlineBytes: 8192, notes: 2, sha256: manifest.artifacts["knowledge.json"]?.sha256 });
    expect(Object.keys(manifest.artifacts).filter((file) => file.startsWith("knowledge"))).toEqual(["knowledge.json", "knowledge/brand-images.md", "knowledge/card-text.md"]);
    expect((await check({ root })).ok).toBe(true);
    await writeFile(join(root, "knowledge/card-text.md"), (await readFile(join(root, "knowledge/card-text.md"), "utf8")).replace("8 words", "9 words"));
    const drift = await check({ root });
    expect(drift.ok).toBe(false);
    expect(drift.diagnostics.filter((diagnostic) => diagnostic.severity === "error").map((diagnostic) => diagnostic.file).sort()).toEqual(["dist/knowledge.json", "dist/knowledge/card-text.md", "dist/manifest.json"]);
    expect(drift.invalidatesSharedPrefix).toBe(false);
  });

  it("never enter the static prefix: editing a note leaves the prefix bytes, every variant and the cache key unchanged", async () => {
    const root = await projectWithCase("good");
    const first = await build({ root, persistentCache: false });
    const before = await snapshotPrompts(root);
    const note = join(root, "knowledge/card-text.md");
    await writeFile(note, (await readFile(note, "utf8")).replace("scope: Use when writing the text of cards", "scope: Use when writing or editing card text").replace("8 words", "6 words"));
    const second = await build({ root, persistentCache: false });
    expect(second.ok).toBe(true);
    expect(second.prefixChanged).toBe(false);
    expect(second.manifest?.staticPrefix).toEqual(first.manifest?.staticPrefix);
    expect(await snapshotPrompts(root)).toEqual(before);
    expect([...second.written].sort()).toEqual(["knowledge.json", "knowledge/card-text.md", "manifest.json"]);
    const index = JSON.parse(await readFile(join(root, "dist/knowledge.json"), "utf8")) as Array<{ id: string; revision: string; scope: string }>;
    expect(index.find((entry) => entry.id === "card-text")).toMatchObject({ scope: "Use when writing or editing card text in this workspace." });
  });

  it("are dropped with the manifest entry when the last note goes", async () => {
    const root = await projectWithCase("good");
    await build({ root, persistentCache: false });
    const { rm } = await import("node:fs/promises");
    await rm(join(root, "knowledge"), { recursive: true });
    const result = await build({ root, persistentCache: false });
    expect(result.manifest?.knowledge).toBeUndefined();
    expect([...result.removed].sort()).toEqual(["knowledge.json", "knowledge/brand-images.md", "knowledge/card-text.md"]);
  });

  it("a note that is a symbolic link to nothing is an error naming it, not a note quietly left out (and so is a partial)", async () => {
    const root = await projectWithCase("good");
    const { symlink } = await import("node:fs/promises");
    await symlink(join(root, "nowhere", "gone.md"), join(root, "knowledge", "gone.md"));
    await symlink(join(root, "nowhere", "gone.hbs"), join(root, "prompts", "partials", "gone.hbs")).catch(async () => {
      await mkdir(join(root, "prompts", "partials"), { recursive: true });
      await symlink(join(root, "nowhere", "gone.hbs"), join(root, "prompts", "partials", "gone.hbs"));
    });
    const result = await build({ root, persistentCache: false });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.filter((diagnostic) => diagnostic.ruleId === "source/unreadable-file").map((diagnostic) => [diagnostic.file, diagnostic.line, diagnostic.column, diagnostic.message])).toEqual([
      ["knowledge/gone.md", 1, 1, "Unexpected symbolic link to a file that does not exist, expected a readable file"],
      ["prompts/partials/gone.hbs", 1, 1, "Unexpected symbolic link to a file that does not exist, expected a readable file"],
    ]);
  });
});

async function snapshotPrompts(root: string): Promise<Record<string, string>> {
  const snapshot: Record<string, string> = {};
  for (const file of await listFiles(join(root, "dist"))) {
    if (file === "prefix.md" || file === "tools.json" || file === "catalog.xml" || file.startsWith("variants/")) snapshot[file] = await readFile(join(root, "dist", file), "utf8");
  }
  return snapshot;
}
