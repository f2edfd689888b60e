/**
 * The manifest readers take any content: the runtime's loadArtifacts refuses
 * it with ArtifactVerificationError, check reports drift and exits 1. Neither
 * ever throws anything else. The mutations come from a seeded generator, so a
 * failure names a case that replays.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import { compareDist } from "../../src/pipeline/emit/drift.js";
import { packageSchemaValidator } from "../../src/pipeline/validate/schema-validators.js";
import { ArtifactVerificationError, loadArtifacts } from "../../src/runtime/artifacts.js";
import { copyProject, removeTempDirs, tempDir } from "../build/helpers.js";
import { runCliInProcess } from "../helpers/cli.js";
import { seededRandom as random } from "../helpers/random.js";

afterAll(removeTempDirs);

/** The judge: the standalone validator the build compiles from schemas/manifest.schema.json. */
function validUnderSchema(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  return packageSchemaValidator("manifest")(value) === true;
}

const HOSTILE_VALUES: unknown[] = [
  null,
  {},
  [],
  0,
  -1,
  1e308,
  true,
  false,
  "",
  "x".repeat(200_000),
  "../../etc/passwd",
  { sha256: null, bytes: "12" },
  { __proto__: { polluted: true } },
  [null, {}, "prefix.md"],
  { file: {}, sha256: [] },
];

/** Every JSON pointer (as a key list) inside a value. */
function paths(value: unknown, prefix: string[] = []): string[][] {
  const found = [prefix];
  if (typeof value === "object" && value !== null) {
    for (const [key, child] of Object.entries(value)) found.push(...paths(child, [...prefix, key]));
  }
  return found;
}

function mutate(manifest: unknown, next: () => number): { text: string; description: string } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const roll = next();
  if (roll < 0.08) {
    const value = pick(HOSTILE_VALUES);
    return { text: JSON.stringify(value) ?? "null", description: `whole manifest = ${JSON.stringify(value)?.slice(0, 40)}` };
  }
  if (roll < 0.12) return { text: pick(["", "{", "\u0000\u00ff", "[1,2", "\ufeff{}", "NaN"]), description: "not JSON" };
  const copy = JSON.parse(JSON.stringify(manifest)) as Record<string, unknown>;
  const descriptions: string[] = [];
  for (let count = 1 + Math.floor(next() * 3); count > 0; count--) {
    const path = pick(paths(copy).filter((candidate) => candidate.length > 0));
    let parent: unknown = copy;
    for (const key of path.slice(0, -1)) parent = (parent as Record<string, unknown>)[key];
    if (typeof parent !== "object" || parent === null) continue;
    const key = path.at(-1) as string;
    if (next() < 0.15) {
      delete (parent as Record<string, unknown>)[key];
      descriptions.push(`delete /${path.join("/")}`);
    } else {
      const value = pick(HOSTILE_VALUES);
      (parent as Record<string, unknown>)[key] = value;
      descriptions.push(`/${path.join("/")} = ${JSON.stringify(value)?.slice(0, 40)}`);
    }
  }
  return { text: JSON.stringify(copy), description: descriptions.join("; ") };
}

describe("fuzzing the manifest readers", () => {
  it("loadArtifacts and check's reader take 150 mutated manifests without any other error", async () => {
    const root = await copyProject("basic");
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const dist = join(root, "dist");
    const original = readFileSync(join(dist, "manifest.json"), "utf8");
    const manifest: unknown = JSON.parse(original);
    const { compileProject } = await import("../../src/pipeline/compile/compile.js");
    const compiled = await compileProject(root);
    const expected = compiled.artifacts as Map<string, string>;
    const next = random(0x13);
    for (let round = 0; round < 150; round++) {
      const { text, description } = mutate(manifest, next);
      writeFileSync(join(dist, "manifest.json"), text);
      let refusal: unknown;
      try {
        loadArtifacts({ distDir: dist });
      } catch (error) {
        refusal = error;
      }
      // Refused with the documented error, or accepted only when the schema accepts it too.
      if (refusal === undefined) expect(validUnderSchema(text), `round ${round} accepted: ${description}`).toBe(true);
      else expect(refusal, `round ${round}: ${description}`).toBeInstanceOf(ArtifactVerificationError);
      const report = await compareDist(dist, expected, async () => undefined);
      if (text !== original) expect(report.drift.some((entry) => entry.artifact === "manifest.json"), `round ${round}: ${description}`).toBe(true);
    }
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it("check exits 1 with a diagnostic, never 2 with a stack trace, on any manifest content", async () => {
    const root = await copyProject("basic");
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const dist = join(root, "dist");
    const original: unknown = JSON.parse(readFileSync(join(dist, "manifest.json"), "utf8"));
    const contents = ["null", "[]", '"x"', "{", JSON.stringify({ ...(original as object), artifacts: null }), JSON.stringify({ ...(original as object), artifacts: { "prefix.md": null } })];
    for (const [index, content] of contents.entries()) {
      writeFileSync(join(dist, "manifest.json"), content);
      const result = await check({ root });
      expect(result.ok, content.slice(0, 40)).toBe(false);
      expect(result.diagnostics.find((d) => d.file === "dist/manifest.json")?.ruleId).toBe("dist/changed");
      // Two through the CLI entry: the exit code and the absence of a stack trace are the contract.
      if (index < 2) {
        const cli = await runCliInProcess("check", "--root", root);
        expect(cli.code).toBe(1);
        expect(cli.stderr).not.toContain("internal error");
        expect(cli.stdout).toContain("dist/changed");
      }
    }
  });

  it("refuses a manifest entry that is null with the documented error (not a TypeError)", async () => {
    const dist = await tempDir();
    {
      const root = await copyProject("basic");
      expect((await build({ root, persistentCache: false })).ok).toBe(true);
      cpSync(join(root, "dist"), dist, { recursive: true });
      const manifest = JSON.parse(readFileSync(join(dist, "manifest.json"), "utf8")) as { artifacts: Record<string, unknown> };
      manifest.artifacts["prefix.md"] = null;
      writeFileSync(join(dist, "manifest.json"), JSON.stringify(manifest));
      expect(() => loadArtifacts({ distDir: dist })).toThrow(ArtifactVerificationError);
    }
  });
});
