/**
 * A source folder that exists but cannot be listed (EACCES: `chmod 000`) is a
 * finding on that folder at 1:1, never an empty folder and never an internal
 * error: lint, build and check exit 1 with a valid JSON document, and a build
 * keeps dist/ as it was. The suite may run as root, whom permission bits do
 * not stop, so the listing calls are made to fail the way they fail for
 * another user.
 */
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { build } from "../../src/build.js";
import { init } from "../../src/init.js";
import { watch, type WatchBuildEvent, type WatchEvent } from "../../src/watch.js";
import { fixturesDir, projectWithOverlay, repoRoot } from "../build/helpers.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { removeTempDirs, snapshotTree, tempDir } from "../helpers/temp-project.js";
import { cpSync, mkdirSync, readFileSync, rmSync } from "node:fs";

/** Absolute paths whose listing fails with EACCES. */
const denied = vi.hoisted(() => new Set<string>());
const refusal = (path: unknown): NodeJS.ErrnoException =>
  Object.assign(new Error(`EACCES: permission denied, scandir '${String(path)}'`), { code: "EACCES", errno: -13, syscall: "scandir", path: String(path) });

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const readdirSync = (...args: Parameters<typeof actual.readdirSync>) => {
    if (denied.has(String(args[0]))) throw refusal(args[0]);
    return actual.readdirSync(...args);
  };
  return { ...actual, readdirSync: readdirSync as typeof actual.readdirSync };
});
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  const readdir = async (...args: Parameters<typeof actual.readdir>) => {
    if (denied.has(String(args[0]))) throw refusal(args[0]);
    return actual.readdir(...args);
  };
  return { ...actual, readdir: readdir as typeof actual.readdir };
});

let project = "";

beforeAll(async () => {
  // Every optional source folder present and holding a source, so a silent empty listing would change the build.
  project = await projectWithOverlay(join(fixturesDir, "namespaces"));
  cpSync(join(repoRoot, "test/fixtures/knowledge/good/knowledge"), join(project, "knowledge"), { recursive: true });
  expect((await build({ root: project, persistentCache: false })).ok).toBe(true);
}, 120_000);

afterEach(() => denied.clear());
afterAll(removeTempDirs);

interface JsonDiagnostic {
  file: string;
  line: number;
  column: number;
  ruleId: string;
  severity: string;
  message: string;
}

/** The diagnostics of a `--format json` run, wherever the command puts them. */
function diagnosticsOf(stdout: string): JsonDiagnostic[] {
  const document = JSON.parse(stdout) as { diagnostics?: JsonDiagnostic[] };
  return document.diagnostics ?? [];
}

const finding = (file: string, ruleId: string) => ({
  file,
  line: 1,
  column: 1,
  ruleId,
  severity: "error",
  message: "Unexpected folder that cannot be listed (EACCES), expected a readable folder",
});

describe("a skills folder that cannot be listed", () => {
  it("fails the build with skill/unreadable-file on the folder and leaves dist/ as it was", async () => {
    const before = await snapshotTree(join(project, "dist"));
    denied.add(join(project, "skills"));
    const run = await runCliInProcessFrom(project, "build", "--format", "json");
    expect(run.code).toBe(1);
    // What names the skills (variants, notes) cannot find them either; the folder is what the user has to fix.
    const found = diagnosticsOf(run.stdout).filter((diagnostic) => diagnostic.file.startsWith("skills"));
    expect(found.map(({ file, line, column, ruleId, severity, message }) => ({ file, line, column, ruleId, severity, message }))).toEqual([finding("skills", "skill/unreadable-file")]);
    expect(await snapshotTree(join(project, "dist"))).toEqual(before);
  });

  it("is the same finding in lint, not a project without skills", async () => {
    denied.add(join(project, "skills"));
    const run = await runCliInProcessFrom(project, "lint", "--format", "json");
    expect(run.code).toBe(1);
    const found = diagnosticsOf(run.stdout).filter((diagnostic) => diagnostic.file.startsWith("skills") || diagnostic.ruleId === "skill/no-skills");
    expect(found.map(({ file, ruleId }) => [file, ruleId])).toEqual([["skills", "skill/unreadable-file"]]);
  });

  it("reports a skill folder without SKILL.md that cannot be listed, rather than skip it as a helper folder", async () => {
    const folder = join(project, "skills/drafts");
    mkdirSync(folder);
    try {
      denied.add(folder);
      const result = await build({ root: project, persistentCache: false });
      expect(result.ok).toBe(false);
      expect(result.diagnostics.filter((d) => d.severity === "error").map((d) => [d.file, d.ruleId, d.line, d.column])).toEqual([["skills/drafts", "skill/unreadable-file", 1, 1]]);
    } finally {
      rmSync(folder, { recursive: true });
    }
  });
});

describe("an empty skills folder, unlike one that cannot be listed", () => {
  it("builds with an empty catalog and no finding: an agent without skills is a project of its own", async () => {
    const root = join(await tempDir("gamma empty skills"), "project");
    expect((await init({ dir: root, template: "agent" })).ok).toBe(true);
    rmSync(join(root, "skills"), { recursive: true });
    mkdirSync(join(root, "skills"));
    const result = await build({ root, persistentCache: false });
    expect(result.diagnostics.filter((d) => d.ruleId === "skill/no-skills" || d.severity === "error")).toEqual([]);
    expect(readFileSync(join(root, "dist/catalog.xml"), "utf8")).toBe("<available_skills>\n</available_skills>\n");
  });
});

describe.each(["prompts/partials", "schemas/tools", "knowledge", "schemas/namespaces"])("%s that cannot be listed", (folder) => {
  it.each(["lint", "build", "check"])("is source/unreadable-file on the folder in %s --format json, exit 1", async (command) => {
    const before = await snapshotTree(join(project, "dist"));
    denied.add(join(project, folder));
    const run = await runCliInProcessFrom(project, command, "--format", "json");
    expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(run.code).toBe(1);
    const found = diagnosticsOf(run.stdout).filter((diagnostic) => diagnostic.file === folder);
    expect(found.map(({ file, line, column, ruleId, severity, message }) => ({ file, line, column, ruleId, severity, message }))).toEqual([
      finding(folder, "source/unreadable-file"),
    ]);
    expect(await snapshotTree(join(project, "dist"))).toEqual(before);
  });
});

describe("watch on a source folder that cannot be listed", () => {
  it("reports the folder's finding in its build event, not an error event without a file", async () => {
    denied.add(join(project, "prompts/partials"));
    const events: WatchEvent[] = [];
    const handle = await watch({ root: project, onEvent: (event) => events.push(event) });
    await handle.close();
    expect(events.filter((event) => event.type === "error")).toEqual([]);
    const initial = events.find((event): event is WatchBuildEvent => event.type === "initial");
    expect(initial?.ok).toBe(false);
    expect(initial?.diagnostics.map((d) => [d.file, d.line, d.column, d.ruleId])).toEqual([["prompts/partials", 1, 1, "source/unreadable-file"]]);
  });
});
