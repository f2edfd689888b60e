import { readdirSync } from "node:fs";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { compileProject } from "../../src/pipeline/compile/compile.js";
import { copyProject, fixturesDir, projectWithOverlay, removeTempDirs, updateGolden } from "./helpers.js";

afterAll(removeTempDirs);

const casesDir = join(fixturesDir, "errors");
const cases = readdirSync(casesDir).sort();

/**
 * Each case lays a few files over the basic fixture project; expected.json
 * holds the exact diagnostics. An error anywhere means nothing is written.
 */
describe.each(cases)("build error case %s", (name) => {
  it("reports the expected diagnostics with file:line:column and writes nothing", async () => {
    const root = await projectWithOverlay(join(casesDir, name));
    const result = await build({ root, persistentCache: false });
    const expectedFile = join(casesDir, name, "expected.json");
    if (updateGolden) await writeFile(expectedFile, `${JSON.stringify(result.diagnostics, null, 2)}\n`);
    expect(result.diagnostics).toEqual(JSON.parse(await readFile(expectedFile, "utf8")));
    expect(result.ok).toBe(false);
    expect(result.errorCount).toBeGreaterThan(0);
    expect(result.written).toEqual([]);
    expect(await readdir(root)).not.toContain("dist");
    // No temporary folder is left next to the output folder either.
    expect((await readdir(dirname(join(root, "dist")))).filter((entry) => entry.startsWith(".gamma-prompt-tmp-"))).toEqual([]);
  });
});

describe("missing sources", () => {
  it("names each required prompt source that is missing", async () => {
    const root = await copyProject("basic");
    await rm(join(root, "prompts/variants.yaml"));
    await rm(join(root, "schemas/tools/order.json"));
    const result = await build({ root, persistentCache: false });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.filter((d) => d.severity === "error").map((d) => [d.ruleId, d.file])).toEqual([
      ["source/missing-file", "prompts/variants.yaml"],
      ["source/missing-file", "schemas/tools/order.json"],
    ]);
  });
});

describe("token budgets", () => {
  it("returns each budget with the tokens measured against it, over budget or not, and reports the ones exceeded with those numbers", async () => {
    const over = await compileProject(await projectWithOverlay(join(casesDir, "budget-exceeded")));
    expect(over.tokenBudgets).toEqual({ prefixTokens: { measured: 393, budget: 300 }, catalogTokens: { measured: 163, budget: 100 } });
    expect(over.diagnostics.filter((d) => d.ruleId === "budget/prefix-exceeded" || d.ruleId === "budget/catalog-exceeded").map((d) => d.message)).toEqual([
      "Unexpected skill catalog of 163 tokens, expected at most 100 (budgets.catalogTokens)",
      "Unexpected static prefix of 393 tokens, expected at most 300 (budgets.prefixTokens)",
    ]);
    const within = await compileProject(await copyProject("basic"));
    expect(within.errorCount).toBe(0);
    expect(within.tokenBudgets).toEqual({ prefixTokens: { measured: 393, budget: 8000 }, catalogTokens: { measured: 163, budget: 4000 } });
  });
});
