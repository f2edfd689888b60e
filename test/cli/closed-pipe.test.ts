import { spawn } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// `gamma-prompt check | head` closes the pipe before the report is written:
// no stack trace, and the exit code still says what check found.

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const project = mkdtempSync(join(tmpdir(), "gamma-prompt-closed-pipe-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

function runWithClosedStdout(args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, "lib", "cli", "index.js"), ...args], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy(); // the reader went away before the first byte
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("close", (status) => resolve({ status, stderr }));
  });
}

describe("a closed output pipe", () => {
  it("ends check without a stack trace and keeps its exit code", async () => {
    for (const entry of ["skills", "prompts", "schemas", "knowledge", "dist"]) {
      if (existsSync(join(root, entry))) cpSync(join(root, entry), join(project, entry), { recursive: true });
    }
    expect((await runWithClosedStdout(["check", "--root", project])).status).toBe(0);
    appendFileSync(join(project, "prompts", "partials", "identity.hbs"), "One more line.\n");
    const drifted = await runWithClosedStdout(["check", "--root", project]);
    expect(drifted.status).toBe(1);
    expect(drifted.stderr).not.toMatch(/EPIPE|at .+\(.+:\d+:\d+\)/);
  });
});
