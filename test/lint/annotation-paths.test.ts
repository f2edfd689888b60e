/**
 * `--format github` and `--format sarif` name files the way GitHub resolves
 * them: from the repository's root (GITHUB_WORKSPACE), even when the command
 * runs in a package's folder (a workspace script, a step's
 * `working-directory:`). Without GITHUB_WORKSPACE, and in the other formats,
 * files stay relative to the working folder.
 */
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

const project = fileURLToPath(new URL("../fixtures/fix/description-whitespace/project", import.meta.url));
let repository = "";
let pkg = "";
const saved = process.env["GITHUB_WORKSPACE"];

beforeAll(async () => {
  repository = await tempDir("gamma annotations");
  mkdirSync(join(repository, ".git"));
  pkg = join(repository, "packages", "agent-a");
  cpSync(project, pkg, { recursive: true });
});
afterEach(() => {
  if (saved === undefined) delete process.env["GITHUB_WORKSPACE"];
  else process.env["GITHUB_WORKSPACE"] = saved;
});
afterAll(removeTempDirs);

function githubFiles(stdout: string): string[] {
  return [...stdout.matchAll(/file=([^,]+),/g)].map((match) => match[1] as string).sort();
}

function sarifUris(stdout: string): string[] {
  const log = JSON.parse(stdout) as { runs: Array<{ results: Array<{ locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }> }> };
  return log.runs.flatMap((run) => run.results.flatMap((result) => result.locations.map((location) => location.physicalLocation.artifactLocation.uri))).sort();
}

describe("annotation paths in a package folder", () => {
  it("are relative to GITHUB_WORKSPACE for github and sarif when the files are inside it", async () => {
    process.env["GITHUB_WORKSPACE"] = repository;
    const expected = ["packages/agent-a/skills/double-quoted/SKILL.md", "packages/agent-a/skills/single-quoted/SKILL.md"];
    expect(githubFiles((await runCliInProcessFrom(pkg, "lint", "--format", "github")).stdout)).toEqual(expected);
    expect(sarifUris((await runCliInProcessFrom(pkg, "lint", "--format", "sarif")).stdout)).toEqual(expected);
    // From a folder inside the project, with --root: the same paths.
    expect(githubFiles((await runCliInProcessFrom(join(pkg, "skills"), "lint", "--root", "..", "--format", "github")).stdout)).toEqual(expected);
  });

  it("stay relative to the working folder in the json format, without GITHUB_WORKSPACE, and for files outside it", async () => {
    const local = ["skills/double-quoted/SKILL.md", "skills/single-quoted/SKILL.md"];
    process.env["GITHUB_WORKSPACE"] = repository;
    const json = JSON.parse((await runCliInProcessFrom(pkg, "lint", "--format", "json")).stdout) as { diagnostics: Array<{ file: string }> };
    expect([...new Set(json.diagnostics.map((diagnostic) => diagnostic.file))].sort()).toEqual(local);
    delete process.env["GITHUB_WORKSPACE"];
    expect(githubFiles((await runCliInProcessFrom(pkg, "lint", "--format", "github")).stdout)).toEqual(local);
    process.env["GITHUB_WORKSPACE"] = join(repository, "packages", "agent-b");
    expect(sarifUris((await runCliInProcessFrom(pkg, "lint", "--format", "sarif")).stdout)).toEqual(local);
  });
});
