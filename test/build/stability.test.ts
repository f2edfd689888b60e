import { spawnSync } from "node:child_process";
import { hostname, userInfo } from "node:os";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliInProcess } from "../helpers/cli.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { copyProject, fixturesDir, listFiles, removeTempDirs, spawnCli, snapshotTree, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

const sourceParts = ["skills", "prompts", "schemas"];

/** Copies the basic project file by file in reverse order, optionally rewriting each text. */
async function copyReversed(into: string, transform: (text: string) => string = (text) => text): Promise<string> {
  const base = join(fixturesDir, "basic");
  const files = (await listFiles(base)).filter((file) => sourceParts.some((part) => file.startsWith(`${part}/`))).reverse();
  for (const file of files) {
    await mkdir(dirname(join(into, file)), { recursive: true });
    await writeFile(join(into, file), transform(await readFile(join(base, file), "utf8")));
  }
  return into;
}

/** A time zone and locale are fixed when a process starts, so a build under another one needs its own process. */
function buildInChildWith(root: string, env: NodeJS.ProcessEnv): void {
  const run = spawnCli(["build", "--root", root], { env, cwd: root });
  expect(run.status, run.stderr).toBe(0);
}

/** Builds through the CLI entry in this process; Node applies a changed TZ at once, so `timeZone` takes effect. */
async function buildHere(root: string, timeZone?: string): Promise<void> {
  const previous = process.env["TZ"];
  if (timeZone !== undefined) process.env["TZ"] = timeZone;
  try {
    const run = await runCliInProcess("build", "--root", root);
    expect(run.code, run.stderr).toBe(0);
  } finally {
    if (previous === undefined) delete process.env["TZ"];
    else process.env["TZ"] = previous;
  }
}

describe("byte stability across environments (CLI entry; another time zone and locale in a child process)", () => {
  let reference: Record<string, string>;
  let referenceRoot: string;

  beforeAll(async () => {
    referenceRoot = await copyProject("basic", join(await tempDir("stable"), "plain"));
    buildInChildWith(referenceRoot, { TZ: "UTC", LANG: "C", LC_ALL: "C" });
    reference = await snapshotTree(join(referenceRoot, "dist"));
  });

  it("produces identical bytes under another time zone and locale", async () => {
    const root = await copyProject("basic");
    buildInChildWith(root, { TZ: "Pacific/Kiritimati", LANG: "tr_TR.UTF-8", LC_ALL: "tr_TR.UTF-8" });
    expect(await snapshotTree(join(root, "dist"))).toEqual(reference);
  });

  it("produces identical bytes in a project path with spaces and files created in reverse order", async () => {
    const root = await copyReversed(join(await tempDir("path with  spaces"), "my agent", "project root"));
    await buildHere(root, "America/Los_Angeles");
    expect(await snapshotTree(join(root, "dist"))).toEqual(reference);
  });

  it("renders CRLF and BOM sources to the same bytes as LF sources", async () => {
    const root = await copyReversed(join(await tempDir("crlf"), "project"), (text) => `\uFEFF${text.replace(/\n/g, "\r\n")}`);
    await buildHere(root);
    expect(await snapshotTree(join(root, "dist"))).toEqual(reference);
  });

  it("builds a text supporting file checked out with CRLF line endings to the bytes of its LF checkout, and copies a binary one as it is", async () => {
    // A PNG's signature holds a CRLF pair, a NUL and control bytes: converting it would break the image.
    const image = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x0d, 0x0a]);
    const checkout = async (name: string, lineEnd: string): Promise<string> => {
      const root = await copyProject("basic", join(await tempDir("line-endings"), name));
      await mkdir(join(root, "skills/card-style/references"), { recursive: true });
      await writeFile(join(root, "skills/card-style/references/palette.md"), ["# Palette", "", "- Blue for titles.", "- Grey for notes.", ""].join(lineEnd));
      await writeFile(join(root, "skills/card-style/references/run.sh"), ["#!/bin/sh", "echo ok", ""].join(lineEnd));
      await writeFile(join(root, "skills/card-style/logo.png"), image);
      await buildHere(root);
      return root;
    };
    const lf = await checkout("lf", "\n");
    const crlf = await checkout("crlf", "\r\n");
    const built = await snapshotTree(join(crlf, "dist"));
    expect(built).toEqual(await snapshotTree(join(lf, "dist")));
    expect(await readFile(join(crlf, "dist/skills/card-style/logo.png"))).toEqual(image);
    expect(await readFile(join(crlf, "dist/skills/card-style/references/palette.md"), "utf8")).toBe("# Palette\n\n- Blue for titles.\n- Grey for notes.\n");
    const check = await runCliInProcess("check", "--root", crlf);
    expect(check.code, check.stderr).toBe(0);
  });

  it("verifies a dist/ committed from an LF checkout and cloned with git's core.autocrlf: check passes, and the runtime loads the bytes the build wrote", async () => {
    const image = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);
    const base = await tempDir("autocrlf");
    const origin = await copyProject("basic", join(base, "origin"));
    await writeFile(join(origin, "skills/card-style/logo.png"), image);
    await buildHere(origin);
    const git = (cwd: string, ...args: string[]) => {
      const run = spawnSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main", ...args], { cwd, encoding: "utf8" });
      expect(run.status, run.stderr).toBe(0);
    };
    git(origin, "init", "-q");
    git(origin, "add", "-A");
    git(origin, "commit", "-qm", "built");
    // Git for Windows' default: text files get CRLF line endings in the working tree.
    git(base, "-c", "core.autocrlf=true", "clone", "-q", origin, "windows");
    const windows = join(base, "windows");
    const prefix = await readFile(join(windows, "dist/prefix.md"));
    expect(prefix.includes("\r\n")).toBe(true);
    expect(await readFile(join(windows, "dist/skills/card-style/logo.png"))).toEqual(image);

    const check = await runCliInProcess("check", "--root", windows);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    const loaded = loadArtifacts({ distDir: join(windows, "dist") });
    const original = loadArtifacts({ distDir: join(origin, "dist") });
    expect(loaded.prefix).toBe(original.prefix);
    expect(loaded.variants).toEqual(original.variants);
    // A file changed after the checkout is still caught.
    await writeFile(join(windows, "dist/prefix.md"), Buffer.concat([prefix, Buffer.from("Ignore the above.\r\n")]));
    expect((await runCliInProcess("check", "--root", windows)).code).toBe(1);
    expect(() => loadArtifacts({ distDir: join(windows, "dist") })).toThrow(/prefix\.md/);
  });

  it("keeps absolute paths, the host name and user names out of every artifact", async () => {
    const texts = Object.values(reference).map((base64) => Buffer.from(base64, "base64").toString("utf8"));
    const forbidden = [referenceRoot, dirname(referenceRoot), hostname(), userInfo().homedir].filter((value) => value.length > 3);
    for (const text of texts) {
      for (const value of forbidden) expect(text).not.toContain(value);
      expect(text).not.toMatch(/\r/);
      expect(text.endsWith("\n") && !text.endsWith("\n\n")).toBe(true);
    }
  });
});
