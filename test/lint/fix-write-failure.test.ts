/**
 * `lint --fix` where a fixed file cannot be written (a read-only folder: the
 * temporary file beside it is refused) is one line naming the file and what
 * was already written, exit 2 as for other usage problems, never a stack
 * trace. The suite may run as root, whom permission bits do not stop, so the
 * refusal is made the way the file system makes it for another user.
 */
import { cp, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

/** Absolute folders in which no file can be created. */
const readOnly = vi.hoisted(() => new Set<string>());
/** Absolute files their user may not write. */
const unwritable = vi.hoisted(() => new Set<string>());
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const openSync = (...args: Parameters<typeof actual.openSync>) => {
    const [path, flags] = args;
    if (typeof flags === "string" && flags.includes("w") && readOnly.has(dirname(String(path)))) {
      throw Object.assign(new Error(`EACCES: permission denied, open '${String(path)}'`), { code: "EACCES", errno: -13, syscall: "open", path: String(path) });
    }
    return actual.openSync(...args);
  };
  // A file its user may not write, as access(2) answers for a file of mode 0444 (root is not stopped by the bits).
  const accessSync = (...args: Parameters<typeof actual.accessSync>) => {
    const [path, mode] = args;
    if (mode !== undefined && (mode & actual.constants.W_OK) !== 0 && unwritable.has(String(path))) {
      throw Object.assign(new Error(`EACCES: permission denied, access '${String(path)}'`), { code: "EACCES", errno: -13, syscall: "access", path: String(path) });
    }
    return actual.accessSync(...args);
  };
  return { ...actual, openSync: openSync as typeof actual.openSync, accessSync: accessSync as typeof actual.accessSync };
});

const project = fileURLToPath(new URL("../fixtures/fix/insert-type/project", import.meta.url));

afterEach(() => {
  readOnly.clear();
  unwritable.clear();
});
afterAll(removeTempDirs);

async function copyOfProject(): Promise<string> {
  const dir = await tempDir("fix read-only");
  await cp(project, dir, { recursive: true });
  return dir;
}

describe("lint --fix in a folder it cannot write", () => {
  it.each(["stylish", "json"])("names the file and what was written, exit 2 (--format %s)", async (format) => {
    const dir = await copyOfProject();
    readOnly.add(join(dir, "skills/no-name"));
    const before = await readFile(join(dir, "skills/no-name/SKILL.md"));
    const run = await runCliInProcessFrom(dir, "lint", "--fix", "--format", format);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      "gamma-prompt lint: cannot write the fixes to skills/no-name/SKILL.md: the file system does not allow it (EACCES); the fixes to skills/glossary/SKILL.md, skills/handoff/SKILL.md, skills/installer/SKILL.md were written\n",
    );
    // The refused file is as it was; the ones before it carry their fixes.
    expect(await readFile(join(dir, "skills/no-name/SKILL.md"))).toEqual(before);
    expect(await readFile(join(dir, "skills/glossary/SKILL.md"), "utf8")).toContain("type: reference");
  });

  it("says nothing was written when the first file is refused", async () => {
    const dir = await copyOfProject();
    readOnly.add(join(dir, "skills/glossary"));
    const run = await runCliInProcessFrom(dir, "lint", "--fix");
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("gamma-prompt lint: cannot write the fixes to skills/glossary/SKILL.md: the file system does not allow it (EACCES); nothing was written\n");
  });
});

describe("lint --fix on a file its user may not write", () => {
  it("refuses it before writing any file, exit 2, one line (as for a read-only folder)", async () => {
    const dir = await copyOfProject();
    // Mode 0444 in a folder its user may write: renaming over it would succeed, so the file itself is asked.
    unwritable.add(join(dir, "skills/installer/SKILL.md"));
    const before = await readFile(join(dir, "skills/glossary/SKILL.md"));
    const run = await runCliInProcessFrom(dir, "lint", "--fix");
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("gamma-prompt lint: cannot write the fixes to skills/installer/SKILL.md: the file system does not allow it (EACCES); nothing was written\n");
    expect(await readFile(join(dir, "skills/glossary/SKILL.md"))).toEqual(before);
  });
});
