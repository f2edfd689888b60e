import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { DistManifest } from "../../src/protocol/dist-manifest.js";
import { runCliInProcess, runCliInProcessFrom as runIn } from "../helpers/cli.js";
import { copyProject, removeTempDirs, snapshotTree, spawnCli, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

async function readManifest(root: string): Promise<DistManifest> {
  return JSON.parse(await readFile(join(root, "dist/manifest.json"), "utf8")) as DistManifest;
}

describe("gamma-prompt build (CLI)", () => {
  it("runs as a real process: builds, prints the table and exits 0", async () => {
    const root = await copyProject("basic");
    const run = spawnCli(["build", "--root", root]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.split("\n")[0]).toMatch(/^variant\s+bytes\s+tokens\s+shared prefix\s+cacheable\s+prefix share$/);
    expect((await runCliInProcess("check", "--root", root)).code).toBe(0);
  });

  it("prints the variant table on stdout and diagnostics on stderr, exit 0", async () => {
    const root = await copyProject("basic");
    const run = await runCliInProcess("build", "--root", root);
    expect(run.code).toBe(0);
    const { staticPrefix, variants } = await readManifest(root);
    expect(staticPrefix.bytes).toBe((await stat(join(root, "dist", staticPrefix.file))).size);
    // The basic prefix is below every cache minimum (the warning below), so nothing is cacheable.
    expect(variants["base"]?.cacheableTokens).toBe(0);
    const [header, base, deck] = run.stdout.split("\n");
    expect(header).toMatch(/^variant\s+bytes\s+tokens\s+shared prefix\s+cacheable\s+prefix share$/);
    expect(base).toMatch(new RegExp(`^base\\s+${staticPrefix.bytes}\\s+${staticPrefix.tokens}\\s+${staticPrefix.tokens}\\s+0\\s+100\\.0%$`));
    expect(deck).toMatch(new RegExp(`^deck-generation\\s+\\d+\\s+\\d+\\s+${staticPrefix.tokens}\\s+0\\s+\\d+\\.\\d%$`));
    expect(run.stdout).toContain(`static prefix: ${staticPrefix.bytes} bytes, ${staticPrefix.tokens} tokens (0 cacheable)`);
    expect(run.stderr).toContain("budget/prefix-below-cache-minimum");
  });

  it("gives the same figures as one JSON document with --format json", async () => {
    const root = await copyProject("basic");
    const run = await runCliInProcess("build", "--root", root, "--format", "json");
    expect(run.code).toBe(0);
    const document = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(Object.keys(document)).toEqual(["ok", "summary", "prefixChanged", "written", "removed", "unchanged", "diagnostics", "errorCount", "warningCount", "noteCount"]);
    const { staticPrefix } = await readManifest(root);
    expect(document["summary"]).toMatchObject({
      prefix: { bytes: staticPrefix.bytes, tokens: staticPrefix.tokens, cacheableTokens: 0 },
      variants: [{ name: "base", tokens: staticPrefix.tokens, sharedPrefixTokens: staticPrefix.tokens, cacheableTokens: 0, prefixShare: 100 }, { name: "deck-generation" }, { name: "import" }],
    });
  });

  it("exits 1 with diagnostics when the sources have errors", async () => {
    const root = await copyProject("basic");
    await writeFile(join(root, "prompts/prefix.hbs"), "{{catalog}}\n{{#each}}\n");
    const run = await runCliInProcess("build", "--root", root);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("prompts/prefix.hbs");
    expect(run.stderr).toContain("template/parse-error");
    expect(run.stdout).toBe("");
  });


  it("exits 1 and leaves dist/ as it was when the config turns off the finding that keeps a skill out of the build", async () => {
    const root = await copyProject("basic");
    expect((await runIn(root, "build")).code).toBe(0);
    const before = await snapshotTree(join(root, "dist"));
    await writeFile(join(root, "gamma-prompt.config.json"), `${JSON.stringify({ rules: { "skill/missing-key": "off" } })}\n`);
    await mkdir(join(root, "skills/glossary"));
    await writeFile(join(root, "skills/glossary/SKILL.md"), "---\nname: glossary\ntype: reference\n---\n\n# Glossary\n\n- Card: one slide of a deck.\n");
    const lint = await runIn(root, "lint");
    expect(lint.code).toBe(1);
    expect(lint.stdout).toContain("skill/missing-key");
    const run = await runIn(root, "build");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("skills/glossary/SKILL.md");
    expect(run.stderr).toContain("skill/missing-key");
    expect(await snapshotTree(join(root, "dist"))).toEqual(before);
  });
  it("exits 2 on bad usage", async () => {
    expect((await runCliInProcess("build", "--format", "xml")).code).toBe(2);
    expect((await runCliInProcess("check", "--format", "table")).code).toBe(2);
    const missing = await runCliInProcess("build", "--root", join(await tempDir(), "does-not-exist"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).not.toContain("    at ");
  });

  it("names the lock it cannot create when the project root is read-only, not a missing output folder", async (context) => {
    const root = await copyProject("basic");
    expect((await runIn(root, "build")).code).toBe(0);
    await writeFile(join(root, "skills/card-style/SKILL.md"), `${await readFile(join(root, "skills/card-style/SKILL.md"), "utf8")}\n- One more rule.\n`);
    // A read-only bind mount stops even root; where this machine does not allow one, there is nothing to show.
    if (spawnSync("mount", ["--bind", "-o", "ro", root, root]).status !== 0) return context.skip();
    try {
      const refused = await runIn(root, "build");
      expect([refused.code, refused.stderr]).toEqual([2, 'gamma-prompt build: output folder "dist" cannot be written: its lock .gamma-prompt-lock-dist, in the folder that holds it, cannot be created: the file system is read-only (EROFS)\n']);
    } finally {
      spawnSync("umount", [root]);
    }
  });

  it("exits 2, not the 1 of findings, when dist/ cannot be written, keeping the finding and dist/ as it was, in every format", async () => {
    const root = await copyProject("basic");
    expect((await runIn(root, "build")).code).toBe(0);
    // A folder where an artifact goes: the write fails as on a full disk or a read-only dist/, for any user.
    await rm(join(root, "dist/tools.json"));
    await mkdir(join(root, "dist/tools.json"));
    await writeFile(join(root, "skills/card-style/SKILL.md"), `${await readFile(join(root, "skills/card-style/SKILL.md"), "utf8")}\n- One more rule.\n`);
    const before = await snapshotTree(join(root, "dist"));
    for (const format of ["table", "json", "github", "sarif"]) {
      const failed = await runIn(root, "build", "--format", format);
      expect(failed.code, format).toBe(2);
      expect(failed.stdout + failed.stderr, format).toContain("dist/write-failed");
      expect(await snapshotTree(join(root, "dist")), format).toEqual(before);
    }
  });

  it("refuses an output folder that holds the project root alike in build and check (exit 2, nothing read or written)", async () => {
    const root = await copyProject("basic");
    for (const command of ["build", "check"]) {
      for (const out of ["", ".", ".."]) {
        const refused = await runIn(root, command, "--out", out);
        // An empty name is refused as every empty path option is, before the project is looked at.
        const line = out === "" ? "--out names no folder (an empty name); pass it a path, or leave the option out" : `output folder "${out}" holds the project root, expected a folder of its own such as "dist"`;
        expect([refused.code, refused.stdout, refused.stderr]).toEqual([2, "", `gamma-prompt ${command}: ${line}\n`]);
      }
    }
  });

  it("documents options, exit codes and examples in --help", async () => {
    const build = await runCliInProcess("build", "--help");
    expect(build.code).toBe(0);
    expect(build.stdout).toContain("--format <format>");
    expect(build.stdout).toContain("Exit codes");
    expect(build.stdout).toContain("gamma-prompt build --root my-agent");
    expect((await runCliInProcess("check", "--help")).stdout).toContain("gamma-prompt check --format github");
  });
});


describe("gamma-prompt check (CLI)", () => {
  it("exits 0 when dist/ is current and 1 on drift, in every format", async () => {
    const root = await copyProject("basic");
    expect((await runCliInProcess("build", "--root", root)).code).toBe(0);
    const current = await runCliInProcess("check", "--root", root);
    expect(current.code).toBe(0);
    // The count takes in manifest.json itself, which the manifest does not list.
    const artifactCount = Object.keys((await readManifest(root)).artifacts).length + 1;
    expect(current.stdout).toContain(`dist/ is current: ${artifactCount} artifacts match their sources`);
    await writeFile(join(root, "dist/catalog.xml"), "<available_skills>\n</available_skills>\n");
    const stylish = await runCliInProcess("check", "--root", root);
    expect(stylish.code).toBe(1);
    expect(stylish.stdout).toContain("dist/catalog.xml");
    const json = await runCliInProcess("check", "--root", root, "--format", "json");
    expect(json.code).toBe(1);
    const document = JSON.parse(json.stdout) as { drift: Array<{ artifact: string; kind: string }>; errorCount: number };
    expect(document.drift).toEqual(expect.arrayContaining([expect.objectContaining({ artifact: "catalog.xml", kind: "changed" })]));
    // Annotations name files relative to the working folder (the repository root in CI), whatever --root is.
    const github = await runIn(root, "check", "--root", ".", "--format", "github");
    expect(github.code).toBe(1);
    expect(github.stdout).toMatch(/^::error file=dist\/catalog\.xml,line=2,col=1,/m);
    const fromAbove = await runIn(join(root, ".."), "check", "--root", "project root", "--format", "github");
    expect(fromAbove.stdout).toMatch(/^::error file=project root\/dist\/catalog\.xml,line=2,col=1,/m);
    const sarif = await runCliInProcess("check", "--root", root, "--format", "sarif");
    expect(sarif.code).toBe(1);
    expect(JSON.parse(sarif.stdout)).toMatchObject({ version: "2.1.0", runs: [{ results: expect.arrayContaining([expect.objectContaining({ ruleId: "dist/changed" })]) }] });
  });
});
