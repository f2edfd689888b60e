import { readFileSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import type { CachePlan } from "../../src/protocol/cache-plan.js";
import type { DistManifest } from "../../src/protocol/dist-manifest.js";
import { ArtifactVerificationError, loadArtifacts } from "../../src/runtime/artifacts.js";
import { copyProject, fixturesDir, listFiles, projectWithOverlay, removeTempDirs, repoRoot, spawnCli } from "./helpers.js";

afterAll(removeTempDirs);

const overlay = join(fixturesDir, "namespaces");
const goldenDist = join(fixturesDir, "basic/expected/dist");

async function builtWithNamespace(): Promise<{ root: string; dist: string; manifest: DistManifest; plan: CachePlan }> {
  const root = await projectWithOverlay(overlay);
  const result = await build({ root, persistentCache: false });
  // The basic project's one finding (its prefix is short), nothing more.
  expect(result.diagnostics.map((diagnostic) => diagnostic.ruleId)).toEqual(["budget/prefix-below-cache-minimum"]);
  const dist = join(root, "dist");
  const manifest = JSON.parse(await readFile(join(dist, "manifest.json"), "utf8")) as DistManifest;
  const plan = JSON.parse(await readFile(join(dist, "cache-plan.json"), "utf8")) as CachePlan;
  return { root, dist, manifest, plan };
}

async function expectGoldenBytes(dist: string): Promise<void> {
  const produced = await listFiles(dist);
  expect(produced).toEqual(await listFiles(goldenDist));
  for (const file of produced) expect((await readFile(join(dist, file))).equals(await readFile(join(goldenDist, file))), file).toBe(true);
}

describe("a project without tool namespaces", () => {
  it("builds byte for byte as before with an empty schemas/namespaces/ folder and a prefix that mentions the catalog only under {{#if toolNamespaces}}", async () => {
    const root = await copyProject("basic");
    await mkdir(join(root, "schemas/namespaces"), { recursive: true });
    await writeFile(join(root, "prompts/partials/injections.hbs"), await readFile(join(overlay, "prompts/partials/injections.hbs")));
    const result = await build({ root, persistentCache: false });
    expect(result.ok).toBe(true);
    await expectGoldenBytes(join(root, "dist"));
  });
});

describe("compiled tool namespaces", () => {
  it("writes namespaces/<name>.json with the tools in declared order and lists it in a manifest that matches its schema", async () => {
    const { dist, manifest } = await builtWithNamespace();
    const artifact = JSON.parse(await readFile(join(dist, "namespaces/crm.json"), "utf8")) as { name: string; description: string; tools: Array<{ name: string }> };
    expect(Object.keys(artifact)).toEqual(["name", "description", "tools"]);
    expect(artifact.tools.map((tool) => tool.name)).toEqual(["crm_find_contact", "crm_read_notes", "crm_log_call"]);
    expect(manifest.namespaces?.["crm"]).toMatchObject({ file: "namespaces/crm.json", tools: ["crm_find_contact", "crm_read_notes", "crm_log_call"], sha256: manifest.artifacts["namespaces/crm.json"]?.sha256 });
    expect(manifest.namespaces?.["crm"]?.tokens).toBeGreaterThan(50);
    expect(manifest.variants["import"]?.namespaces).toEqual(["crm"]);
    expect(manifest.variants["base"]).not.toHaveProperty("namespaces");
    expect(manifest.skills["outline-deck"]?.toolNamespaces).toEqual(["crm"]);
    expect(manifest.skills["card-style"]).not.toHaveProperty("toolNamespaces");
    const schema = JSON.parse(await readFile(join(repoRoot, "schemas/manifest.schema.json"), "utf8")) as object;
    const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);
  });

  it("puts only the catalog of names and descriptions in the static prefix, never a schema, whichever variants load the namespace at start", async () => {
    const { root, dist } = await builtWithNamespace();
    const prefix = await readFile(join(dist, "prefix.md"), "utf8");
    expect(prefix).toContain('<tool_namespaces>\n  <namespace name="crm">\n    Use when the request names a customer or a deal: find contacts, read their notes, log a call.\n  </namespace>\n</tool_namespaces>');
    for (const hidden of ["crm_find_contact", "crm_read_notes", "Log a call with a contact", "contactId"]) expect(prefix).not.toContain(hidden);
    // Loading at start in every variant, or in none, leaves the prefix's bytes alone.
    for (const variants of ["[crm]", "[]"]) {
      await writeFile(join(root, "prompts/variants.yaml"), `variants:\n  base:\n    preload: []\n    namespaces: ${variants}\n  deck-generation:\n    preload: [outline-deck]\n  import:\n    preload: [import-file]\n`);
      const again = await build({ root, persistentCache: false });
      expect(again.ok).toBe(true);
      expect(await readFile(join(dist, "prefix.md"), "utf8")).toBe(prefix);
    }
  });

  it("adds a start namespace's tools after the stable tools in that variant's cache plan only, without a breakpoint of their own", async () => {
    const { plan, manifest } = await builtWithNamespace();
    const names = (variant: string) => plan.variants[variant]?.blocks.map((block) => block.name);
    expect(names("import")).toEqual(["tools", "namespace-tools", "static-prefix", "variant-tail"]);
    expect(names("base")).toEqual(["tools", "static-prefix"]);
    const [tools, namespace, prefix] = plan.variants["import"]?.blocks ?? [];
    expect(namespace).toMatchObject({ source: "namespaces/crm.json", sha256: manifest.namespaces?.["crm"]?.sha256, tokens: manifest.namespaces?.["crm"]?.tokens, breakpoint: false });
    expect(namespace?.cumulativeTokens).toBe((tools?.tokens ?? 0) + (namespace?.tokens ?? 0));
    expect(prefix?.cumulativeTokens).toBe((namespace?.cumulativeTokens ?? 0) + (prefix?.tokens ?? 0));
    expect(plan.variants["base"]?.blocks[1]?.cumulativeTokens).toBe((tools?.tokens ?? 0) + (prefix?.tokens ?? 0));
  });

  it("is verified by loadArtifacts, which refuses a changed namespace artifact", async () => {
    const { dist } = await builtWithNamespace();
    const loaded = loadArtifacts({ distDir: dist });
    expect([...loaded.namespaces.keys()]).toEqual(["crm"]);
    expect(loaded.namespaces.get("crm")?.tools.map((tool) => tool.name)).toEqual(["crm_find_contact", "crm_read_notes", "crm_log_call"]);
    expect(loaded.skills.get("outline-deck")?.toolNamespaces).toEqual(["crm"]);
    expect(loaded.skills.get("import-file")?.toolNamespaces).toEqual([]);
    const file = join(dist, "namespaces/crm.json");
    await writeFile(file, readFileSync(file, "utf8").replace("Log a call", "Add a call"));
    expect(() => loadArtifacts({ distDir: dist })).toThrow(ArtifactVerificationError);
    try {
      loadArtifacts({ distDir: dist });
    } catch (error) {
      expect((error as ArtifactVerificationError).problems).toEqual([{ file: "namespaces/crm.json", kind: "changed", message: expect.stringContaining("Unexpected sha256") }]);
    }
    await rm(file);
    expect(() => loadArtifacts({ distDir: dist })).toThrow(/namespaces\/crm\.json: Unexpected missing file/);
  });

  it("prints the tokens of the stable tool set and of each namespace", async () => {
    const { root, manifest, plan } = await builtWithNamespace();
    const run = spawnCli(["build", "--root", root]);
    expect(run.status, run.stderr).toBe(0);
    const stable = plan.variants["base"]?.blocks[0]?.tokens;
    expect(run.stdout).toContain(`tools: stable set 4 tools, ${stable} tokens; namespace crm 3 tools, ${manifest.namespaces?.["crm"]?.tokens} tokens\n`);
  });
});

describe("namespace/unreachable", () => {
  it("warns, naming the variants, when nothing the model does can load a namespace they load on demand; a workflow naming it, load_tool_namespace or a start namespace in every variant each clear it", async () => {
    const unreachable = (result: Awaited<ReturnType<typeof build>>) => result.diagnostics.filter((diagnostic) => diagnostic.ruleId === "namespace/unreachable");
    const root = await projectWithOverlay(overlay);
    // The fixture's workflow names crm: the model loads it by activating the workflow.
    expect(unreachable(await build({ root, persistentCache: false }))).toEqual([]);

    const skill = join(root, "skills/outline-deck/SKILL.md");
    await writeFile(skill, (await readFile(skill, "utf8")).replace("toolNamespaces: [crm]\n", ""));
    const warned = await build({ root, persistentCache: false });
    expect(warned.ok).toBe(true);
    expect(unreachable(warned).map((diagnostic) => `${diagnostic.file}:${diagnostic.line}:${diagnostic.column} ${diagnostic.severity} ${diagnostic.message}`)).toEqual([
      "schemas/namespaces/crm/namespace.json:1:1 warning Unexpected namespace `crm` that variants base, deck-generation load on demand with no way for the model to load it: no workflow skill names it in toolNamespaces and the tool set has no load_tool_namespace; expected one of those, or the namespace in the variant's namespaces (sent from the start), unless the host loads it itself",
    ]);

    const variants = join(root, "prompts/variants.yaml");
    const yaml = await readFile(variants, "utf8");
    await writeFile(variants, yaml.replace("  base:\n    preload: []\n", "  base:\n    preload: []\n    namespaces: [crm]\n").replace("    preload: [outline-deck]\n", "    preload: [outline-deck]\n    namespaces: [crm]\n"));
    expect(unreachable(await build({ root, persistentCache: false }))).toEqual([]);
    await writeFile(variants, yaml);

    const loader = { name: "load_tool_namespace", description: "Load one tool namespace from the catalog by its exact name.", parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } };
    await writeFile(join(root, "schemas/tools/load_tool_namespace.json"), `${JSON.stringify(loader, null, 2)}\n`);
    const order = JSON.parse(await readFile(join(root, "schemas/tools/order.json"), "utf8")) as string[];
    await writeFile(join(root, "schemas/tools/order.json"), `${JSON.stringify([...order, "load_tool_namespace"])}\n`);
    expect(unreachable(await build({ root, persistentCache: false }))).toEqual([]);
  });
});
