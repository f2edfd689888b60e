/**
 * A dist/ that cannot be read where it is (a folder or a file without read
 * permission for the user who runs the command): check and build name the
 * path with dist/unreadable, exit 1 as for any other finding, and print no
 * stack trace; an unreadable file is never called missing. The runtime and the
 * commands that read a build (cost, report, audit) name what they cannot read
 * and advise no build, which would not help. The file system's
 * refusal is simulated (EACCES from readdir and open on the paths listed), so
 * the test means the same run as root as it does as any other user.
 */
import * as realFs from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import { ArtifactVerificationError, InterruptedBuildError, loadArtifacts } from "../../src/runtime/artifacts.js";
import { copyProject, removeTempDirs, snapshotTree } from "../build/helpers.js";
import { runCliInProcessFrom } from "../helpers/cli.js";

const denied = vi.hoisted(() => new Set<string>());

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const refuse = (path: unknown, syscall: string): void => {
    if (typeof path === "string" && denied.has(path)) {
      throw Object.assign(new Error(`EACCES: permission denied, ${syscall} '${path}'`), { code: "EACCES", errno: -13, syscall, path });
    }
  };
  const readdirSync = ((path: string, ...rest: unknown[]) => {
    refuse(path, "scandir");
    return (fs.readdirSync as (...args: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.readdirSync;
  const openSync = ((path: string, ...rest: unknown[]) => {
    refuse(path, "open");
    return (fs.openSync as (...args: unknown[]) => number)(path, ...rest);
  }) as typeof fs.openSync;
  return { ...fs, default: { ...fs, readdirSync, openSync }, readdirSync, openSync };
});

afterAll(removeTempDirs);

async function builtProject(): Promise<string> {
  const root = await copyProject("basic");
  expect((await build({ root, persistentCache: false })).ok).toBe(true);
  return root;
}

const STACK = /internal error|^\s+at .+:\d+:\d+\)?$/m;

describe("a folder inside dist/ that cannot be listed", () => {
  it("check names the folder with dist/unreadable (exit 1, no stack trace) and still compares the rest", async () => {
    const root = await builtProject();
    denied.add(join(root, "dist", "variants"));
    try {
      const result = await check({ root });
      expect(result.ok).toBe(false);
      const dist = result.diagnostics.filter((d) => d.ruleId.startsWith("dist/"));
      expect(dist.map((d) => [d.ruleId, d.file])).toEqual([["dist/unreadable", "dist/variants"]]);
      expect(dist[0]?.message).toBe(
        "Unexpected folder that cannot be read (the file system does not allow it, EACCES), expected a folder gamma-prompt can list: give it read and search permission, then run the command again",
      );
      expect(result.invalidatesSharedPrefix).toBe(false);
      const cli = await runCliInProcessFrom(root, "check");
      expect(cli.code).toBe(1);
      expect(`${cli.stdout}${cli.stderr}`).not.toMatch(STACK);
      expect(cli.stdout).toContain("dist/unreadable");
      expect(cli.stdout).not.toContain("Run `gamma-prompt build`");
    } finally {
      denied.clear();
    }
  });

  it("build names the folder with dist/unreadable, with unchanged sources and with changed ones, and leaves dist/ as it was", async () => {
    const root = await builtProject();
    const before = await snapshotTree(join(root, "dist"));
    denied.add(join(root, "dist", "variants"));
    try {
      const unchanged = await runCliInProcessFrom(root, "build");
      expect(unchanged.code).toBe(1);
      expect(`${unchanged.stdout}${unchanged.stderr}`).not.toMatch(STACK);
      expect(`${unchanged.stdout}${unchanged.stderr}`).toMatch(/dist\/variants\n\s+1:1\s+error\s+Unexpected folder that cannot be read \(the file system does not allow it, EACCES\)/);
      expect(`${unchanged.stdout}${unchanged.stderr}`).toContain("dist/unreadable");
      realFs.appendFileSync(join(root, "prompts/prefix.hbs"), "\nOne more line.\n");
      const changed = await build({ root, persistentCache: false });
      expect(changed.ok).toBe(false);
      expect(changed.diagnostics.filter((d) => d.severity === "error").map((d) => [d.ruleId, d.file])).toEqual([["dist/unreadable", "dist/variants"]]);
    } finally {
      denied.clear();
    }
    expect(await snapshotTree(join(root, "dist"))).toEqual(before);
  });
});

describe("an artifact that cannot be read", () => {
  it("check reports it as dist/unreadable, not as missing", async () => {
    const root = await builtProject();
    denied.add(join(root, "dist", "prefix.md"));
    try {
      const result = await check({ root });
      expect(result.diagnostics.filter((d) => d.ruleId.startsWith("dist/")).map((d) => [d.ruleId, d.file, d.message])).toEqual([
        ["dist/unreadable", "dist/prefix.md", "Unexpected file that cannot be read (the file system does not allow it, EACCES), expected an artifact gamma-prompt can read: give it read permission, then run the command again"],
      ]);
      expect(result.drift).toEqual([expect.objectContaining({ artifact: "prefix.md", kind: "unreadable", code: "EACCES" })]);
      expect(result.invalidatesSharedPrefix).toBe(false);
    } finally {
      denied.clear();
    }
  });
});

describe("what the runtime and the commands that read a build say for what they cannot read in dist/", () => {
  const line = (command: string, path: string, folder: boolean): string =>
    `gamma-prompt ${command}: cannot read ${path}: the file system does not allow it (EACCES); give it read${folder ? " and search" : ""} permission, then run the command again\n`;

  it("a folder that cannot be listed is one unreadable problem naming it, never a missing file for each artifact in it", async () => {
    const root = await builtProject();
    const dist = join(root, "dist");
    const manifest = JSON.parse(realFs.readFileSync(join(dist, "manifest.json"), "utf8")) as { artifacts: Record<string, unknown> };
    expect(Object.keys(manifest.artifacts).filter((file) => file.startsWith("variants/")).length).toBeGreaterThan(0);
    denied.add(join(dist, "variants"));
    try {
      const error = (() => {
        try {
          loadArtifacts({ distDir: dist });
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ArtifactVerificationError);
      expect(error).not.toBeInstanceOf(InterruptedBuildError);
      const message = `Unexpected folder that cannot be read (the file system does not allow it, EACCES), expected a folder this process can list: give ${join(dist, "variants")} read and search permission`;
      expect((error as ArtifactVerificationError).problems).toEqual([{ file: "variants", kind: "unreadable", code: "EACCES", folder: true, message }]);
      expect((error as ArtifactVerificationError).message).toBe(`dist/ cannot be read (1 problem):\n  variants: ${message}`);
      realFs.writeFileSync(join(root, "session.jsonl"), "");
      for (const args of [["cost"], ["report"], ["audit", "session.jsonl"]]) {
        const run = await runCliInProcessFrom(root, ...args);
        expect(run, args.join(" ")).toEqual({ code: 2, stdout: "", stderr: line(args[0] ?? "", "dist/variants/", true) });
      }
    } finally {
      denied.clear();
    }
  });

  it("an artifact that cannot be read is unreadable, not an entry that is no file", async () => {
    const root = await builtProject();
    const dist = join(root, "dist");
    denied.add(join(dist, "prefix.md"));
    try {
      expect(() => loadArtifacts({ distDir: dist })).toThrow(
        expect.objectContaining({
          problems: [{ file: "prefix.md", kind: "unreadable", code: "EACCES", folder: false, message: `Unexpected file that cannot be read (the file system does not allow it, EACCES), expected an artifact this process can read: give ${join(dist, "prefix.md")} read permission` }],
        }),
      );
      expect(await runCliInProcessFrom(root, "cost")).toEqual({ code: 2, stdout: "", stderr: line("cost", "dist/prefix.md", false) });
    } finally {
      denied.clear();
    }
  });
});
