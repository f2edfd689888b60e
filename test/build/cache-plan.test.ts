import { createHash } from "node:crypto";
import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import type { CachePlan } from "../../src/protocol/cache-plan.js";
import type { DistManifest } from "../../src/protocol/dist-manifest.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { copyProject, removeTempDirs, repoRoot, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

const sha = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex");

async function builtPlan(root: string): Promise<{ plan: CachePlan; manifest: DistManifest; dist: string }> {
  const result = await build({ root, persistentCache: false });
  expect(result.ok).toBe(true);
  const dist = join(root, "dist");
  return {
    plan: JSON.parse(await readFile(join(dist, "cache-plan.json"), "utf8")) as CachePlan,
    manifest: JSON.parse(await readFile(join(dist, "manifest.json"), "utf8")) as DistManifest,
    dist,
  };
}

describe("the compiled cache plan (dist/cache-plan.json)", () => {
  it("cuts every variant into tools, static prefix and variant tail, with bytes, sha256, tokens and breakpoints from the same render", async () => {
    const root = await copyProject("basic");
    const { plan, manifest, dist } = await builtPlan(root);
    const schema = JSON.parse(await readFile(join(repoRoot, "schemas/cache-plan.schema.json"), "utf8")) as object;
    const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
    expect(validate(plan), JSON.stringify(validate.errors)).toBe(true);
    expect(Object.keys(plan.variants)).toEqual(Object.keys(manifest.variants));
    const tools = JSON.parse(await readFile(join(dist, "tools.json"), "utf8")) as unknown[];
    for (const [name, info] of Object.entries(manifest.variants)) {
      const bytes = await readFile(join(dist, info.file));
      const blocks = plan.variants[name]?.blocks ?? [];
      expect(blocks.map((block) => block.name)).toEqual(info.preloadedSkills.length === 0 ? ["tools", "static-prefix"] : ["tools", "static-prefix", "variant-tail"]);
      expect(blocks[0]).toMatchObject({ source: "tools.json", sha256: manifest.tools.sha256, tokens: countTokens(JSON.stringify(tools)), breakpoint: true });
      expect(blocks[1]).toMatchObject({ source: "prefix.md", system: { start: 0, end: manifest.staticPrefix.bytes }, sha256: manifest.staticPrefix.sha256, tokens: manifest.staticPrefix.tokens });
      let cumulative = 0;
      for (const block of blocks) {
        cumulative += block.tokens;
        expect(block.cumulativeTokens).toBe(cumulative);
        // A breakpoint at the end of every block: a session of another variant reuses all it shares.
        expect(block.breakpoint, `${name}: ${block.name}`).toBe(true);
        if (block.system === undefined) continue;
        const slice = bytes.subarray(block.system.start, block.system.end);
        expect(sha(slice)).toBe(block.sha256);
        expect(countTokens(slice.toString("utf8"))).toBe(block.tokens);
      }
      // The system blocks cover the whole variant, no more and no less.
      expect(blocks.at(-1)?.system?.end).toBe(bytes.length);
    }
    expect(manifest.cachePlan).toEqual({ file: "cache-plan.json", sha256: manifest.artifacts["cache-plan.json"]?.sha256 });
  });

  it("follows the project's own variant names", async () => {
    const root = await copyProject("basic");
    await writeFile(join(root, "prompts/variants.yaml"), "variants:\n  base:\n    preload: []\n  outline-only:\n    preload: [outline-deck]\n");
    const { plan } = await builtPlan(root);
    expect(Object.keys(plan.variants)).toEqual(["base", "outline-only"]);
    expect(plan.variants["outline-only"]?.blocks.map((block) => block.name)).toEqual(["tools", "static-prefix", "variant-tail"]);
  });

  it("puts tools + static prefix of the embedded default at about 5.6k tokens, shared by every variant", () => {
    const { cachePlan } = loadArtifacts({ distDir: join(repoRoot, "dist") });
    for (const { blocks } of Object.values(cachePlan.variants)) {
      const shared = blocks[1]?.cumulativeTokens ?? 0;
      expect(shared).toBeGreaterThan(5000);
      expect(shared).toBeLessThan(6000);
    }
  });

  it("is verified by loadArtifacts: a plan that does not describe the bytes is refused even with a matching manifest hash", async () => {
    const dist = join(await tempDir(), "dist");
    await cp(join(repoRoot, "dist"), dist, { recursive: true });
    const planPath = join(dist, "cache-plan.json");
    const plan = JSON.parse(await readFile(planPath, "utf8")) as CachePlan;
    const tail = plan.variants["deck-generation"]?.blocks[2];
    if (tail?.system) tail.system.start -= 1;
    const text = `${JSON.stringify(plan, null, 2)}\n`;
    await writeFile(planPath, text);
    const manifestPath = join(dist, "manifest.json");
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as DistManifest;
    manifest.artifacts["cache-plan.json"] = { sha256: sha(text), bytes: Buffer.byteLength(text) };
    manifest.cachePlan.sha256 = sha(text);
    await writeFile(manifestPath, JSON.stringify(manifest));
    expect(() => loadArtifacts({ distDir: dist })).toThrow(/cache-plan\.json: Unexpected third block of variant "deck-generation"/);
  });
});

describe("budget/prefix-below-cache-minimum: the tools and the static prefix together, the prefix every request shares", () => {
  it("warns when the two together stay under 1,024 tokens, and not when the tools bring a short prefix over it", async () => {
    const root = await copyProject("basic");
    const short = await build({ root, persistentCache: false });
    const warning = short.diagnostics.find((diagnostic) => diagnostic.ruleId === "budget/prefix-below-cache-minimum");
    const { plan } = await builtPlan(root);
    const blocks = plan.variants["base"]?.blocks ?? [];
    const [tools, prefix] = [blocks[0]?.tokens ?? 0, blocks[1]?.tokens ?? 0];
    expect(tools + prefix).toBeLessThan(1024);
    expect(warning?.message).toBe(`Unexpected static prefix of ${prefix} tokens (${tools + prefix} with the stable tools' ${tools}), expected at least 1024 together for OpenAI prompt caching to apply`);

    // The same short prefix beside a tool whose parameter documentation brings the stable tools to about 900 tokens.
    const idDoc = "The record's id, as the records list shows it. ".repeat(80).trim();
    const tool = { name: "lookup", description: "Looks up a record.", parameters: { type: "object", properties: { id: { type: "string", description: idDoc } }, required: ["id"], additionalProperties: false } };
    await writeFile(join(root, "schemas/tools/lookup.json"), `${JSON.stringify(tool, null, 2)}\n`);
    const order = JSON.parse(await readFile(join(root, "schemas/tools/order.json"), "utf8")) as string[];
    await writeFile(join(root, "schemas/tools/order.json"), `${JSON.stringify([...order, "lookup"], null, 2)}\n`);
    const { plan: longer } = await builtPlan(root);
    const [withTool, samePrefix] = (longer.variants["base"]?.blocks ?? []).map((block) => block.tokens);
    expect(samePrefix ?? 0).toBeLessThan(1024);
    expect((withTool ?? 0) + (samePrefix ?? 0)).toBeGreaterThanOrEqual(1024);
    const rebuilt = await build({ root, persistentCache: false });
    expect(rebuilt.diagnostics.filter((diagnostic) => diagnostic.ruleId === "budget/prefix-below-cache-minimum")).toEqual([]);
  });
});
