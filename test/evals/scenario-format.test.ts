import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadScenarios } from "../../src/evals/scenario.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { readGolden } from "../helpers/golden.js";

/**
 * Scenario files are hand-written input: every problem is a diagnostic with
 * file:line:column and a permanent rule id, hostile YAML included. One
 * fixture folder per case; expected.json is the golden list (UPDATE_GOLDEN=1
 * rewrites it).
 */
const fixtures = fileURLToPath(new URL("../fixtures/evals/", import.meta.url));
const artifacts = loadArtifacts({ distDir: fileURLToPath(new URL("../../dist/", import.meta.url)) });

function diagnosticsOf(caseName: string) {
  const { scenarios, diagnostics } = loadScenarios([`${caseName}/scenario.yaml`], artifacts, fixtures);
  return { scenarios, found: diagnostics.map(({ file, line, column, ruleId, message }) => ({ file, line, column, ruleId, message })) };
}

describe("evaluation scenario format", () => {
  for (const caseName of readdirSync(fixtures).filter((name) => name !== "valid").sort()) {
    it(`reports ${caseName} with positions and rule ids, and runs nothing`, () => {
      const { scenarios, found } = diagnosticsOf(caseName);
      const golden = join(fixtures, caseName, "expected.json");
      expect(found).toEqual(JSON.parse(readGolden(golden, `${JSON.stringify(found, null, 2)}\n`)));
      expect(found.length).toBeGreaterThan(0);
      expect(scenarios).toEqual([]);
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    });
  }

  it("loads a valid scenario with its cassette folder beside it", () => {
    const { scenarios, found } = diagnosticsOf("valid");
    expect(found).toEqual([]);
    expect(scenarios.map((loaded) => [loaded.file, loaded.scenario.name, loaded.cassetteDir])).toEqual([["valid/scenario.yaml", "valid", join(fixtures, "valid", "cassettes", "valid")]]);
  });

  it("names two scenarios with one name, pointing at the first", () => {
    const { diagnostics } = loadScenarios(["valid/scenario.yaml", "valid/scenario.yaml"], artifacts, fixtures);
    expect(diagnostics.map((diagnostic) => [diagnostic.ruleId, diagnostic.line, diagnostic.related?.line])).toEqual([["eval/duplicate-id", 1, 1]]);
  });

  it("refuses a FIFO where a scenario belongs without blocking", () => {
    const dir = mkdtempSync(join(tmpdir(), "gamma-eval-fifo-"));
    execFileSync("mkfifo", [join(dir, "pipe.yaml")]);
    const { diagnostics } = loadScenarios(["pipe.yaml"], artifacts, dir);
    expect(diagnostics.map((diagnostic) => [diagnostic.ruleId, diagnostic.message])).toEqual([["eval/invalid-scenario", "Unexpected FIFO where a scenario belongs, expected a regular YAML file"]]);
  });
});
