import { vi } from "vitest";
import { runCli } from "../../src/cli/program.js";

/** Runs the CLI entry in this process, as `gamma-prompt <args>`, capturing what it writes. */
export async function runCliInProcess(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await runCli(["node", "gamma-prompt", ...args]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** Runs the CLI in this process from inside `dir`, as a user in that folder (or CI at the repository root) would: files print relative to it. */
export async function runCliInProcessFrom(dir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    return await runCliInProcess(...args);
  } finally {
    process.chdir(cwd);
  }
}
