/**
 * A folder the user may not enter (no search permission: `chmod 700` by
 * another owner) is said as such: an output folder that cannot be looked into
 * is no interrupted build (there is no journal to be seen), and a project root
 * that cannot be entered is neither "not a folder" nor a project without
 * skills/ or without a build. Only a journal that is there marks an
 * interrupted build, even one that cannot be read. The suite may run as root,
 * whom permission bits do not stop, so the file system's refusal is simulated:
 * every lookup of a path inside a closed folder fails with EACCES, and so do
 * listing and entering the folder itself.
 */
import * as realFs from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import { lint } from "../../src/lint.js";
import { JOURNAL_FILE, journalState } from "../../src/protocol/dist-journal.js";
import { ArtifactVerificationError, InterruptedBuildError, loadArtifacts } from "../../src/runtime/artifacts.js";
import { copyProject, removeTempDirs, snapshotTree } from "../build/helpers.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-project.js";

/** Folders whose inside cannot be looked up (and which cannot be listed or entered); files that cannot be opened. */
const closed = vi.hoisted(() => new Set<string>());
const unopenable = vi.hoisted(() => new Set<string>());

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const { dirname } = await import("node:path");
  const refusal = (path: string, syscall: string): NodeJS.ErrnoException =>
    Object.assign(new Error(`EACCES: permission denied, ${syscall} '${path}'`), { code: "EACCES", errno: -13, syscall, path });
  const inside = (path: unknown): boolean => {
    if (typeof path !== "string") return false;
    for (let folder = dirname(path); folder !== dirname(folder); folder = dirname(folder)) if (closed.has(folder)) return true;
    return false;
  };
  const guard =
    <F extends (...args: never[]) => unknown>(original: F, syscall: string, self: (path: string) => boolean): F =>
    ((path: string, ...rest: unknown[]) => {
      if (inside(path) || self(path)) throw refusal(path, syscall);
      return (original as unknown as (...args: unknown[]) => unknown)(path, ...rest);
    }) as unknown as F;
  const replaced = {
    readdirSync: guard(fs.readdirSync, "scandir", (path) => closed.has(path)),
    openSync: guard(fs.openSync, "open", (path) => unopenable.has(path)),
    lstatSync: guard(fs.lstatSync, "lstat", () => false),
    statSync: guard(fs.statSync, "stat", () => false),
    realpathSync: Object.assign(guard(fs.realpathSync, "realpath", () => false), { native: guard(fs.realpathSync.native, "realpath", () => false) }),
    accessSync: guard(fs.accessSync, "access", (path) => closed.has(path)),
    existsSync: ((path: unknown) => !inside(path) && fs.existsSync(path as string)) as typeof fs.existsSync,
  };
  return { ...fs, ...replaced, default: { ...fs, ...replaced } };
});

afterEach(() => {
  closed.clear();
  unopenable.clear();
});
afterAll(removeTempDirs);

async function builtProject(): Promise<string> {
  const root = await copyProject("basic");
  expect((await build({ root, persistentCache: false })).ok).toBe(true);
  return root;
}

const caught = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
};

const STACK = /internal error|^\s+at .+:\d+:\d+\)?$/m;

describe("a dist/ this user may not enter", () => {
  it("holds no journal that can be seen: journalState says unreadable, not present", async () => {
    const root = await builtProject();
    closed.add(join(root, "dist"));
    expect(journalState(join(root, "dist"))).toEqual({ present: false, unreadable: "EACCES" });
  });

  it("loadArtifacts says it cannot read the folder, naming it; no InterruptedBuildError", async () => {
    const root = await builtProject();
    const dist = join(root, "dist");
    closed.add(dist);
    const error = caught(() => loadArtifacts({ distDir: dist }));
    expect(error).toBeInstanceOf(ArtifactVerificationError);
    expect(error).not.toBeInstanceOf(InterruptedBuildError);
    const message = `Unexpected folder that cannot be read (the file system does not allow it, EACCES), expected a folder this process can list: give ${dist} read and search permission (and search permission on the folders above it)`;
    expect((error as ArtifactVerificationError).problems).toEqual([{ file: ".", kind: "unreadable", code: "EACCES", folder: true, message }]);
    expect((error as ArtifactVerificationError).message).toBe(`dist/ cannot be read (1 problem):\n  .: ${message}`);
  });

  it("and so does it for a dist/ that is not there, inside a folder this user may not enter", async () => {
    const parent = await tempDir("gamma closed parent");
    closed.add(parent);
    const error = caught(() => loadArtifacts({ distDir: join(parent, "agent", "dist") }));
    expect(error).not.toBeInstanceOf(InterruptedBuildError);
    expect((error as ArtifactVerificationError).problems.map(({ file, kind, code }) => ({ file, kind, code }))).toEqual([{ file: ".", kind: "unreadable", code: "EACCES" }]);
  });

  it("check and build report dist/unreadable on the folder, never dist/interrupted-build, and build leaves it as it was", async () => {
    const root = await builtProject();
    const before = await snapshotTree(join(root, "dist"));
    closed.add(join(root, "dist"));
    const checked = await check({ root });
    expect(checked.diagnostics.filter((d) => d.ruleId.startsWith("dist/")).map((d) => [d.ruleId, d.file])).toEqual([["dist/unreadable", "dist"]]);
    const built = await runCliInProcessFrom(root, "build");
    expect(built.code).toBe(1);
    expect(`${built.stdout}${built.stderr}`).not.toMatch(/interrupted/);
    expect(`${built.stdout}${built.stderr}`).not.toMatch(STACK);
    expect(built.stderr).toMatch(/^dist\n\s+1:1\s+error\s+Unexpected folder that cannot be read \(the file system does not allow it, EACCES\).*dist\/unreadable$/m);
    closed.clear();
    expect(await snapshotTree(join(root, "dist"))).toEqual(before);
  });

  it("cost, report and audit say in one line that they cannot read dist/, exit 2, and advise no build", async () => {
    const root = await builtProject();
    realFs.writeFileSync(join(root, "session.jsonl"), "");
    closed.add(join(root, "dist"));
    for (const args of [["cost"], ["report"], ["audit", "session.jsonl"]]) {
      const run = await runCliInProcessFrom(root, ...args);
      expect(run, args.join(" ")).toEqual({
        code: 2,
        stdout: "",
        stderr: `gamma-prompt ${args[0] ?? ""}: cannot read dist/: the file system does not allow it (EACCES); give it read and search permission (and search permission on the folders above it), then run the command again\n`,
      });
    }
  });
});

describe("a journal that is there but cannot be read", () => {
  it("still marks an interrupted build: only its bytes are kept from this user", async () => {
    const root = await builtProject();
    const journal = join(root, "dist", JOURNAL_FILE);
    realFs.writeFileSync(journal, "{}");
    unopenable.add(journal);
    expect(journalState(join(root, "dist"))).toEqual({ present: true, live: false });
    expect(() => loadArtifacts({ distDir: join(root, "dist") })).toThrow(InterruptedBuildError);
    const checked = await check({ root });
    expect(checked.diagnostics.map((d) => d.ruleId)).toEqual(["dist/interrupted-build"]);
  });
});

describe("a project root this user may not enter", () => {
  const reason = "cannot be read (the file system does not allow it, EACCES)";

  it.each([["lint"], ["build"], ["check"], ["watch"], ["cost"], ["report"], ["eval", "--replay"], ["audit", "session.jsonl"], ["mcp"]])(
    "%s --root says so in one line, exit 2",
    async (...args) => {
      const parent = await tempDir("gamma closed root");
      const root = join(parent, "agent");
      realFs.mkdirSync(root);
      for (const [folder, given] of [[root, root], [parent, join(parent, "agent")]] as const) {
        closed.add(folder);
        const run = await runCliInProcessFrom(parent, ...args, "--root", given);
        expect(run, `${args.join(" ")} with ${folder === root ? "the root" : "its parent"} closed`).toEqual({
          code: 2,
          stdout: "",
          stderr: `gamma-prompt ${args[0] ?? ""}: project root "${given}" ${reason}; pass --root with the project's folder\n`,
        });
        closed.clear();
      }
    },
  );

  it("lint and build from the library throw a ProjectRootError that says so, not that the root is no folder", async () => {
    const root = await builtProject();
    closed.add(root);
    await expect(lint({ root })).rejects.toThrow(`project root "${root}" ${reason}`);
    await expect(build({ root })).rejects.toThrow(`project root "${root}" ${reason}`);
  });
});
