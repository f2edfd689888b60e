/**
 * Only regular files are read. A FIFO anywhere the tool reads is refused with
 * a diagnostic found by fstat before any read: every case runs in a real
 * process under a timeout, so a hang fails the test instead of stalling it.
 * Symbolic links that leave the project root are refused too.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { discoverSkills, readSourceFile } from "../../src/index.js";
import { lint } from "../../src/lint.js";
import { cliPath, copyProject, removeTempDirs, repoRoot, tempDir } from "../build/helpers.js";

afterAll(removeTempDirs);

const TIMEOUT_MS = 20_000;

function mkfifo(path: string): void {
  const made = spawnSync("mkfifo", [path]);
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr.toString()}`);
}

function cli(args: string[]): { status: number | null; stdout: string; stderr: string; timedOut: boolean } {
  // Run from the project root: printed files are relative to the working folder, as CI runs it.
  const rootAt = args.indexOf("--root");
  const cwd = rootAt >= 0 ? args[rootAt + 1] : undefined;
  // SIGKILL: a build that hangs may be waiting in a stop handler that a SIGTERM only asks to finish.
  const result = spawnSync(process.execPath, [cliPath, ...args], { encoding: "utf8", timeout: TIMEOUT_MS, killSignal: "SIGKILL", ...(cwd ? { cwd } : {}) });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, timedOut: result.signal === "SIGKILL" };
}

/** Runs the CLI, which must finish before the timeout with exit 1; returns the refusals it reported. */
function refusals(args: string[]): Array<[string, string]> {
  const result = cli([...args, "--format", "json"]);
  expect(result.timedOut, `${args[0]} hangs`).toBe(false);
  expect(result.status).toBe(1);
  return ruleIds(result.stdout);
}

/** A built copy of the basic project whose dist/prefix.md `replace` has made something other than a file. */
async function builtWithPrefixReplaced(replace: (path: string) => void): Promise<string> {
  const root = await copyProject("basic");
  expect(cli(["build", "--root", root]).status).toBe(0);
  rmSync(join(root, "dist/prefix.md"));
  replace(join(root, "dist/prefix.md"));
  return root;
}

function ruleIds(jsonText: string): Array<[string, string]> {
  const document = JSON.parse(jsonText) as { diagnostics: Array<{ file: string; ruleId: string }> };
  return document.diagnostics.filter((d) => d.ruleId.endsWith("not-a-file") || d.ruleId === "source/outside-root").map((d) => [d.file, d.ruleId]);
}

describe("a FIFO where the tool reads", () => {
  it("as a SKILL.md (or behind a SKILL.md symlink) is source/not-a-file for lint and build, never a hang", async () => {
    const root = await copyProject("basic");
    mkdirSync(join(root, "skills/pipe"));
    mkfifo(join(root, "skills/pipe/SKILL.md"));
    mkdirSync(join(root, "skills/linked"));
    mkfifo(join(root, "fifo-target"));
    symlinkSync(join(root, "fifo-target"), join(root, "skills/linked/SKILL.md"));
    expect(refusals(["lint", "--root", root])).toEqual([
      ["skills/linked/SKILL.md", "source/not-a-file"],
      ["skills/pipe/SKILL.md", "source/not-a-file"],
    ]);
    expect(refusals(["build", "--root", root])).toContainEqual(["skills/pipe/SKILL.md", "source/not-a-file"]);
  }, 60_000);

  it("as a partial or a tool schema is source/not-a-file", async () => {
    const root = await copyProject("basic");
    mkfifo(join(root, "prompts/partials/pipe.hbs"));
    mkfifo(join(root, "schemas/tools/pipe.json"));
    expect(refusals(["build", "--root", root])).toEqual([
      ["prompts/partials/pipe.hbs", "source/not-a-file"],
      ["schemas/tools/pipe.json", "source/not-a-file"],
    ]);
  }, 60_000);

  it("as the config, or the config a link to /dev/zero, is a finding for lint, build and check, never a hang (the layout is read first)", async () => {
    const root = await copyProject("basic");
    mkfifo(join(root, "gamma-prompt.config.json"));
    for (const command of ["lint", "build", "check"]) expect(refusals([command, "--root", root]), command).toContainEqual(["gamma-prompt.config.json", "source/not-a-file"]);
    rmSync(join(root, "gamma-prompt.config.json"));
    symlinkSync("/dev/zero", join(root, "gamma-prompt.config.json"));
    for (const command of ["lint", "build", "check"]) expect(refusals([command, "--root", root]), command).toContainEqual(["gamma-prompt.config.json", "source/outside-root"]);
  }, 120_000);

  it("as the config or a SKILL.md in a folder init is run in: init answers, never a hang", async () => {
    const dir = join(await tempDir(), "existing");
    mkdirSync(dir);
    mkfifo(join(dir, "gamma-prompt.config.json"));
    mkfifo(join(dir, "SKILL.md"));
    const result = spawnSync(process.execPath, [cliPath, "init", dir], { encoding: "utf8", timeout: TIMEOUT_MS, killSignal: "SIGKILL" });
    expect(result.signal, "init hangs").toBeNull();
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it("in dist/ is dist/not-a-file for check and build, and refused by the runtime", async () => {
    const root = await builtWithPrefixReplaced(mkfifo);
    expect(refusals(["check", "--root", root])).toEqual([["dist/prefix.md", "dist/not-a-file"]]);
    expect(refusals(["build", "--root", root])).toEqual([["dist/prefix.md", "dist/not-a-file"]]);
    const script = `import(${JSON.stringify(join(repoRoot, "lib/runtime/index.js"))}).then((runtime) => {
      try { runtime.loadArtifacts({ distDir: process.argv[1] }); } catch (error) { process.stdout.write(error.name + ": " + error.message); }
    })`;
    const loaded = spawnSync(process.execPath, ["-e", script, join(root, "dist")], { encoding: "utf8", timeout: TIMEOUT_MS });
    expect(loaded.signal).toBeNull();
    expect(loaded.stdout).toContain("ArtifactVerificationError");
    expect(loaded.stdout).toContain("prefix.md: Unexpected FIFO, expected a regular file");
  }, 60_000);

  it("a folder where a dist/ file belongs is dist/not-a-file for check, not a missing artifact", async () => {
    const root = await builtWithPrefixReplaced((path) => mkdirSync(path));
    expect(refusals(["check", "--root", root])).toEqual([["dist/prefix.md", "dist/not-a-file"]]);
    const checked = cli(["check", "--root", root, "--format", "json"]);
    expect(JSON.parse(checked.stdout).diagnostics[0].message).toBe("Unexpected folder, expected a regular file (remove it and run `gamma-prompt build`)");
  }, 60_000);

  it("as a SKILL.md in watch mode is reported in the first event, and watch keeps running", async () => {
    const root = await copyProject("basic");
    mkdirSync(join(root, "skills/pipe"));
    mkfifo(join(root, "skills/pipe/SKILL.md"));
    // From inside the project, as a user runs it: findings name files relative to the working folder.
    const child = spawn(process.execPath, [cliPath, "watch", "--root", root, "--format", "json"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    try {
      const first = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("watch printed nothing: it hangs on the FIFO")), TIMEOUT_MS);
        createInterface({ input: child.stdout }).once("line", (line) => {
          clearTimeout(timer);
          resolve(line);
        });
      });
      const event = JSON.parse(first) as { type: string; diagnostics: Array<{ file: string; ruleId: string }> };
      expect(event.type).toBe("initial");
      expect(event.diagnostics.map((d) => [d.file, d.ruleId])).toContainEqual(["skills/pipe/SKILL.md", "source/not-a-file"]);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);
});

describe("symbolic links that lead nowhere", () => {
  it("where a skill folder is expected are a skill/missing-skill-file warning for lint, build and watch, not a skill skipped in silence", async () => {
    const root = await copyProject("basic");
    symlinkSync("moved-away", join(root, "skills/dangling"));
    symlinkSync("looping", join(root, "skills/looping"));
    mkdirSync(join(root, "skills/mirrored"));
    symlinkSync("../../mirror-not-checked-out/SKILL.md", join(root, "skills/mirrored/SKILL.md"));
    const expected = [
      ["skills/dangling", "skill/missing-skill-file", 'Unexpected symbolic link to "moved-away", which does not exist, expected a skill folder holding SKILL.md (no host can load this skill)'],
      ["skills/looping", "skill/missing-skill-file", 'Unexpected symbolic link to "looping", which leads back to itself, expected a skill folder holding SKILL.md (no host can load this skill)'],
      ["skills/mirrored/SKILL.md", "skill/missing-skill-file", 'Unexpected symbolic link to "../../mirror-not-checked-out/SKILL.md", which does not exist, expected the skill\'s SKILL.md (no host can load this skill)'],
    ];
    const found = (diagnostics: ReadonlyArray<{ file: string; ruleId: string; message: string; severity: string }>): string[][] =>
      diagnostics.filter((d) => ["skills/dangling", "skills/looping", "skills/mirrored/SKILL.md"].includes(d.file)).map((d) => [d.file, d.ruleId, d.message, d.severity]);
    const withSeverity = expected.map((row) => [...row, "warning"]);

    const linted = await lint({ root });
    expect(found(linted.diagnostics)).toEqual(withSeverity);
    expect(linted.errorCount).toBe(0);
    // The rest of the project still builds: the warning does not fail it.
    const built = await build({ root, persistentCache: false });
    expect(built.ok).toBe(true);
    expect(found(built.diagnostics)).toEqual(withSeverity);

    // watch reports the links in its first event and no watch error for the loop it cannot follow.
    const child = spawn(process.execPath, [cliPath, "watch", "--root", root, "--format", "json"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    try {
      const events: Array<{ type: string; diagnostics?: Array<{ file: string; ruleId: string; message: string; severity: string }> }> = [];
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`watch printed no initial build: ${JSON.stringify(events)}`)), TIMEOUT_MS);
        createInterface({ input: child.stdout }).on("line", (line) => {
          events.push(JSON.parse(line) as (typeof events)[number]);
          if (events.at(-1)?.type === "initial") {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      expect(events.map((event) => event.type)).toEqual(["initial"]);
      expect(found(events[0]?.diagnostics ?? [])).toEqual(withSeverity);
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);
});

describe("symbolic links that leave the project root", () => {
  it("are refused for a skill folder and a partial; links inside the root still work", async () => {
    const root = await copyProject("basic");
    const outside = await tempDir("outside the root");
    mkdirSync(join(outside, "secret"));
    writeFileSync(join(outside, "secret/SKILL.md"), "---\nname: secret\ntype: reference\ndescription: Use when leaking.\n---\n\n# Secret\n");
    writeFileSync(join(outside, "leak.hbs"), "outside text\n");
    symlinkSync(join(outside, "secret"), join(root, "skills/secret"));
    symlinkSync(join(outside, "leak.hbs"), join(root, "prompts/partials/leak.hbs"));
    // A link that stays inside the root is ordinary.
    mkdirSync(join(root, "shared/inside"), { recursive: true });
    writeFileSync(join(root, "shared/inside/SKILL.md"), "---\nname: inside\ntype: reference\ndescription: Use when sharing.\n---\n\n# Inside\n");
    symlinkSync(join(root, "shared/inside"), join(root, "skills/inside"));
    // The same for a SKILL.md that is a link itself, in a folder that is none.
    writeFileSync(join(outside, "SKILL.md"), "---\nname: secret-file\ntype: reference\ndescription: Use when leaking.\n---\n\n# Secret\n");
    mkdirSync(join(root, "skills/secret-file"));
    symlinkSync(join(outside, "SKILL.md"), join(root, "skills/secret-file/SKILL.md"));
    writeFileSync(join(root, "shared/inside-file.md"), "---\nname: inside-file\ntype: reference\ndescription: Use when sharing.\n---\n\n# Inside\n");
    mkdirSync(join(root, "skills/inside-file"));
    symlinkSync("../../shared/inside-file.md", join(root, "skills/inside-file/SKILL.md"));

    const linted = await lint({ root });
    // lint checks the agent project whole, partials included, as build does.
    expect(linted.diagnostics.filter((d) => d.severity === "error").map((d) => [d.file, d.ruleId])).toEqual([
      ["prompts/partials/leak.hbs", "source/outside-root"],
      ["skills/secret-file/SKILL.md", "source/outside-root"],
      ["skills/secret/SKILL.md", "source/outside-root"],
    ]);
    expect(linted.skills.map((skill) => skill.name)).toEqual(expect.arrayContaining(["inside", "inside-file"]));
    const built = await build({ root, persistentCache: false });
    expect(built.ok).toBe(false);
    expect(built.diagnostics.filter((d) => d.severity === "error").map((d) => [d.file, d.ruleId])).toEqual([
      ["prompts/partials/leak.hbs", "source/outside-root"],
      ["skills/secret-file/SKILL.md", "source/outside-root"],
      ["skills/secret/SKILL.md", "source/outside-root"],
    ]);
  });

  it("are judged against the root as it resolves now: a relative root means the new folder after a chdir", async () => {
    // lint() and build() resolve their root first; the exported readers take it as given.
    const first = await copyProject("basic");
    const second = await copyProject("basic");
    // A link from the second project into the first leaves the second project's root.
    mkdirSync(join(first, "shared/borrowed"), { recursive: true });
    writeFileSync(join(first, "shared/borrowed/SKILL.md"), "---\nname: borrowed\ntype: reference\ndescription: Use when borrowing.\n---\n\n# Borrowed\n");
    symlinkSync(join(first, "shared/borrowed"), join(second, "skills/borrowed"));
    const skillFiles = ["skills/card-style/SKILL.md", "skills/import-file/SKILL.md", "skills/outline-deck/SKILL.md"];
    const previous = process.cwd();
    try {
      process.chdir(first);
      expect((await discoverSkills(".")).map((file) => file.path)).toEqual(skillFiles);
      process.chdir(second);
      expect((await discoverSkills(".")).map((file) => file.path)).toEqual(skillFiles);
      expect(await readSourceFile(".", "skills/borrowed/SKILL.md")).toMatchObject({ ruleId: "source/outside-root", file: "skills/borrowed/SKILL.md" });
    } finally {
      process.chdir(previous);
    }
  });

  it("--out inside a source folder is a usage error (exit 2) and writes nothing", async () => {
    const root = await copyProject("basic");
    const result = cli(["build", "--root", root, "--out", "skills/newout"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('output folder "skills/newout" is inside the source folder skills/');
    expect(spawnSync("ls", [join(root, "skills")], { encoding: "utf8" }).stdout.split("\n").filter(Boolean).sort()).toEqual(["card-style", "import-file", "outline-deck"]);
  });
});
