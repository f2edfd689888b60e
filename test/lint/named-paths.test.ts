/**
 * `gamma-prompt lint <paths...>`: what a pre-commit hook or lint-staged passes (the staged files), and what
 * a user from eslint types (`lint .`, `lint path/to/collection`). The named files and folders limit what is
 * reported and fixed; the project is still read whole, so a finding that depends on another skill is the
 * same. The fixture: alpha links to a missing file, beta takes alpha's name, delta and gamma-tools write
 * their tools with commas (a warning lint --fix mends).
 */
import { cpSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lint } from "../../src/lint.js";
import { runCliInProcessFrom as runIn } from "../helpers/cli.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { fixturesDir } from "./helpers.js";

const project = join(fixturesDir, "named-paths");

afterAll(removeTempDirs);

interface Finding {
  file: string;
  ruleId: string;
}

function findings(stdout: string): { files: string[]; rules: string[]; errorCount: number; warningCount: number } {
  const document = JSON.parse(stdout) as { diagnostics: Finding[]; errorCount: number; warningCount: number };
  return {
    files: [...new Set(document.diagnostics.map((finding) => finding.file))],
    rules: document.diagnostics.map((finding) => `${finding.file} ${finding.ruleId}`),
    errorCount: document.errorCount,
    warningCount: document.warningCount,
  };
}

describe("gamma-prompt lint <paths...>", () => {
  it("`lint .` in the project is the whole project, as `lint` alone", async () => {
    const whole = await runIn(project, "lint", "--format", "json");
    const dot = await runIn(project, "lint", ".", "--format", "json");
    expect(dot).toEqual(whole);
    expect(findings(dot.stdout).files).toEqual(["skills/alpha/SKILL.md", "skills/beta/SKILL.md", "skills/delta/SKILL.md", "skills/gamma-tools/SKILL.md"]);
  });

  it("a staged SKILL.md reports its own findings only, counts them, and exits by them", async () => {
    const run = await runIn(project, "lint", "skills/delta/SKILL.md", "--format", "json");
    expect(run.stderr).toBe("");
    expect(findings(run.stdout)).toEqual({ files: ["skills/delta/SKILL.md"], rules: ["skills/delta/SKILL.md skill/allowed-tools-format"], errorCount: 0, warningCount: 1 });
    expect(run.code).toBe(0);
    expect((await runIn(project, "lint", "skills/delta/SKILL.md", "--max-warnings", "0")).code).toBe(1);
  });

  it("a finding that depends on another skill is the same: beta alone still takes alpha's name", async () => {
    const run = await runIn(project, "lint", "skills/beta", "--format", "json");
    expect(findings(run.stdout).rules).toEqual(["skills/beta/SKILL.md skill/name-duplicate", "skills/beta/SKILL.md skill/name-mismatch"]);
    expect(run.code).toBe(1);
  });

  it("several paths, folders and files, from a folder inside the project; findings stay relative to the working folder", async () => {
    const run = await runIn(join(project, "skills"), "lint", "alpha", "delta/SKILL.md", "--format", "json");
    expect(run.stderr).toBe("gamma-prompt lint: using the project in ../ (its skills/ or prompts/)\n");
    expect(findings(run.stdout).files).toEqual(["alpha/SKILL.md", "delta/SKILL.md"]);
  });

  it("a folder that is a project is its own root, from outside it", async () => {
    const run = await runIn(fixturesDir, "lint", "named-paths", "--format", "json");
    expect(run.stderr).toBe("");
    expect(findings(run.stdout).files).toHaveLength(4);
    expect(findings(run.stdout).files[0]).toBe("named-paths/skills/alpha/SKILL.md");
  });

  it("a file of the project that holds no finding (a README a hook passes along) passes", async () => {
    const run = await runIn(project, "lint", "skills/gamma-tools", "skills/beta/SKILL.md", "--format", "json");
    expect(findings(run.stdout).files).toEqual(["skills/beta/SKILL.md", "skills/gamma-tools/SKILL.md"]);
  });

  it("--fix with a path fixes only the files under it", async () => {
    const copy = await tempDir("named paths fix");
    cpSync(project, copy, { recursive: true });
    const run = await runIn(copy, "lint", "--fix", "skills/delta");
    expect(run.code).toBe(0);
    expect(readFileSync(join(copy, "skills", "delta", "SKILL.md"), "utf8")).toContain("allowed-tools: Read Grep\n");
    expect(readFileSync(join(copy, "skills", "gamma-tools", "SKILL.md"), "utf8")).toBe(readFileSync(join(project, "skills", "gamma-tools", "SKILL.md"), "utf8"));
  });

  it("at a monorepo's top, `lint .` names the projects below, as `lint` alone does", async () => {
    const top = await tempDir("named paths monorepo");
    mkdirSync(join(top, ".git"));
    cpSync(project, join(top, "packages", "agent"), { recursive: true });
    const run = await runIn(top, "lint", ".");
    expect(run).toMatchObject({ code: 2, stdout: "" });
    expect(run.stderr).toBe('gamma-prompt lint: "." is in no project (no folder at or above it has gamma-prompt.config.json or skills/); projects below it: packages/agent; pass --root with the project\'s folder, or name files in it\n');
  });

  it("refuses, as usage errors (exit 2), a path that does not exist, one outside --root, and paths of two projects", async () => {
    const missing = await runIn(project, "lint", "skills/epsilon");
    expect(missing).toMatchObject({ code: 2, stdout: "", stderr: 'gamma-prompt lint: "skills/epsilon" does not exist; name files or folders of the project, or none to check it whole\n' });
    const outside = await runIn(fixturesDir, "lint", "--root", "named-paths", "good-tree");
    expect(outside).toMatchObject({ code: 2, stdout: "", stderr: 'gamma-prompt lint: "good-tree" is outside the project root named-paths/; name files or folders inside it\n' });
    const two = await runIn(fixturesDir, "lint", "named-paths/skills/alpha", "good-tree/skills");
    expect(two).toMatchObject({ code: 2, stdout: "" });
    expect(two.stderr).toBe("gamma-prompt lint: the paths are in 2 projects (named-paths/, good-tree/); run it once per project\n");
  });
});

describe("lint({ paths })", () => {
  it("reports the findings under the paths, counted, from the project read whole", async () => {
    const result = await lint({ root: project, paths: ["skills/beta/SKILL.md", "skills/delta/"] });
    expect(result.diagnostics.map((finding) => `${finding.file} ${finding.ruleId}`)).toEqual([
      "skills/beta/SKILL.md skill/name-duplicate",
      "skills/beta/SKILL.md skill/name-mismatch",
      "skills/delta/SKILL.md skill/allowed-tools-format",
    ]);
    expect([result.errorCount, result.warningCount, result.skillFileCount]).toEqual([2, 1, 4]);
    expect((await lint({ root: project, paths: ["."] })).diagnostics).toHaveLength(5);
  });

  it("refuses a path that is absolute or leaves the root, naming it", async () => {
    await expect(lint({ root: project, paths: ["../good-tree"] })).rejects.toThrow('Unexpected paths[0] "../good-tree", expected a file or folder inside the root, relative to it (such as "skills/x" or ".")');
    await expect(lint({ root: project, paths: ["skills", "/etc"] })).rejects.toThrow("Unexpected paths[1]");
    await expect(lint({ root: project, paths: [".", "../good-tree"] })).rejects.toThrow("Unexpected paths[1]");
    await expect(lint({ root: project, paths: "skills" as unknown as string[] })).rejects.toThrow(TypeError);
  });
});
