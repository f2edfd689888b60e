import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { countDiagnostics, createDiagnostic, FILE_START } from "../../src/diagnostics/diagnostic.js";
import { exitCodeFor } from "../../src/diagnostics/exit-code.js";
import { formatDiagnostics } from "../../src/diagnostics/reporters/index.js";
import { ruleRegistry } from "../../src/diagnostics/rules/index.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { fixturesDir, lintFixture, sarifValidator } from "./helpers.js";

/**
 * The third severity: a note is shown and counted apart, in every format,
 * and never changes the exit code (not even with --max-warnings 0).
 */

const note = createDiagnostic("skill/unreferenced-file", "skills/pdf/SKILL.md", FILE_START, 'Unreferenced supporting file "SPEC.md"', {
  file: "skills/pdf/SPEC.md",
  range: FILE_START,
  message: "the file",
});
const warning = createDiagnostic("skill/unknown-key", "skills/pdf/SKILL.md", { start: { line: 3, column: 1 }, end: { line: 3, column: 5 } }, "Unexpected key");

describe("the note severity", () => {
  it("is its own count and never fails a run", () => {
    expect(note.severity).toBe("note");
    expect(ruleRegistry["skill/unreferenced-file"].severity).toBe("note");
    const counts = countDiagnostics([note, note, warning]);
    expect(counts).toEqual({ errorCount: 0, warningCount: 1, noteCount: 2 });
    expect(exitCodeFor(countDiagnostics([note, note]), 0)).toBe(0);
  });

  it("stylish shows notes and counts them apart from problems", () => {
    const alone = formatDiagnostics("stylish", [note], countDiagnostics([note]));
    expect(alone).toBe('\nskills/pdf/SKILL.md\n  1:1  note  Unreferenced supporting file "SPEC.md"  skill/unreferenced-file\n    the file: skills/pdf/SPEC.md:1:1\n\n✔ no problems, 1 note\n');
    const mixed = formatDiagnostics("stylish", [note, warning], { errorCount: 0, warningCount: 1 });
    expect(mixed.trimEnd().split("\n").at(-1)).toBe("✖ 1 problem (0 errors, 1 warning), 1 note");
  });

  it("json carries noteCount; github prints ::notice; sarif uses level note and stays valid", () => {
    expect(JSON.parse(formatDiagnostics("json", [note], countDiagnostics([note])))).toMatchObject({ errorCount: 0, warningCount: 0, noteCount: 1, diagnostics: [{ severity: "note" }] });
    expect(formatDiagnostics("github", [note], countDiagnostics([note]))).toMatch(/^::notice file=skills\/pdf\/SKILL\.md,line=1,col=1,endLine=1,endColumn=1,title=skill\/unreferenced-file::/);
    const log = JSON.parse(formatDiagnostics("sarif", [note, warning], countDiagnostics([note, warning]))) as {
      runs: Array<{ tool: { driver: { rules: Array<{ id: string; defaultConfiguration: { level: string } }> } }; results: Array<{ level: string }> }>;
    };
    const validate = sarifValidator();
    expect(validate(log), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    expect(log.runs[0]?.results.map((result) => result.level)).toEqual(["note", "warning"]);
    expect(log.runs[0]?.tool.driver.rules.find((rule) => rule.id === "skill/unreferenced-file")?.defaultConfiguration.level).toBe("note");
  });
});

describe("lint with notes only", () => {
  let project: string | undefined;
  afterEach(() => {
    if (project) rmSync(project, { recursive: true, force: true });
    project = undefined;
  });

  it("exits 0 and says so, even with --max-warnings 0", async () => {
    project = mkdtempSync(join(tmpdir(), "gamma-prompt-notes-"));
    cpSync(join(fixturesDir, "unreferenced-file"), project, { recursive: true });
    const run = await runCliInProcessFrom(project, "lint", "--profile", "gamma", "--max-warnings", "0");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("✔ no problems, 5 notes · 2 skills, profile gamma");
    const github = await runCliInProcessFrom(project, "lint", "--profile", "gamma", "--format", "github");
    expect(github.code).toBe(0);
    expect(github.stdout.split("\n").filter((line) => line.startsWith("::notice "))).toHaveLength(5);
  });

  it("config rules can raise a note to an error, lower a warning to a note, or turn it off", async () => {
    project = mkdtempSync(join(tmpdir(), "gamma-prompt-notes-"));
    cpSync(join(fixturesDir, "unreferenced-file"), project, { recursive: true });
    const write = (rules: Record<string, string>) => writeFileSync(join(project as string, "gamma-prompt.config.json"), JSON.stringify({ profile: "gamma", rules }));
    write({ "skill/unreferenced-file": "error" });
    const raised = await runCliInProcessFrom(project, "lint", "--format", "json");
    expect(raised.code).toBe(1);
    expect(JSON.parse(raised.stdout)).toMatchObject({ errorCount: 5, noteCount: 0 });
    write({ "skill/unreferenced-file": "off" });
    expect(JSON.parse((await runCliInProcessFrom(project, "lint", "--format", "json")).stdout)).toMatchObject({ errorCount: 0, noteCount: 0, diagnostics: [] });
    writeFileSync(join(project, "skills/slides/SKILL.md"), readFileSync(join(project, "skills/slides/SKILL.md"), "utf8").replace("name: slides", "name: slides\nversion: 1.10"));
    write({ "skill/host-key-value": "note" });
    const lowered = await runCliInProcessFrom(project, "lint", "--format", "json");
    expect(lowered.code).toBe(0);
    expect(JSON.parse(lowered.stdout)).toMatchObject({ errorCount: 0, warningCount: 0, noteCount: 6 });
  });

  it("a fixture whose every supporting file is named has no note", async () => {
    expect((await lintFixture("good-referenced-files")).diagnostics).toEqual([]);
  });
});
