import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, cp, link, lstat, mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { readGolden, UPDATE_GOLDEN } from "../helpers/golden.js";
import { readTree, removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { MAX_SOURCE_BYTES } from "../../src/pipeline/discover/read-source.js";

/**
 * `lint --fix` and `--fix-dry-run`, one fixture folder per case:
 * - project/: the project as found;
 * - fixed/: the project after `lint --fix` (every file, byte for byte);
 * - fix.txt: what `lint --fix` prints; dry-run.diff: what `lint --fix-dry-run` prints on stdout.
 * Each case runs from inside a copy of project/, as a user at the project root would.
 * UPDATE_GOLDEN=1 rewrites fixed/, fix.txt and dry-run.diff from the actual output, for review with git diff.
 */
const casesDir = fileURLToPath(new URL("../fixtures/fix", import.meta.url));
const cases = readdirSync(casesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

afterAll(removeTempDirs);

async function copyOfProject(name: string): Promise<string> {
  const dir = await tempDir(`fix ${name}`);
  await cp(join(casesDir, name, "project"), dir, { recursive: true });
  return dir;
}

function golden(name: string, file: string, actual: string): string {
  return readGolden(join(casesDir, name, file), actual);
}

async function expectTree(dir: string, expected: string): Promise<void> {
  const actual = await readTree(dir);
  const wanted = await readTree(expected);
  expect([...actual.keys()]).toEqual([...wanted.keys()]);
  for (const [path, bytes] of wanted) expect(actual.get(path)?.equals(bytes), path).toBe(true);
}

describe("lint --fix: each case's files and output equal its fixture", () => {
  for (const name of cases) {
    it(name, async () => {
      const dir = await copyOfProject(name);
      const first = await runCliInProcessFrom(dir, "lint", "--fix");
      expect(first.stderr).toBe("");
      expect(first.stdout).toBe(golden(name, "fix.txt", first.stdout));
      if (UPDATE_GOLDEN) {
        await rm(join(casesDir, name, "fixed"), { recursive: true, force: true });
        await cp(dir, join(casesDir, name, "fixed"), { recursive: true });
      }
      await expectTree(dir, join(casesDir, name, "fixed"));
      // The exit code reflects what is left: 1 when a finding remains, 0 otherwise.
      const remaining = await runCliInProcessFrom(dir, "lint");
      expect(first.code).toBe(remaining.code);
      expect(first.stdout.endsWith(remaining.stdout)).toBe(true);

      // Idempotent: a second --fix finds nothing to fix and changes no byte.
      const second = await runCliInProcessFrom(dir, "lint", "--fix");
      expect(second.stdout).not.toMatch(/^fixed /m);
      expect(second.code).toBe(first.code);
      await expectTree(dir, join(casesDir, name, "fixed"));
    });

    it(`${name} (--fix-dry-run)`, async () => {
      const dir = await copyOfProject(name);
      const dryRun = await runCliInProcessFrom(dir, "lint", "--fix-dry-run");
      expect(dryRun.stdout).toBe(golden(name, "dry-run.diff", dryRun.stdout));
      // Nothing written; the remaining findings go to stderr and set the exit code as --fix would.
      await expectTree(dir, join(casesDir, name, "project"));
      const fixedDir = await copyOfProject(name);
      const fixed = await runCliInProcessFrom(fixedDir, "lint", "--fix");
      expect(dryRun.code).toBe(fixed.code);
      expect(fixed.stdout.endsWith(dryRun.stderr)).toBe(true);
    });
  }
});

describe("lint --fix contract", () => {
  it("names a SKILL.md reached through a symbolic link that it leaves unfixed, and why; its findings stay and count", async () => {
    const dir = await tempDir("fix-link");
    const skill = (name: string) => `---\nname: ${name}\ndescription: "Use when testing the ${name}.  "\nallowed-tools: [Read, Bash]\nmetadata:\n  gamma-type: reference\n---\n\n# V\n\n- A fact.\n`;
    await cp(join(casesDir, "description-whitespace", "project"), dir, { recursive: true });
    await rm(join(dir, "skills"), { recursive: true, force: true });
    await mkdir(join(dir, "shared"), { recursive: true });
    await mkdir(join(dir, "skills", "victim"), { recursive: true });
    await mkdir(join(dir, "skills", "plain"), { recursive: true });
    await writeFile(join(dir, "shared", "SKILL.md"), skill("victim"));
    await symlink("../../shared/SKILL.md", join(dir, "skills", "victim", "SKILL.md"));
    await writeFile(join(dir, "skills", "plain", "SKILL.md"), skill("plain"));
    const line = "not fixed skills/victim/SKILL.md: it is a symbolic link (to ../../shared/SKILL.md) and --fix never writes through a link, which would replace it with a copy: fix the file it points to\n";

    const dryRun = await runCliInProcessFrom(dir, "lint", "--fix-dry-run", "--max-warnings", "0");
    expect(dryRun.stderr.startsWith(line)).toBe(true);
    expect(dryRun.stdout).not.toContain("victim");
    const json = JSON.parse((await runCliInProcessFrom(dir, "lint", "--fix-dry-run", "--format", "json")).stdout) as { fixesSkipped: unknown };
    expect(json.fixesSkipped).toEqual([{ file: "skills/victim/SKILL.md", reason: line.slice("not fixed skills/victim/SKILL.md: ".length, -1) }]);
    expect((await runCliInProcessFrom(dir, "lint", "--fix-dry-run", "--format", "github")).stderr).toContain(line);

    const fixed = await runCliInProcessFrom(dir, "lint", "--fix", "--max-warnings", "0");
    expect(fixed.stdout).toMatch(/^fixed skills\/plain\/SKILL.md:/m);
    expect(fixed.stdout).not.toMatch(/^fixed skills\/victim/m);
    expect(fixed.stdout).toContain(`\n${line}`);
    expect((await lstat(join(dir, "skills", "victim", "SKILL.md"))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(dir, "shared", "SKILL.md"), "utf8")).toBe(skill("victim"));
    // What is left is the link's findings: reported after the line, and counted in the exit code as a plain lint counts them.
    const remaining = await runCliInProcessFrom(dir, "lint", "--max-warnings", "0");
    expect(remaining.stdout).toContain("skills/victim/SKILL.md");
    expect(fixed.stdout.endsWith(remaining.stdout)).toBe(true);
    expect([fixed.code, remaining.code]).toEqual([1, 1]);
    expect(fixed.stderr).toBe(remaining.stderr);
  });

  it("records every fix in the JSON report, with whether it was written and, for a dry run, the diff", async () => {
    const dir = await copyOfProject("insert-type");
    const dryRun = await runCliInProcessFrom(dir, "lint", "--fix-dry-run", "--format", "json");
    const preview = JSON.parse(dryRun.stdout) as { fixes: Array<{ file: string; ruleId: string; message: string }>; fixesWritten: boolean; diff: string };
    expect(preview.fixesWritten).toBe(false);
    expect(preview.diff).toBe(golden("insert-type", "dry-run.diff", preview.diff));
    const written = await runCliInProcessFrom(dir, "lint", "--fix", "--format", "json");
    const report = JSON.parse(written.stdout) as typeof preview & { diagnostics: unknown[] };
    expect(report.fixesWritten).toBe(true);
    expect(report).not.toHaveProperty("diff");
    expect(report.fixes).toEqual(preview.fixes);
    // A skill with a metadata block of its own gets its type there: it stays a plain Agent Skill.
    expect(report.fixes.map((fix) => `${fix.file} ${fix.ruleId} ${fix.message}`)).toContain('skills/release/SKILL.md skill/missing-key inserted "gamma-type: workflow" under metadata (the body has a checklist of 3 steps)');
    const again = JSON.parse((await runCliInProcessFrom(dir, "lint", "--fix", "--format", "json")).stdout) as typeof report;
    expect(again.fixes).toEqual([]);
  });

  it("prints files relative to the working folder when --root names the project", async () => {
    const dir = await copyOfProject("allowed-tools");
    const { stdout } = await runCliInProcessFrom(join(dir, ".."), "lint", "--root", dir.slice(dir.lastIndexOf("/") + 1), "--fix-dry-run");
    expect(stdout).toContain(`--- a/${dir.slice(dir.lastIndexOf("/") + 1)}/skills/block-list/SKILL.md`);
  });

  it("prints paths relative to the project root when run inside the project, so the diff applies there with git apply and patch -p1 (never ../)", async () => {
    const dir = await copyOfProject("insert-type");
    const expected = await readFile(join(casesDir, "insert-type", "dry-run.diff"), "utf8");
    for (const inside of ["skills/release", "skills"]) {
      const run = await runCliInProcessFrom(join(dir, inside), "lint", "--fix-dry-run");
      expect(run.stdout).toBe(expected);
      const up = inside === "skills" ? ".." : "../..";
      expect(run.stderr).toContain(`gamma-prompt lint: the diff's paths are relative to the project root ${up}/: apply it there (cd ${up} && git apply)\n`);
    }
    // Applied where it says, by git (in a repository whose top is the project) and by patch.
    const diffFile = join(await tempDir("fix-diff"), "fixes.diff");
    await writeFile(diffFile, expected);
    const git = (...args: string[]) => spawnSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: dir, encoding: "utf8" });
    expect(git("init", "-q").status).toBe(0);
    expect(git("apply", "--check", diffFile)).toMatchObject({ status: 0, stderr: "" });
    expect(spawnSync("patch", ["-p1", "--dry-run", "-s", "-i", diffFile], { cwd: dir, encoding: "utf8" })).toMatchObject({ status: 0, stderr: "" });
    // From the project root the paths are the working folder's, as before, and nothing more is said.
    const atRoot = await runCliInProcessFrom(dir, "lint", "--fix-dry-run");
    expect(atRoot.stdout).toBe(expected);
    expect(atRoot.stderr).not.toContain("the diff's paths");
  });

  it("gives a diff git and patch apply for a SKILL.md whose lines end in lone CRs (one line to them), and in CRLF", async () => {
    for (const [label, ending] of [["cr", "\r"], ["crlf", "\r\n"]] as const) {
      const dir = await copyOfProject("insert-type");
      const file = join(dir, "skills", "glossary", "SKILL.md");
      const lf = await readFile(file, "utf8");
      await writeFile(file, lf.replace(/\n/g, ending));
      const { stdout } = await runCliInProcessFrom(dir, "lint", "--fix-dry-run");
      const diffFile = join(await tempDir(`fix-diff-${label}`), "fixes.diff");
      await writeFile(diffFile, stdout);
      const git = (...args: string[]) => spawnSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: dir, encoding: "utf8" });
      expect(git("init", "-q").status).toBe(0);
      expect(spawnSync("patch", ["-p1", "--dry-run", "-s", "-i", diffFile], { cwd: dir, encoding: "utf8" }), label).toMatchObject({ status: 0 });
      expect(git("apply", diffFile), label).toMatchObject({ status: 0, stderr: "" });
      // Applied, the file is what lint --fix writes.
      const applied = await readFile(file, "utf8");
      await writeFile(file, lf.replace(/\n/g, ending));
      await runCliInProcessFrom(dir, "lint", "--fix");
      expect(applied, label).toBe(await readFile(file, "utf8"));
    }
  });

  it("quotes a path holding a control character, a double quote or a backslash in the diff's header as git does, and git applies it", async () => {
    const dir = await copyOfProject("insert-type");
    const folder = 'glo"ss\\ary\nnext\u001b[31m';
    await rename(join(dir, "skills", "glossary"), join(dir, "skills", folder));
    const { stdout } = await runCliInProcessFrom(dir, "lint", "--fix-dry-run");
    expect(stdout).toContain('--- "a/skills/glo\\"ss\\\\ary\\nnext\\033[31m/SKILL.md"\n+++ "b/skills/glo\\"ss\\\\ary\\nnext\\033[31m/SKILL.md"\n@@ -2,6 +2,8 @@\n');
    expect(stdout).not.toContain("\u001b");
    const diffFile = join(await tempDir("fix-diff-quoted"), "fixes.diff");
    await writeFile(diffFile, stdout);
    const git = (...args: string[]) => spawnSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: dir, encoding: "utf8" });
    expect(git("init", "-q").status).toBe(0);
    expect(git("apply", diffFile)).toMatchObject({ status: 0, stderr: "" });
    expect(await readFile(join(dir, "skills", folder, "SKILL.md"), "utf8")).toContain("metadata:\n  gamma-type: reference\n");
  });

  it("keeps stdout for the format's own document under github and sarif: the changes go to stderr", async () => {
    const dir = await copyOfProject("allowed-tools");
    const { code, stdout, stderr } = await runCliInProcessFrom(dir, "lint", "--fix", "--format", "github");
    // What remains are warnings (a form with no safe rewrite, YAML another validator cannot read): exit 0.
    expect(code).toBe(0);
    expect(stdout).toContain("::warning file=skills/comma-separated/SKILL.md");
    expect(stdout.split("\n").filter((line) => line !== "").every((line) => line.startsWith("::"))).toBe(true);
    expect(stderr).toContain("fixed skills/block-list/SKILL.md:5:3  skill/allowed-tools-format");
  });

  it("replaces a fixed file with one of the same permissions, leaving no temporary file behind", async () => {
    const dir = await copyOfProject("insert-type");
    const file = join(dir, "skills", "release", "SKILL.md");
    await chmod(file, 0o640);
    await runCliInProcessFrom(dir, "lint", "--fix");
    expect((await stat(file)).mode & 0o777).toBe(0o640);
    expect(await readdir(join(dir, "skills", "release"))).toEqual(["SKILL.md"]);
  });

  it("refuses --fix with --fix-dry-run (exit 2)", async () => {
    const dir = await copyOfProject("allowed-tools");
    const { code, stderr } = await runCliInProcessFrom(dir, "lint", "--fix", "--fix-dry-run");
    expect(code).toBe(2);
    expect(stderr).toContain("--fix and --fix-dry-run exclude each other");
  });

  it("is documented in lint --help", async () => {
    const { stdout } = await runCliInProcessFrom(casesDir, "lint", "--help");
    expect(stdout).toContain("--fix");
    expect(stdout).toContain("--fix-dry-run");
    // Help text wraps at 80 columns: the words may break across lines.
    expect(stdout).toMatch(/workflow\s+when\s+the\s+body\s+has\s+a\s+checklist\s+of\s+3\s+or\s+more\s+steps/);
    // Where the type goes, as the insert-type and type-spelling cases show: under metadata unless the skill writes the
    // design's fields at the top level or holds YAML other tools cannot read (a metadata block of its own is no condition).
    expect(stdout).not.toMatch(/when\s+the\s+skill\s+has\s+a\s+metadata\s+block/);
    expect(stdout).toMatch(/as\s+gamma-type\s+under\s+metadata\s+unless\s+the\s+skill\s+writes\s+the\s+design's\s+fields\s+at\s+the\s+top\s+level/);
  });

  it("leaves a SKILL.md its fixes would push over the size a source may have, and says so", async () => {
    const dir = await copyOfProject("insert-type");
    await rm(join(dir, "skills"), { recursive: true, force: true });
    await mkdir(join(dir, "skills", "large"), { recursive: true });
    const head = "---\nname: large\ndescription: Use when a skill is as large as a source may be.\n---\n\n# Large\n\n";
    // Just under the bound: the type's new lines would push it over.
    const text = `${head}${"- A fact.\n".repeat(Math.floor((MAX_SOURCE_BYTES - head.length - 8) / 10))}`;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_SOURCE_BYTES);
    await writeFile(join(dir, "skills", "large", "SKILL.md"), text);
    const run = await runCliInProcessFrom(dir, "lint", "--fix");
    expect(run.stdout).not.toMatch(/^fixed /m);
    expect(run.stdout).toMatch(/^not fixed skills\/large\/SKILL\.md: 1:1 skill\/missing-key: left as it is: the fixed file would be \d+ bytes, over the 1048576 a SKILL\.md may have \(skill\/file-too-large\)/m);
    expect(await readFile(join(dir, "skills", "large", "SKILL.md"), "utf8")).toBe(text);
    const again = await runCliInProcessFrom(dir, "lint");
    expect(again.stdout).not.toContain("skill/file-too-large");
    expect(again.stdout).toContain("skill/missing-key");
  });

  it("leaves a SKILL.md with other hard links as it is, and says so", async () => {
    const dir = await copyOfProject("insert-type");
    const file = join(dir, "skills", "release", "SKILL.md");
    const other = join(dir, "release-copy.md");
    await link(file, other);
    const before = await readFile(file, "utf8");
    const run = await runCliInProcessFrom(dir, "lint", "--fix");
    expect(run.stdout).toContain("not fixed skills/release/SKILL.md: it has 2 hard links and --fix never changes a file that has other names");
    expect(run.stdout).not.toMatch(/^fixed skills\/release\/SKILL\.md/m);
    expect(await readFile(file, "utf8")).toBe(before);
    expect((await stat(file)).nlink).toBe(2);
    expect((await stat(file)).ino).toBe((await stat(other)).ino);
  });

  it("has a project and its expected result in every case folder", () => {
    for (const name of cases) for (const part of ["project", "fixed", "fix.txt", "dry-run.diff"]) expect(existsSync(join(casesDir, name, part)), `${name}/${part}`).toBe(true);
  });
});
