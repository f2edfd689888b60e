import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runCliInProcess as run, runCliInProcessFrom as runIn } from "../helpers/cli.js";
import { fixturesDir, golden, prettyJson } from "./helpers.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));


const fixture = (name: string): string => join(fixturesDir, name);


const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("gamma-prompt lint: the JSON contract", () => {
  it("prints exactly one JSON document with the contract's keys in order", async () => {
    const { code, stdout } = await runIn(fixture("reference-unknown"), "lint", "--profile", "gamma", "--format", "json");
    expect(code).toBe(1);
    expect(stdout.endsWith("}\n")).toBe(true);
    expect(stdout.trimEnd().includes("\n")).toBe(false);
    const document = JSON.parse(stdout) as { diagnostics: Array<Record<string, unknown>> };
    expect(Object.keys(document)).toEqual(["diagnostics", "errorCount", "warningCount", "noteCount"]);
    expect(Object.keys(document.diagnostics[0] ?? {})).toEqual(["file", "line", "column", "endLine", "endColumn", "severity", "ruleId", "message", "url"]);
    expect(prettyJson(stdout)).toBe(golden("reference-unknown", stdout));
  });

  it("adds the related location last, when a finding has one", async () => {
    const { stdout } = await runIn(fixture("name-duplicate"), "lint", "--profile", "gamma", "--format", "json");
    const [duplicate] = (JSON.parse(stdout) as { diagnostics: Array<Record<string, unknown>> }).diagnostics;
    expect(Object.keys(duplicate ?? {})).toEqual(["file", "line", "column", "endLine", "endColumn", "severity", "ruleId", "message", "url", "related"]);
    expect(duplicate?.["related"]).toEqual({ file: "skills/first/SKILL.md", line: 2, column: 7, endLine: 2, endColumn: 12, message: 'first skill named "first"' });
  });

  it("is the same document from the compiled bin in a child process", () => {
    const bin = join(repoRoot, "lib", "cli", "index.js");
    expect(existsSync(bin), "run `npm test` (it compiles lib/ first)").toBe(true);
    const child = spawnSync(process.execPath, [bin, "lint", "--profile", "gamma", "--format", "json"], { encoding: "utf8", cwd: fixture("crlf-bom") });
    expect(child.status).toBe(1);
    expect(child.stderr).toBe("");
    expect(prettyJson(child.stdout)).toBe(readFileSync(join(fixture("crlf-bom"), "expected.json"), "utf8"));
  });

  it("reports an empty list for a clean tree", async () => {
    const { code, stdout } = await run("lint", "--root", fixture("good-tree"), "--format", "json");
    expect(code).toBe(0);
    expect(stdout).toBe('{"diagnostics":[],"errorCount":0,"warningCount":0,"noteCount":0}\n');
  });
});

describe("gamma-prompt lint: exit codes", () => {
  it("exits 0 on the embedded default in the current folder", async () => {
    const cwd = process.cwd();
    process.chdir(repoRoot);
    try {
      const { code, stdout } = await run("lint");
      expect({ code, stdout }).toEqual({ code: 0, stdout: "✔ no problems · 7 skills, profile gamma\n" });
    } finally {
      process.chdir(cwd);
    }
  });

  it("exits 1 on errors", async () => {
    expect((await run("lint", "--root", fixture("name-mismatch"))).code).toBe(1);
  });

  it("exits 0 on warnings alone, 1 when they exceed --max-warnings", async () => {
    const root = fixture("description-trigger");
    expect((await run("lint", "--root", root)).code).toBe(0);
    expect((await run("lint", "--root", root, "--max-warnings", "1")).code).toBe(0);
    const over = await run("lint", "--root", root, "--max-warnings", "0");
    expect(over.code).toBe(1);
    expect(over.stderr).toContain("more than --max-warnings 0");
  });

  it.each(["json", "github", "sarif"])("says on stderr why --max-warnings failed the run under --format %s, stdout keeping the document", async (format) => {
    const over = await run("lint", "--root", fixture("description-trigger"), "--max-warnings", "0", "--format", format);
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(/^gamma-prompt lint: \d+ warnings?, more than --max-warnings 0\n$/);
    expect(over.stdout).not.toContain("--max-warnings");
    const within = await run("lint", "--root", fixture("description-trigger"), "--max-warnings", "5", "--format", format);
    expect(within).toMatchObject({ code: 0, stderr: "" });
  });

  it("exits 2 for an unknown --format, printing nothing on stdout", async () => {
    const { code, stdout, stderr } = await run("lint", "--root", fixture("good-tree"), "--format", "xml");
    expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
    expect(stderr).toContain("Allowed choices are stylish, json, github, sarif");
  });

  it("exits 2 for a --max-warnings that is not a whole number", async () => {
    for (const value of ["-1", "two", "1.5"]) {
      const { code, stderr } = await run("lint", "--root", fixture("good-tree"), "--max-warnings", value);
      expect(code).toBe(2);
      expect(stderr).toContain("expected a whole number");
    }
  });

  it("exits 2 when --root does not exist or has no skills/ folder", async () => {
    const missing = await run("lint", "--root", join(fixturesDir, "no-such-folder"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`gamma-prompt lint: project root "${join(fixturesDir, "no-such-folder")}" does not exist; pass --root with the project's folder\n`);
    const empty = mkdtempSync(join(tmpdir(), "gamma-prompt-lint-"));
    temps.push(empty);
    const noSkills = await run("lint", "--root", empty);
    expect(noSkills.code).toBe(2);
    expect(noSkills.stderr).toContain("has no skills/ folder");
    expect(noSkills.stderr).not.toMatch(/\n\s+at /);
  });

  it("names where the skills are when they sit under another layout: every pattern (or the first four and how many more), the folders that hold them before dot-folder copies, deep layouts too, and also for a root without skills/", async () => {
    const project = (folders: readonly string[], withSkillsFolder = true): string => {
      const root = mkdtempSync(join(tmpdir(), "gamma-prompt-lint-"));
      temps.push(root);
      if (withSkillsFolder) mkdirSync(join(root, "skills"), { recursive: true });
      for (const folder of folders) {
        mkdirSync(join(root, folder), { recursive: true });
        const name = folder.split("/").at(-1) ?? "";
        writeFileSync(join(root, folder, "SKILL.md"), `---\nname: ${name}\ndescription: Use when setting up ${name}.\n---\n\n# ${name}\n`);
      }
      return root;
    };
    const hintOf = async (root: string): Promise<{ code: number; text: string }> => {
      const linted = await run("lint", "--root", root, "--format", "json");
      if (linted.code === 2) return { code: 2, text: linted.stderr };
      return { code: linted.code, text: (JSON.parse(linted.stdout) as { diagnostics: Array<{ message: string }> }).diagnostics.map((diagnostic) => diagnostic.message).join("\n") };
    };
    // Six category folders and a copy for one host: one pattern for the categories, named first.
    const categories = project([...["android", "angular", "flutter", "ios", "react", "swift"].map((category) => `skills/${category}/setup-${category}`), ".github/skills/setup-x"]);
    expect((await hintOf(categories)).text).toContain('SKILL.md files are under "skills/*/*", ".github/skills/*": add the ones that hold the skills to "skills" in gamma-prompt.config.json');
    // More patterns than a message lists: none is dropped without a word.
    const many = project(["skills/core/base", ...["a", "b", "c", "d", "e", "f"].map((host) => `.${host}/skills/base`)]);
    expect((await hintOf(many)).text).toContain('SKILL.md files are under "skills/core/*", ".a/skills/*", ".b/skills/*", ".c/skills/*" and 3 more: add the ones');
    // Five folders deep, as APM packages keep them.
    const packages = project(["packages/web/.apm/skills/lint-css", "packages/app/.apm/skills/run-app"]);
    expect((await hintOf(packages)).text).toContain('SKILL.md files are under "packages/*/.apm/skills/*": add that to "skills"');
    // No skills/ folder at all: still a usage error (exit 2), now with the hint.
    const atRoot = project(["kpi-calculator", "mcp-builder"], false);
    const bare = await hintOf(atRoot);
    expect(bare.code).toBe(2);
    expect(bare.text).toBe(`gamma-prompt lint: project root "${atRoot}" has no skills/ folder; SKILL.md files are under "*": name that in "skills" of gamma-prompt.config.json (gamma-prompt init writes it), or pass --root with the folder that holds skills/\n`);
  });

  it("warns and exits 1 for a skills/ folder with no skills, and exits 0 with --allow-empty", async () => {
    const root = mkdtempSync(join(tmpdir(), "gamma-prompt-lint-"));
    temps.push(root);
    mkdirSync(join(root, "skills"));
    writeFileSync(join(root, "skills", "README.md"), "Skills go in folders.\n");
    const empty = await run("lint", "--root", root, "--format", "json");
    expect(empty.code).toBe(1);
    expect(JSON.parse(empty.stdout)).toMatchObject({ errorCount: 0, warningCount: 1, diagnostics: [{ ruleId: "skill/no-skills", severity: "warning" }] });
    expect(await run("lint", "--root", root, "--format", "json", "--allow-empty")).toEqual({ code: 0, stdout: '{"diagnostics":[],"errorCount":0,"warningCount":0,"noteCount":0}\n', stderr: "" });
  });

  it.each(["stylish", "json", "github", "sarif"])("says on stderr why a run that found no skill failed under --format %s, in one line", async (format) => {
    const root = mkdtempSync(join(tmpdir(), "gamma-prompt-lint-"));
    temps.push(root);
    mkdirSync(join(root, "skills"));
    const empty = await run("lint", "--root", root, "--format", format);
    expect(empty.code).toBe(1);
    const why = "gamma-prompt lint: no skill found, which fails the run (skill/no-skills); pass --allow-empty when an empty project is intended\n";
    expect(empty.stderr).toBe(why);
    expect(empty.stdout).toContain("skill/no-skills");
    expect((await run("lint", "--root", root, "--format", format, "--allow-empty")).stderr).toBe("");
  });

  it("passes a project without skills whose config sets skill/no-skills to note, as a note never fails a run, and fails it as a warning or an error", async () => {
    const root = mkdtempSync(join(tmpdir(), "gamma-prompt-lint-"));
    temps.push(root);
    mkdirSync(join(root, "skills"));
    const lintWith = async (setting: string) => {
      writeFileSync(join(root, "gamma-prompt.config.json"), `${JSON.stringify({ rules: { "skill/no-skills": setting } })}\n`);
      return run("lint", "--root", root, "--format", "json");
    };
    const note = await lintWith("note");
    expect({ code: note.code, stderr: note.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(note.stdout)).toMatchObject({ errorCount: 0, warningCount: 0, noteCount: 1, diagnostics: [{ ruleId: "skill/no-skills", severity: "note" }] });
    const stylish = await run("lint", "--root", root);
    expect({ code: stylish.code, stderr: stylish.stderr }).toEqual({ code: 0, stderr: "" });
    expect(stylish.stdout).toContain("skill/no-skills");
    const warn = await lintWith("warn");
    expect(warn.code).toBe(1);
    expect(warn.stderr).toBe("gamma-prompt lint: no skill found, which fails the run (skill/no-skills); pass --allow-empty when an empty project is intended\n");
    const error = await lintWith("error");
    expect(error.code).toBe(1);
    expect(JSON.parse(error.stdout)).toMatchObject({ errorCount: 1, diagnostics: [{ ruleId: "skill/no-skills", severity: "error" }] });
  });

  it("exits 1 with skill/no-skills when folders hold a SKILL.md under another spelling, even with that finding turned off", async () => {
    // skills/foo/skill.md and skills/bar/Skill.md: no skill was checked, whatever else the run reports.
    const misnamed = await runIn(fixture("no-skills-misnamed"), "lint", "--format", "json");
    expect(misnamed.code).toBe(1);
    expect((JSON.parse(misnamed.stdout) as { diagnostics: Array<{ ruleId: string }> }).diagnostics.map((diagnostic) => diagnostic.ruleId)).toEqual(["skill/no-skills"]);
    expect(await runIn(fixture("no-skills-misnamed"), "lint", "--format", "json", "--allow-empty")).toMatchObject({ code: 0 });
    const root = mkdtempSync(join(tmpdir(), "gamma-prompt-lint-"));
    temps.push(root);
    mkdirSync(join(root, "skills", "empty"), { recursive: true });
    const emptyFolder = await run("lint", "--root", root, "--format", "json");
    expect(emptyFolder.code).toBe(1);
    expect((JSON.parse(emptyFolder.stdout) as { diagnostics: Array<{ ruleId: string }> }).diagnostics.map((diagnostic) => diagnostic.ruleId)).toEqual(["skill/no-skills", "skill/missing-skill-file"]);
  });

  it("documents the options and examples in --help", async () => {
    const { code, stdout } = await run("lint", "--help");
    expect(code).toBe(0);
    for (const text of ["--root <dir>", "--format <name>", "--max-warnings <n>", "Examples:", "Exit codes:"]) expect(stdout).toContain(text);
  });
});

describe("gamma-prompt lint: human and GitHub formats", () => {
  it("prints stylish output grouped by file with a summary", async () => {
    const { stdout } = await runIn(fixture("reference-self"), "lint", "--profile", "gamma");
    expect(stdout).toBe(readFileSync(join(repoRoot, "test", "lint", "golden", "reference-self.stylish.txt"), "utf8"));
  });

  it("prints one GitHub annotation per finding, its file relative to the working folder whatever --root is", async () => {
    const annotation =
      'line=6,col=25,endLine=6,endColumn=31,title=skill/conflict-one-sided::Unexpected one-sided conflict with "second", expected "second" to list "first" in metadata.gamma-conflicts-with too\n';
    const fromRepository = await runIn(repoRoot, "lint", "--root", "test/fixtures/lint/conflict-one-sided", "--format", "github");
    expect(fromRepository.stdout).toBe(`::warning file=test/fixtures/lint/conflict-one-sided/skills/first/SKILL.md,${annotation}`);
    const fromSkills = await runIn(join(fixture("conflict-one-sided"), "skills"), "lint", "--root", "..", "--format", "github");
    expect(fromSkills.stdout).toBe(`::warning file=first/SKILL.md,${annotation}`);
  });
});
