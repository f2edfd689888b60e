import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { copyProject } from "../build/helpers.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

// An output folder with no build in it: one line naming the folder as the user gave it (relative to the
// working folder), never the runtime's verification report with an absolute path.
describe("a command that reads a build, pointed at a folder without one", () => {
  it.each([
    [["cost", "--out", "nope"], "gamma-prompt cost: no build at nope/: run `gamma-prompt build` first\n"],
    [["report", "--out", "nope"], "gamma-prompt report: no build at nope/: run `gamma-prompt build` first\n"],
    [["eval", "--replay", "--dist", "nope"], "gamma-prompt eval: no build at nope/: run `gamma-prompt build` first\n"],
    [["audit", "session.jsonl", "--dist", "nope"], "gamma-prompt audit: no build at nope/: pass --dist with the built dist/ the sessions ran on\n"],
    [["cost", "--out", "empty"], "gamma-prompt cost: no build in empty/ (it holds no manifest.json): run `gamma-prompt build` first\n"],
  ])("%j says so in one line, exit 2", async (args, stderr) => {
    const root = await tempDir("unbuilt");
    mkdirSync(join(root, "skills"));
    mkdirSync(join(root, "empty"));
    writeFileSync(join(root, "session.jsonl"), "{}\n");
    const run = await runCliInProcessFrom(root, ...args);
    expect(run).toEqual({ code: 2, stdout: "", stderr });
  });

  it("names the folder from the working folder when the project was found above it", async () => {
    const root = await tempDir("unbuilt");
    mkdirSync(join(root, "skills", "one"), { recursive: true });
    const run = await runCliInProcessFrom(join(root, "skills", "one"), "cost", "--out", "nope");
    expect(run).toEqual({ code: 2, stdout: "", stderr: "gamma-prompt cost: using the project in ../../ (its skills/ or prompts/)\ngamma-prompt cost: no build at ../../nope/: run `gamma-prompt build` first\n" });
  });
});

// An absolute --out (or --dist) is the folder itself, wherever it is: every command reads that folder and names it
// as given, never joined under the project root nor printed without its leading slash.
describe("a command given an absolute output folder", () => {
  it.each([
    [["cost", "--out"], "gamma-prompt cost: no build at ABS/: run `gamma-prompt build` first\n"],
    [["report", "--out"], "gamma-prompt report: no build at ABS/: run `gamma-prompt build` first\n"],
    [["eval", "--replay", "--dist"], "gamma-prompt eval: no build at ABS/: run `gamma-prompt build` first\n"],
    [["audit", "session.jsonl", "--dist"], "gamma-prompt audit: no build at ABS/: pass --dist with the built dist/ the sessions ran on\n"],
  ])("%j names a folder without a build as given, exit 2", async (args, stderr) => {
    const root = await tempDir("unbuilt");
    mkdirSync(join(root, "skills"));
    writeFileSync(join(root, "session.jsonl"), "{}\n");
    const absolute = join(await tempDir("unbuilt elsewhere"), "nope");
    for (const given of [absolute, `${absolute}/`]) {
      const run = await runCliInProcessFrom(root, ...args, given);
      expect(run).toEqual({ code: 2, stdout: "", stderr: stderr.replace("ABS", absolute) });
    }
  });

  it("check names a missing absolute output folder as given", async () => {
    const root = await copyProject("basic");
    const absolute = join(await tempDir("unbuilt elsewhere"), "nope");
    const run = await runCliInProcessFrom(root, "check", "--out", absolute);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`Unexpected missing output folder ${absolute}/, expected the folder \`gamma-prompt build\` writes`);
  });

  it("cost and report read a build written to an absolute folder outside the root, as build and check do", async () => {
    const root = await copyProject("basic");
    const absolute = join(await tempDir("built elsewhere"), "out");
    expect((await runCliInProcessFrom(root, "build", "--out", absolute)).code).toBe(0);
    expect((await runCliInProcessFrom(root, "check", "--out", absolute)).code).toBe(0);
    const cost = await runCliInProcessFrom(root, "cost", "--out", absolute, "--format", "json");
    expect(cost.stderr).toBe("");
    expect(cost.code).toBe(0);
    const html = join(await tempDir("report"), "report.html");
    const report = await runCliInProcessFrom(root, "report", "--out", absolute, "--output", html);
    expect(report.stderr).toBe("");
    expect(report.code).toBe(0);
  }, 120_000);
});
