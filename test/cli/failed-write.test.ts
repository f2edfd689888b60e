import { spawnSync } from "node:child_process";
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// Standard output that refuses a write (a full disk; /dev/full on Linux): the output the caller asked for is
// lost, so the run says so in one line and exits 2, never 1, which CI reads as findings.

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const project = mkdtempSync(join(tmpdir(), "gamma-prompt-failed-write-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

function runToFullDevice(args: string[], cwd: string): { status: number | null; stderr: string } {
  const full = openSync("/dev/full", "w");
  try {
    const run = spawnSync(process.execPath, [join(root, "lib", "cli", "bin.cjs"), ...args], { cwd, stdio: ["ignore", full, "pipe"], encoding: "utf8" });
    return { status: run.status, stderr: run.stderr };
  } finally {
    closeSync(full);
  }
}

describe.runIf(existsSync("/dev/full"))("a write to standard output that fails", () => {
  it.each([["lint", "--format", "sarif"], ["lint"], ["build"], ["check", "--format", "json"]])("ends %s with one line and exit 2", (...args) => {
    if (!existsSync(join(project, "skills"))) {
      for (const entry of ["skills", "prompts", "schemas", "knowledge", "dist", "gamma-prompt.config.json"]) {
        if (existsSync(join(root, entry))) cpSync(join(root, entry), join(project, entry), { recursive: true });
      }
    }
    const run = runToFullDevice(args, project);
    expect(run).toEqual({ status: 2, stderr: `gamma-prompt ${args[0]}: could not write to standard output: no space left on device (ENOSPC)\n` });
  });

  it.each([["--help"], ["-h"], ["--version"], ["-v"]])("ends %s, which the bin answers itself, with one line and exit 2", (option) => {
    const run = runToFullDevice([option], project);
    expect(run).toEqual({ status: 2, stderr: "gamma-prompt: could not write to standard output: no space left on device (ENOSPC)\n" });
  });
});
