import { cp } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { formatDiagnostics, REPORTER_NAMES } from "../../src/diagnostics/reporters/index.js";
import { lint } from "../../src/lint.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { readTree, removeTempDirs, tempDir } from "../helpers/temp-project.js";

/**
 * docs/reference/library.md: `formatDiagnostics(format, diagnostics, context)` takes "the lint result itself".
 * Given it, each reporter prints byte for byte what `gamma-prompt lint` prints for the same run from the
 * project root: the document on stdout, or for `--fix-dry-run` in stylish the report on stderr (its stdout is
 * the diff, the lint result's `fixDiff`).
 */
const readme = fileURLToPath(new URL("../fixtures/readme", import.meta.url));

const runs: ReadonlyArray<{ fixture: string; fix?: "write" | "dry-run" }> = [
  { fixture: "lint-warning" },
  { fixture: "lint-example" },
  { fixture: "lint-fix" },
  { fixture: "lint-fix", fix: "write" },
  { fixture: "lint-fix", fix: "dry-run" },
];

const FLAGS = { write: ["--fix"], "dry-run": ["--fix-dry-run"] } as const;

afterEach(() => {
  vi.unstubAllEnvs();
});
afterAll(removeTempDirs);

async function copyOf(fixture: string): Promise<string> {
  const dir = await tempDir(`library report ${fixture}`);
  await cp(join(readme, fixture), dir, { recursive: true });
  return dir;
}

describe("formatDiagnostics given the lint result prints what gamma-prompt lint prints", () => {
  for (const { fixture, fix } of runs) {
    for (const format of REPORTER_NAMES) {
      it(`${fixture}${fix ? ` (fix: ${fix})` : ""}, ${format}`, async () => {
        // Outside GitHub Actions: github and sarif name files from the working folder, here the root.
        vi.stubEnv("GITHUB_WORKSPACE", "");
        const cliRoot = await copyOf(fixture);
        const libraryRoot = await copyOf(fixture);
        const cli = await runCliInProcessFrom(cliRoot, "lint", "--format", format, ...(fix ? FLAGS[fix] : []));
        const result = await lint({ root: libraryRoot, ...(fix ? { fix } : {}) });
        const printed = formatDiagnostics(format, result.diagnostics, result);
        if (format === "stylish" && fix === "dry-run") {
          expect(printed).toBe(cli.stderr);
          expect(result.fixDiff).toBe(cli.stdout);
          expect(cli.stdout).toMatch(/^--- a\/skills\/release-notes\/SKILL\.md\n/);
        } else {
          expect(printed).toBe(cli.stdout);
        }
        // github prints nothing when no finding is left; every other report says something.
        if (format !== "github" || result.diagnostics.length > 0) expect(printed).not.toBe("");
        // The same run: the library wrote (or left) the same files.
        expect(await readTree(libraryRoot)).toEqual(await readTree(cliRoot));
      });
    }
  }

  it("a written fix is listed in stylish and recorded as written in json; a dry run's diff is in json", async () => {
    const written = await lint({ root: await copyOf("lint-fix"), fix: "write" });
    expect(written.fixesWritten).toBe(true);
    expect(written.fixDiff).toBeUndefined();
    expect(formatDiagnostics("stylish", written.diagnostics, written)).toMatch(/^fixed skills\/release-notes\/SKILL\.md:\d+:\d+ {2}skill\//);
    expect(formatDiagnostics("stylish", written.diagnostics, written)).toMatch(/· 1 skill, profile gamma\n$/);
    expect(JSON.parse(formatDiagnostics("json", written.diagnostics, written))).toMatchObject({ fixesWritten: true });
    const preview = await lint({ root: await copyOf("lint-fix"), fix: "dry-run" });
    expect(preview.fixesWritten).toBe(false);
    expect(JSON.parse(formatDiagnostics("json", preview.diagnostics, preview))).toMatchObject({ fixesWritten: false, diff: preview.fixDiff });
  });

  it("still reads a context's skill count under its earlier name, skillCount", () => {
    const context = { errorCount: 0, warningCount: 0, profile: "gamma", skillCount: 3 };
    expect(formatDiagnostics("stylish", [], context)).toBe("✔ no problems · 3 skills, profile gamma\n");
    expect(formatDiagnostics("stylish", [], { ...context, skillFileCount: 2 })).toBe("✔ no problems · 2 skills, profile gamma\n");
  });
});
