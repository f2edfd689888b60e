import { spawnSync } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import { cliPath, copyProject, removeTempDirs, repoRoot } from "./helpers.js";

// check renders everything again but takes what dist/ records about bytes that
// come out the same (token counts, accepted tool parameter schemas), so it
// needs neither the tokenizer nor a schema compiler on a current dist/. Where
// anything differs, it is worked out again; with --full everything is.

afterAll(removeTempDirs);

const hook = join(repoRoot, "test/fixtures/hooks/report-heavy-loads.cjs");

function checkProcess(root: string, ...args: string[]): { status: number | null; tokenizerLoaded: boolean; compilerLoaded: boolean; stdout: string } {
  const child = spawnSync(process.execPath, ["--require", hook, cliPath, "check", "--root", root, ...args], { encoding: "utf8" });
  return { status: child.status, tokenizerLoaded: child.stderr.includes("TOKENIZER LOADED"), compilerLoaded: child.stderr.includes("SCHEMA COMPILER LOADED"), stdout: child.stdout };
}

/** One tool's parameter schema made invalid (`minProperties` must be a number), so it differs from dist/'s record. */
async function breakToolParameters(root: string): Promise<void> {
  const [file] = (await readdir(join(root, "schemas/tools"))).filter((name) => name.endsWith(".json") && name !== "order.json" && name !== "skill.json");
  const toolPath = join(root, "schemas/tools", file ?? "");
  const tool = JSON.parse(await readFile(toolPath, "utf8")) as { parameters: Record<string, unknown> };
  tool.parameters["minProperties"] = "one";
  await writeFile(toolPath, `${JSON.stringify(tool, null, 2)}\n`);
}

async function builtCopy(fixture: string): Promise<string> {
  const root = await copyProject(fixture);
  expect((await build({ root, persistentCache: false })).ok).toBe(true);
  return root;
}

describe("check with recorded token counts", () => {
  it("loads neither the tokenizer nor the schema compiler when dist/ is current", async () => {
    for (const root of [await builtCopy("basic"), repoRoot]) {
      const result = checkProcess(root);
      expect(result.status, root).toBe(0);
      expect(result.tokenizerLoaded, root).toBe(false);
      expect(result.compilerLoaded, root).toBe(false);
    }
  });

  it("checks a tool parameter schema that dist/ does not hold byte for byte, and reports it when invalid", async () => {
    const root = await builtCopy("basic");
    await breakToolParameters(root);
    const result = checkProcess(root, "--format", "json");
    expect(result.status).toBe(1);
    expect(result.compilerLoaded).toBe(true);
    expect(JSON.parse(result.stdout).diagnostics.map((d: { ruleId: string }) => d.ruleId)).toContain("tool/invalid-parameters");
  });

  it("checks an author's own enum on the skill tool's name, which the build would overwrite", async () => {
    const root = await builtCopy("basic");
    const toolPath = join(root, "schemas/tools/skill.json");
    const tool = JSON.parse(await readFile(toolPath, "utf8")) as { parameters: { properties: { name: Record<string, unknown> } } };
    tool.parameters.properties.name["enum"] = 5;
    await writeFile(toolPath, `${JSON.stringify(tool, null, 2)}\n`);
    const result = await check({ root });
    expect(result.diagnostics.map((d) => d.ruleId)).toContain("tool/invalid-parameters");
  });

  it("counts again what changed, and reports the drift", async () => {
    const root = await builtCopy("basic");
    const skill = join(root, "skills/outline-deck/SKILL.md");
    await writeFile(skill, `${await readFile(skill, "utf8")}\nOne more line for the body.\n`);
    const result = checkProcess(root);
    expect(result.status).toBe(1);
    expect(result.tokenizerLoaded).toBe(true);
  });

  it("counts everything with --full", async () => {
    const root = await builtCopy("basic");
    const result = checkProcess(root, "--full");
    expect(result.status).toBe(0);
    expect(result.tokenizerLoaded).toBe(true);
  });

  it("finds exactly what --full finds, current or drifted", async () => {
    const root = await builtCopy("basic");
    expect(await check({ root })).toEqual(await check({ root, full: true }));
    const partial = join(root, "prompts/partials/intro.hbs");
    await writeFile(partial, (await readFile(partial, "utf8")).replace("Follow the skill contracts.", "Follow every skill contract."));
    const skill = join(root, "skills/outline-deck/SKILL.md");
    await writeFile(skill, `${await readFile(skill, "utf8")}\nOne more line for the body.\n`);
    const drifted = await check({ root });
    expect(drifted.ok).toBe(false);
    expect(drifted).toEqual(await check({ root, full: true }));
  });

  it("takes a recorded count only for the bytes it was recorded for: --full catches a hand-edited count", async () => {
    const root = await builtCopy("basic");
    const manifestPath = join(root, "dist/manifest.json");
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as { skills: Record<string, { tokens: number }> };
    const [name] = Object.keys(manifest.skills);
    (manifest.skills[name ?? ""] as { tokens: number }).tokens += 1;
    await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    expect((await check({ root, full: true })).ok).toBe(false);
  });

  it("ignores records made by another tokenizer version", async () => {
    const root = await builtCopy("basic");
    const manifestPath = join(root, "dist/manifest.json");
    const text = await readFile(manifestPath, "utf8");
    const manifest = JSON.parse(text) as { tokenizer: { version: string } };
    await writeFile(manifestPath, text.replace(JSON.stringify(manifest.tokenizer.version), '"0.0.1"'));
    const result = checkProcess(root);
    expect(result.status).toBe(1); // the manifest names another tokenizer version: drift
    expect(result.tokenizerLoaded).toBe(true);
  });
});

describe("lint with a built dist/", () => {
  function lintProcess(root: string): { status: number | null; compilerLoaded: boolean; stdout: string } {
    const child = spawnSync(process.execPath, ["--require", hook, cliPath, "lint", "--root", root, "--format", "json"], { encoding: "utf8" });
    return { status: child.status, compilerLoaded: child.stderr.includes("SCHEMA COMPILER LOADED"), stdout: child.stdout };
  }

  it("takes the tool parameter schemas dist/ accepted byte for byte without loading the schema compiler", async () => {
    for (const root of [await builtCopy("basic"), repoRoot]) {
      const result = lintProcess(root);
      expect(result.status, root).toBe(0);
      expect(result.compilerLoaded, root).toBe(false);
    }
  });

  it("compiles a schema that differs from dist/'s, and reports it when invalid", async () => {
    const root = await builtCopy("basic");
    await breakToolParameters(root);
    const result = lintProcess(root);
    expect(result.status).toBe(1);
    expect(result.compilerLoaded).toBe(true);
    expect(JSON.parse(result.stdout).diagnostics.map((d: { ruleId: string }) => d.ruleId)).toContain("tool/invalid-parameters");
  });

  it("compiles every schema again when dist/'s tool list no longer has the hash its manifest records", async () => {
    const root = await builtCopy("basic");
    const tools = join(root, "dist", "tools.json");
    await writeFile(tools, `${await readFile(tools, "utf8")} `);
    const result = lintProcess(root);
    expect(result.status).toBe(0);
    expect(result.compilerLoaded).toBe(true);
  });
});

describe("an editor's analysis with a built dist/", () => {
  // The analyzer the language server and the MCP server run, from the package's library, in a process of its own.
  function analysisProcess(root: string): { status: number | null; compilerLoaded: boolean; ruleIds: string[] } {
    const library = pathToFileURL(join(repoRoot, "lib", "index.js")).href;
    const script = `const { createProjectAnalyzer } = await import(${JSON.stringify(library)});
const analysis = await createProjectAnalyzer({ root: ${JSON.stringify(root)} }).analyze();
process.stdout.write(JSON.stringify(analysis.diagnostics.map((d) => d.ruleId)));`;
    const child = spawnSync(process.execPath, ["--require", hook, "--input-type=module", "-e", script], { encoding: "utf8" });
    return { status: child.status, compilerLoaded: child.stderr.includes("SCHEMA COMPILER LOADED"), ruleIds: child.status === 0 ? (JSON.parse(child.stdout) as string[]) : [child.stderr] };
  }

  it("takes the tool parameter schemas dist/ accepted byte for byte, as lint does", async () => {
    const root = await builtCopy("basic");
    const result = analysisProcess(root);
    expect(result.ruleIds).toEqual(analysisProcess(await copyProject("basic")).ruleIds);
    expect(result.ruleIds.filter((id) => id.startsWith("tool/"))).toEqual([]);
    expect(result.compilerLoaded).toBe(false);
  });

  it("compiles a schema that differs from dist/'s, and reports it when invalid", async () => {
    const root = await builtCopy("basic");
    await breakToolParameters(root);
    const result = analysisProcess(root);
    expect(result.compilerLoaded).toBe(true);
    expect(result.ruleIds).toContain("tool/invalid-parameters");
  });

  it("compiles every schema without a dist/ to vouch for them", async () => {
    const result = analysisProcess(await copyProject("basic"));
    expect(result.ruleIds.filter((id) => id.startsWith("tool/"))).toEqual([]);
    expect(result.compilerLoaded).toBe(true);
  });
});
