/**
 * A file where the project's skills/ or output folder belongs says so, in one
 * line or one finding naming it, rather than "no skills/ folder", a journal
 * that cannot be created, or every artifact reported missing one by one.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { copyProject, removeTempDirs } from "../build/helpers.js";

afterAll(removeTempDirs);

describe("a file where a folder belongs", () => {
  it("at skills/: lint and build say it is a file, exit 2", async () => {
    const root = await copyProject("basic");
    rmSync(join(root, "skills"), { recursive: true });
    writeFileSync(join(root, "skills"), "not a folder\n");
    for (const command of ["lint", "build"]) {
      const run = await runCliInProcessFrom(root, command);
      expect(run.code, command).toBe(2);
      expect(run.stderr, command).toMatch(new RegExp(`^gamma-prompt ${command}: project root ".*" has a file named skills, expected a skills/ folder`));
    }
  });

  it("at dist/: build and watch refuse it as a usage error naming it, and leave it as it was", async () => {
    const root = await copyProject("basic");
    writeFileSync(join(root, "dist"), "not a folder\n");
    const build = await runCliInProcessFrom(root, "build");
    expect(build).toMatchObject({ code: 2, stdout: "", stderr: 'gamma-prompt build: output folder "dist" is a file, expected a folder: remove it or pass --out\n' });
    const watch = await runCliInProcessFrom(root, "watch", "--format", "json");
    expect(watch).toMatchObject({ code: 2, stderr: 'gamma-prompt watch: output folder "dist" is a file, expected a folder: remove it or pass --out\n' });
  });

  it("at dist/: check gives one finding on it, not one per artifact", async () => {
    const root = await copyProject("basic");
    writeFileSync(join(root, "dist"), "not a folder\n");
    const run = await runCliInProcessFrom(root, "check", "--format", "json");
    expect(run.code).toBe(1);
    const { diagnostics } = JSON.parse(run.stdout) as { diagnostics: Array<{ file: string; ruleId: string; message: string }> };
    expect(diagnostics.filter((d) => d.ruleId.startsWith("dist/")).map(({ file, ruleId, message }) => ({ file, ruleId, message }))).toEqual([
      { file: "dist", ruleId: "dist/missing", message: "Unexpected file at the output folder's path dist, expected a folder: remove it, then run `gamma-prompt build`" },
    ]);
  });
});
