import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { runCli } from "../../src/cli/program.js";
import { createDiagnostic, FILE_START } from "../../src/diagnostics/diagnostic.js";
import { formatDiagnostics } from "../../src/diagnostics/reporters/index.js";
import { ruleDocUrl, ruleRegistry } from "../../src/diagnostics/rules/index.js";
import { lintFixture, sarifValidator } from "./helpers.js";


describe("--format sarif", () => {
  it("is a valid SARIF 2.1.0 log, with every rule's metadata, help text and helpUri", async () => {
    const result = await lintFixture("broken-link");
    const text = formatDiagnostics("sarif", result.diagnostics, result);
    const log = JSON.parse(text) as {
      version: string;
      runs: Array<{ tool: { driver: { rules: Array<{ id: string; helpUri: string; help: { text: string }; shortDescription: { text: string } }> } }; results: Array<Record<string, unknown>> }>;
    };
    const validate = sarifValidator();
    expect(validate(log), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    expect(validate({ version: "2.1.0" }), "the schema rejects a log without runs").toBe(false);
    expect(log.version).toBe("2.1.0");
    const run = log.runs[0];
    expect(run?.tool.driver.rules.map((rule) => rule.id)).toEqual([...new Set(result.diagnostics.map((diagnostic) => diagnostic.ruleId))].sort());
    expect(run?.tool.driver.rules.every((rule) => rule.shortDescription.text === ruleRegistry[rule.id as keyof typeof ruleRegistry].description)).toBe(true);
    const brokenLink = run?.tool.driver.rules.find((rule) => rule.id === "skill/broken-link");
    expect(brokenLink?.helpUri).toBe(ruleDocUrl("skill/broken-link"));
    expect(brokenLink?.help.text).toContain("Bad:");
    expect(run?.results).toHaveLength(result.diagnostics.length);
    expect(run?.results[0]).toMatchObject({ ruleId: "skill/broken-link", level: "error", locations: [{ physicalLocation: { artifactLocation: { uri: "skills/forms/SKILL.md" } } }] });
  });

  it("stays valid for an empty run and for findings about folders and odd file names", () => {
    const validate = sarifValidator();
    expect(validate(JSON.parse(formatDiagnostics("sarif", [], { errorCount: 0, warningCount: 0 })))).toBe(true);
    const odd = formatDiagnostics("sarif", [createDiagnostic("skill/missing-skill-file", "skills/a b%/SKILL.md", FILE_START, "m")], { errorCount: 0, warningCount: 1 });
    expect(validate(JSON.parse(odd))).toBe(true);
    expect(odd).toContain('"uri": "skills/a%20b%25/SKILL.md"');
  });
});

describe("build and check speak sarif and github too", () => {
  it("check --format sarif prints a valid log (no results for the current embedded default)", async () => {
    let stdout = "";
    const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
    let code: number;
    try {
      code = await runCli(["node", "gamma-prompt", "check", "--root", fileURLToPath(new URL("../..", import.meta.url)), "--format", "sarif"]);
    } finally {
      out.mockRestore();
    }
    expect(code).toBe(0);
    const log = JSON.parse(stdout) as { runs: Array<{ results: unknown[] }> };
    expect(sarifValidator()(log)).toBe(true);
    expect(log.runs[0]?.results).toEqual([]);
  });
});
