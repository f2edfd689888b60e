/**
 * `lint --fix` and a SKILL.md another program saves while it runs (an editor,
 * a checkout): the fixes were computed from the bytes read before, so the
 * file keeps the newer bytes, is named as not fixed, and its findings are
 * those of what it holds now. The other files get their fixes.
 */
import { appendFileSync } from "node:fs";
import { cp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { lint } from "../../src/lint.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

/** The file another program appends a line to right before `--fix` replaces it (none: no other program). */
const editor = vi.hoisted(() => ({ path: undefined as string | undefined }));

vi.mock("../../src/pipeline/fix/replace-file.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/pipeline/fix/replace-file.js")>();
  return {
    ...actual,
    replaceFileAtomically: (path: string, content: Uint8Array, expected?: Uint8Array) => {
      if (path === editor.path) appendFileSync(path, "\nEDITOR LINE\n");
      actual.replaceFileAtomically(path, content, expected);
    },
  };
});

const project = fileURLToPath(new URL("../fixtures/fix/description-whitespace/project", import.meta.url));
const edited = join("skills", "double-quoted", "SKILL.md");
const other = join("skills", "single-quoted", "SKILL.md");
const line = "not fixed skills/double-quoted/SKILL.md: it changed while lint --fix ran, and its fixes were computed from what it held before: nothing was written over the change; run lint --fix again\n";

afterEach(() => {
  editor.path = undefined;
});
afterAll(removeTempDirs);

async function copy(): Promise<string> {
  const root = await tempDir("fix changed");
  await cp(project, root, { recursive: true });
  return root;
}

describe("lint --fix and a file changed while it runs", () => {
  it("keeps the change, names the file as not fixed, and counts its findings as a plain lint does", async () => {
    const root = await copy();
    const original = await readFile(join(root, edited), "utf8");
    editor.path = join(root, edited);
    const fixed = await runCliInProcessFrom(root, "lint", "--fix", "--max-warnings", "0");
    editor.path = undefined;

    expect(await readFile(join(root, edited), "utf8")).toBe(`${original}\nEDITOR LINE\n`);
    expect(await readFile(join(root, other), "utf8")).not.toContain("   '");
    expect(fixed.stdout).toMatch(/^fixed skills\/single-quoted\/SKILL.md:/m);
    expect(fixed.stdout).not.toMatch(/^fixed skills\/double-quoted/m);
    expect(fixed.stdout).toContain(line);
    // What follows is the findings of the files as they are now: the same as a plain lint's, exit code included.
    const remaining = await runCliInProcessFrom(root, "lint", "--max-warnings", "0");
    expect(remaining.stdout).toContain("skills/double-quoted/SKILL.md");
    expect(fixed.stdout.endsWith(remaining.stdout)).toBe(true);
    expect([fixed.code, remaining.code]).toEqual([1, 1]);
  });

  it("reports the file in the JSON report's fixesSkipped, not in its fixes", async () => {
    const root = await copy();
    editor.path = join(root, edited);
    const report = JSON.parse((await runCliInProcessFrom(root, "lint", "--fix", "--format", "json")).stdout) as { fixes: Array<{ file: string }>; fixesWritten: boolean; fixesSkipped: unknown };
    expect(report.fixesWritten).toBe(true);
    expect(report.fixes.map((fix) => fix.file)).not.toContain("skills/double-quoted/SKILL.md");
    expect(report.fixes.length).toBeGreaterThan(0);
    expect(report.fixesSkipped).toEqual([{ file: "skills/double-quoted/SKILL.md", reason: line.slice("not fixed skills/double-quoted/SKILL.md: ".length, -1) }]);
  });

  it("lint() leaves the file out of fixedFiles and keeps its findings", async () => {
    const root = await copy();
    editor.path = join(root, edited);
    const result = await lint({ root, fix: "write" });
    expect(result.fixedFiles?.map((file) => file.file)).toEqual(["skills/single-quoted/SKILL.md"]);
    expect(result.fixesSkipped?.map((entry) => entry.file)).toEqual(["skills/double-quoted/SKILL.md"]);
    expect(result.diagnostics.filter((diagnostic) => diagnostic.ruleId === "skill/description-whitespace").map((diagnostic) => diagnostic.file)).toEqual(["skills/double-quoted/SKILL.md"]);
  });
});
