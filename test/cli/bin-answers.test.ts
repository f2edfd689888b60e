import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../build/helpers.js";

// The bin answers a bare --version, and a bare --help off a terminal, by itself: straight to descriptor 1,
// without building `process.stdout` (whose stream modules cost a tenth of such a run). On a terminal,
// commander answers a bare --help, wrapped to the terminal's width.

const bin = join(repoRoot, JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).bin["gamma-prompt"] as string);
const version = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
const hook = join(repoRoot, "test/fixtures/hooks/stdout-access.cjs");
const folder = mkdtempSync(join(tmpdir(), "gamma-prompt-bin-answers-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Runs the bin with its output to a pipe; says whether anything read `process.stdout`. */
function runPiped(args: string[]): { status: number | null; stdout: string; stdoutStream: string } {
  const log = join(folder, `${args.join("_")}.txt`);
  const child = spawnSync(process.execPath, ["--require", hook, bin, ...args], { encoding: "utf8", env: { ...process.env, GAMMA_PROMPT_STDOUT_LOG: log } });
  return { status: child.status, stdout: child.stdout, stdoutStream: readFileSync(log, "utf8").trim() };
}

describe("the bin's own answers", () => {
  it.each([["--version"], ["-v"]])("answers %s to a pipe without building the output stream", (flag) => {
    expect(runPiped([flag])).toEqual({ status: 0, stdout: `${version}\n`, stdoutStream: "untouched" });
  });

  it.each([["--help"], ["-h"]])("answers %s to a pipe with commander's help, without building the output stream", (flag) => {
    const viaCommander = spawnSync(process.execPath, [bin, "help"], { encoding: "utf8" });
    expect(viaCommander.status).toBe(0);
    expect(runPiped([flag])).toEqual({ status: 0, stdout: viaCommander.stdout, stdoutStream: "untouched" });
  });

  it("still builds the stream for a command", () => {
    expect(runPiped(["lint", "--help"]).stdoutStream).toBe("read");
  });

  it.each([["--version"], ["--help"]])("ends %s quietly with exit 0 when the reader has gone", async (flag) => {
    const child = spawn(process.execPath, [bin, flag], { stdio: ["ignore", "pipe", "pipe"] });
    // The read end closes before the bin writes: its write fails with EPIPE, which loses nothing anyone reads.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  });

  // Python makes the descriptor: a pipe set non-blocking and filled to the last byte, so the bin's first write
  // is refused for now (EAGAIN); the reader drains it half a second later.
  const FULL_NON_BLOCKING_PIPE = `
import json, os, subprocess, sys, time
r, w = os.pipe()
os.set_blocking(w, False)
filled = 0
for size in (4096, 1):
    try:
        while True:
            filled += os.write(w, b"x" * size)
    except BlockingIOError:
        pass
child = subprocess.Popen([sys.argv[1], sys.argv[2], sys.argv[3]], stdout=w, stderr=subprocess.PIPE)
os.close(w)
time.sleep(0.5)
out = b""
while True:
    chunk = os.read(r, 65536)
    if not chunk:
        break
    out += chunk
stderr = child.stderr.read().decode()
print(json.dumps({"code": child.wait(), "stderr": stderr, "stdout": out[filled:].decode()}))
`;
  it.runIf(spawnSync("python3", ["--version"]).status === 0 && process.platform !== "win32").each([["--version"], ["--help"]])(
    "hands %s to the output stream when a non-blocking pipe refuses the write for now, and it arrives whole",
    (flag) => {
      const run = spawnSync("python3", ["-c", FULL_NON_BLOCKING_PIPE, process.execPath, bin, flag], { encoding: "utf8" });
      expect(run.status).toBe(0);
      const expected = flag === "--version" ? `${version}\n` : spawnSync(process.execPath, [bin, "help"], { encoding: "utf8" }).stdout;
      expect(JSON.parse(run.stdout)).toEqual({ code: 0, stderr: "", stdout: expected });
    },
  );

  // util-linux's `script` gives the command a terminal.
  it.runIf(existsSync("/usr/bin/script") && process.platform === "linux")("leaves a bare --help on a terminal to commander, wrapped to the terminal's width", () => {
    const child = spawnSync("/usr/bin/script", ["-qfec", `stty cols 50; "${process.execPath}" "${bin}" --help`, "/dev/null"], { encoding: "utf8", env: { ...process.env, TERM: "dumb" } });
    expect(child.status).toBe(0);
    expect(child.stdout.startsWith("Usage: gamma-prompt [options] [command]")).toBe(true);
    const description = (text: string): string[] => {
      const lines = text.replaceAll("\r\n", "\n").split("\n");
      return lines.slice(1, lines.indexOf("Options:")).filter((line) => line !== "");
    };
    const onTerminal = description(child.stdout);
    const piped = description(spawnSync(process.execPath, [bin, "--help"], { encoding: "utf8" }).stdout);
    // The program's description, wrapped at 50 columns on the terminal and at 80 off it.
    expect(onTerminal.join(" ")).toBe(piped.join(" "));
    expect(Math.max(...onTerminal.map((line) => line.length))).toBeLessThanOrEqual(50);
    expect(Math.max(...piped.map((line) => line.length))).toBeGreaterThan(50);
  });
});
