import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { copyProject, removeTempDirs, spawnCli, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

describe("gamma-prompt build (CLI)", () => {
  it("prints the variant table on stdout and diagnostics on stderr, exit 0", async () => {
    const root = await copyProject("basic");
    const run = spawnCli(["build", "--root", root]);
    expect(run.status).toBe(0);
    const [header, base, deck] = run.stdout.split("\n");
    expect(header).toMatch(/^variant\s+bytes\s+tokens\s+shared prefix\s+cacheable\s+prefix share$/);
    expect(base).toMatch(/^base\s+1379\s+357\s+357\s+0\s+100\.0%$/);
    expect(deck).toMatch(/^deck-generation\s+\d+\s+\d+\s+357\s+0\s+\d+\.\d%$/);
    expect(run.stdout).toContain("static prefix: 1379 bytes, 357 tokens (0 cacheable)");
    expect(run.stderr).toContain("budget/prefix-below-cache-minimum");
  });

  it("gives the same figures as one JSON document with --format json", async () => {
    const root = await copyProject("basic");
    const run = spawnCli(["build", "--root", root, "--format", "json"]);
    expect(run.status).toBe(0);
    const document = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(Object.keys(document)).toEqual(["ok", "summary", "prefixChanged", "written", "removed", "unchanged", "diagnostics", "errorCount", "warningCount"]);
    expect(document["summary"]).toMatchObject({
      prefix: { bytes: 1379, tokens: 357, cacheableTokens: 0 },
      variants: [{ name: "base", tokens: 357, sharedPrefixTokens: 357, cacheableTokens: 0, prefixShare: 100 }, { name: "deck-generation" }, { name: "import" }],
    });
  });

  it("exits 1 with diagnostics when the sources have errors", async () => {
    const root = await copyProject("basic");
    await writeFile(join(root, "prompts/prefix.hbs"), "{{catalog}}\n{{#each}}\n");
    const run = spawnCli(["build", "--root", root]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("prompts/prefix.hbs");
    expect(run.stderr).toContain("template/parse-error");
    expect(run.stdout).toBe("");
  });

  it("exits 2 on bad usage", async () => {
    expect(spawnCli(["build", "--format", "xml"]).status).toBe(2);
    expect(spawnCli(["check", "--format", "table"]).status).toBe(2);
    const missing = spawnCli(["build", "--root", join(await tempDir(), "does-not-exist")]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).not.toContain("    at ");
  });

  it("documents options, exit codes and examples in --help", () => {
    const build = spawnCli(["build", "--help"]);
    expect(build.status).toBe(0);
    expect(build.stdout).toContain("--format <format>");
    expect(build.stdout).toContain("Exit codes");
    expect(build.stdout).toContain("gamma-prompt build --root my-agent");
    expect(spawnCli(["check", "--help"]).stdout).toContain("gamma-prompt check --format github");
  });
});

describe("gamma-prompt check (CLI)", () => {
  it("exits 0 when dist/ is current and 1 on drift, in every format", async () => {
    const root = await copyProject("basic");
    expect(spawnCli(["build", "--root", root]).status).toBe(0);
    const current = spawnCli(["check", "--root", root]);
    expect(current.status).toBe(0);
    expect(current.stdout).toContain("dist/ is current: 14 artifacts match their sources");
    await writeFile(join(root, "dist/catalog.xml"), "<available_skills>\n</available_skills>\n");
    const stylish = spawnCli(["check", "--root", root]);
    expect(stylish.status).toBe(1);
    expect(stylish.stdout).toContain("dist/catalog.xml");
    const json = spawnCli(["check", "--root", root, "--format", "json"]);
    expect(json.status).toBe(1);
    const document = JSON.parse(json.stdout) as { drift: Array<{ artifact: string; kind: string }>; errorCount: number };
    expect(document.drift).toEqual(expect.arrayContaining([expect.objectContaining({ artifact: "catalog.xml", kind: "changed" })]));
    const github = spawnCli(["check", "--root", root, "--format", "github"]);
    expect(github.status).toBe(1);
    expect(github.stdout).toMatch(/^::error file=dist\/catalog\.xml,line=2,col=1,/m);
  });
});
