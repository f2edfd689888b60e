/**
 * A link or path mention whose lookup fails says why: permission denied on a
 * folder of its path (EACCES), or a target that exists but is no regular file
 * (a FIFO), never "no file system can look up" or "does not exist". The suite
 * may run as root, whom permission bits do not stop, so the lookup is made to
 * fail the way it fails for another user.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { lint } from "../../src/lint.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

/** Absolute folders below which every lookup fails with EACCES. */
const denied = vi.hoisted(() => new Set<string>());

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const statSync = ((...args: Parameters<typeof actual.statSync>) => {
    const path = String(args[0]);
    if ([...denied].some((folder) => path.startsWith(`${folder}${sep}`))) {
      throw Object.assign(new Error(`EACCES: permission denied, stat '${path}'`), { code: "EACCES", errno: -13, syscall: "stat", path });
    }
    return actual.statSync(...args);
  }) as typeof actual.statSync;
  // The denied folder itself is seen (its parent may be searched) but cannot be listed.
  const readdirSync = ((...args: Parameters<typeof actual.readdirSync>) => {
    const path = String(args[0]);
    if (denied.has(path)) throw Object.assign(new Error(`EACCES: permission denied, scandir '${path}'`), { code: "EACCES", errno: -13, syscall: "scandir", path });
    return actual.readdirSync(...args);
  }) as typeof actual.readdirSync;
  return { ...actual, statSync, readdirSync };
});

afterEach(() => denied.clear());
afterAll(removeTempDirs);

const BODY = "---\nname: s\ndescription: Use when x.\n---\n\nSee [r](references/a.md) and references/b.md\n";

async function project(): Promise<string> {
  const root = await tempDir("gamma-link-lookups-");
  mkdirSync(join(root, "skills/s/references"), { recursive: true });
  writeFileSync(join(root, "skills/s/SKILL.md"), BODY);
  return root;
}

const findings = (diagnostics: Array<{ ruleId: string; line: number; column: number; message: string }>) =>
  diagnostics.filter((diagnostic) => diagnostic.ruleId === "skill/broken-link" || diagnostic.ruleId === "skill/unresolved-path").map((diagnostic) => [diagnostic.ruleId, diagnostic.line, diagnostic.column, diagnostic.message]);

describe("links and path mentions whose lookup fails", () => {
  it("say permission denied for files in a folder lint may not search", async () => {
    const root = await project();
    writeFileSync(join(root, "skills/s/references/a.md"), "a\n");
    writeFileSync(join(root, "skills/s/references/b.md"), "b\n");
    denied.add(join(root, "skills/s/references"));
    const result = await lint({ root });
    expect(findings(result.diagnostics)).toEqual([
      ["skill/broken-link", 6, 9, 'Unexpected link "references/a.md", which lint may not look up (permission denied, EACCES, on a folder of its path), expected a file at skills/s/references/a.md that can be read'],
      ["skill/unresolved-path", 6, 30, `Unexpected path "references/b.md", which lint may not look up (permission denied, EACCES, on a folder of its path), expected a file in the skill's folder that can be read`],
    ]);
  });

  it("say not a regular file for a link to a FIFO", async () => {
    const root = await project();
    for (const name of ["a.md", "b.md"]) {
      const made = spawnSync("mkfifo", [join(root, "skills/s/references", name)]);
      expect(made.status).toBe(0);
    }
    const result = await lint({ root });
    expect(findings(result.diagnostics)).toEqual([
      ["skill/broken-link", 6, 9, 'Unexpected link to "references/a.md", which is not a regular file (a FIFO, a socket or a device), expected a file at skills/s/references/a.md'],
    ]);
  });
});
