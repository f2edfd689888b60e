import { vi } from "vitest";
import { runCli } from "../../src/cli/program.js";

export interface CliRun {
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Settles when the command returns (a long-running one such as watch, once stopped). */
  done: Promise<{ code: number; stdout: string; stderr: string }>;
}

/**
 * Starts the CLI entry in this process, as `gamma-prompt <args>`, from inside
 * `dir` when given (files then print relative to it, as for a user in that
 * folder). Output is captured from the start; the working directory and the
 * streams are restored when the command returns.
 */
export function startCliInProcess(dir: string | undefined, ...args: string[]): CliRun {
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
  const cwd = process.cwd();
  if (dir !== undefined) process.chdir(dir);
  const done = runCli(["node", "gamma-prompt", ...args])
    .then((code) => ({ code, stdout, stderr }))
    .finally(() => {
      process.chdir(cwd);
      out.mockRestore();
      err.mockRestore();
    });
  return { stdout: () => stdout, stderr: () => stderr, done };
}

/** Runs the CLI entry in this process, as `gamma-prompt <args>`, capturing what it writes. */
export function runCliInProcess(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return startCliInProcess(undefined, ...args).done;
}

/** Runs the CLI in this process from inside `dir`, as a user in that folder (or CI at the repository root) would: files print relative to it. */
export function runCliInProcessFrom(dir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return startCliInProcess(dir, ...args).done;
}
