import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { copyParts, removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { repoRoot } from "../build/helpers.js";

// A shell whose working folder was removed under it (another terminal, a cleaned build folder) still starts
// commands there: every path the CLI resolves goes through a working folder the system no longer has.

afterAll(removeTempDirs);

const bin = join(repoRoot, JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).bin["gamma-prompt"] as string);

/** Runs the package's bin from a folder removed just before it starts. */
function runFromRemovedFolder(folder: string, args: string[], input = ""): { status: number | null; stdout: string; stderr: string } {
  mkdirSync(folder);
  const child = spawnSync("/bin/sh", ["-c", 'cd "$1" && rmdir "$1" && shift && exec "$@"', "sh", folder, process.execPath, bin, ...args], { encoding: "utf8", input });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe("a working folder that no longer exists", () => {
  it.each([["lint"], ["build"], ["check"], ["init", "agent"], ["lint", "--root", "ROOT"]])("%s: one line saying so, exit code 2", async (...args) => {
    const project = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge", "dist", "gamma-prompt.config.json"], join(await tempDir(), "project"));
    const folder = join(await tempDir(), "gone");
    const result = runFromRemovedFolder(folder, args.map((arg) => (arg === "ROOT" ? project : arg)));
    expect(result).toEqual({
      status: 2,
      stdout: "",
      stderr: `gamma-prompt ${args[0]}: the working folder no longer exists; cd to a folder that does and run it again\n`,
    });
    expect(existsSync(folder)).toBe(false);
  });

  it("lint, build: a working folder whose path is longer than the system allows gets one line too, no stack trace", async () => {
    const top = await tempDir();
    // 48 folders of 100 characters: a path of about 4,850 characters, past Linux's 4,096, reached one step at a time.
    const deep = 'name=$(printf "d%.0s" $(seq 1 100)); for i in $(seq 1 48); do mkdir "$name" && cd -P "$name" || exit 9; done; shift; exec "$@"';
    for (const command of ["lint", "build"]) {
      // bash, whose cd changes folder by the relative name (dash gives up once the whole path is too long).
      const child = spawnSync("bash", ["-c", `cd "$1" && ${deep}`, "bash", top, process.execPath, bin, command], { encoding: "utf8" });
      expect({ status: child.status, stdout: child.stdout, stderr: child.stderr }).toEqual({
        status: 2,
        stdout: "",
        stderr: `gamma-prompt ${command}: the working folder's path is longer than the system allows (ERANGE); cd to a folder with a shorter path and run it again\n`,
      });
      spawnSync("rm", ["-rf", join(top, "d".repeat(100))]);
    }
  });

  it.each([["lint", "--help"], ["help", "build"], ["explain"]])("%s %s: help and rule pages still answer", async (...args) => {
    const result = runFromRemovedFolder(join(await tempDir(), "gone"), args);
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: "" });
    expect(result.stdout.length).toBeGreaterThan(100);
  });

  it("lsp: the language server takes its project from the editor and answers", async () => {
    const project = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge", "gamma-prompt.config.json"], join(await tempDir(), "project"));
    const folder = join(await tempDir(), "gone");
    mkdirSync(folder);
    const frame = (message: object): string => {
      const body = JSON.stringify({ jsonrpc: "2.0", ...message });
      return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    };
    const child = spawn("/bin/sh", ["-c", 'cd "$1" && rmdir "$1" && shift && exec "$@"', "sh", folder, process.execPath, bin, "lsp", "--stdio"]);
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const answered = new Promise<void>((resolve) =>
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('"capabilities"')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    child.stdin.write(frame({ id: 1, method: "initialize", params: { processId: null, rootUri: pathToFileURL(project).href, capabilities: {} } }));
    await Promise.race([answered, exited]);
    child.stdin.end(frame({ id: 2, method: "shutdown" }) + frame({ method: "exit" }));
    await exited;
    expect(stderr).not.toContain("no longer exists");
    expect(stdout).toContain('"capabilities"');
  });
});
