import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCliInProcessFrom } from "../helpers/cli.js";
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
