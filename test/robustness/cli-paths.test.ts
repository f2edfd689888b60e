/**
 * Every path a command takes, hostile: a missing parent folder, a folder
 * where a file belongs, a path under a regular file, a FIFO (no writer, no
 * reader: a blocking open would hang), a name and a path longer than the file
 * system allows, a place root cannot write (sysfs, and a read-only bind mount
 * where this machine lets root make one). Each run ends within its timeout
 * with exit 1 (a finding) or 2 (one line on stderr naming the command), never
 * `internal error` with a stack trace. FIFO cases and watch run as real
 * processes (a hang must fail the test, not stall it); the rest in process.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { init } from "../../src/init.js";
import { cliPath, repoRoot } from "../build/helpers.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

const TIMEOUT_MS = 20_000;

type Kind = "missing parent" | "folder" | "under a file" | "FIFO" | "name too long" | "path too long" | "sysfs" | "read-only mount";

/** Where each argument sits in a command line; `path` is the hostile path. */
/** `writes`: what the command makes at the path; a folder that exists, or whose parent is missing, can take a new folder. */
const ARGUMENTS: ReadonlyArray<{ name: string; argv: (path: string) => string[]; writes?: "file" | "folder" }> = [
  { name: "init DIR", argv: (path) => ["init", path], writes: "folder" },
  { name: "lint --root", argv: (path) => ["lint", "--root", path] },
  { name: "lint --config", argv: (path) => ["lint", "--config", path] },
  { name: "build --root", argv: (path) => ["build", "--root", path] },
  { name: "build --out", argv: (path) => ["build", "--out", path], writes: "folder" },
  { name: "check --root", argv: (path) => ["check", "--root", path] },
  { name: "check --out", argv: (path) => ["check", "--out", path] },
  { name: "watch --root", argv: (path) => ["watch", "--format", "json", "--root", path] },
  { name: "watch --out", argv: (path) => ["watch", "--format", "json", "--out", path], writes: "folder" },
  { name: "cost --root", argv: (path) => ["cost", "--root", path] },
  { name: "cost --out", argv: (path) => ["cost", "--out", path] },
  { name: "cost --profile", argv: (path) => ["cost", "--profile", path] },
  { name: "report --root", argv: (path) => ["report", "--root", path] },
  { name: "report --out", argv: (path) => ["report", "--out", path] },
  { name: "report --base", argv: (path) => ["report", "--base", path] },
  { name: "report --profile", argv: (path) => ["report", "--profile", path] },
  { name: "report --evals", argv: (path) => ["report", "--evals", path] },
  { name: "report --baseline", argv: (path) => ["report", "--evals", "results.json", "--baseline", path] },
  { name: "report --output", argv: (path) => ["report", "--output", path], writes: "file" },
  { name: "audit FILE", argv: (path) => ["audit", path] },
  { name: "audit --root", argv: (path) => ["audit", "session.jsonl", "--root", path] },
  { name: "audit --dist", argv: (path) => ["audit", "session.jsonl", "--dist", path] },
  { name: "eval SCENARIO", argv: (path) => ["eval", "--replay", path] },
  { name: "eval --root", argv: (path) => ["eval", "--replay", "--root", path] },
  { name: "eval --dist", argv: (path) => ["eval", "--replay", "--dist", path] },
  { name: "eval --output", argv: (path) => ["eval", "--replay", "evals/blocking-question.yaml", "--output", path], writes: "file" },
  { name: "eval --baseline", argv: (path) => ["eval", "--replay", "evals/blocking-question.yaml", "--baseline", path] },
];

let project = "";
let cases = "";
let readOnly: string | undefined;

beforeAll(async () => {
  // A built Gamma project (cost, report, audit and eval read its dist/), with its evaluations and a session log.
  project = join(await tempDir("gamma cli paths"), "project");
  expect((await init({ dir: project, template: "gamma" })).ok).toBe(true);
  expect((await build({ root: project, persistentCache: false })).ok).toBe(true);
  cpSync(join(repoRoot, "test/fixtures/eval-results/blocking-question.json"), join(project, "results.json"));
  writeFileSync(join(project, "session.jsonl"), '{"type":"session","variant":"base","preloadedSkills":[]}\n');
  cases = await tempDir("gamma cli path cases");
  // Root writes through permission bits; a read-only bind mount stops it, where this machine allows one.
  const folder = join(cases, "read-only");
  mkdirSync(folder);
  if (spawnSync("mount", ["--bind", "-o", "ro", folder, folder]).status === 0) readOnly = folder;
}, 120_000);

afterAll(async () => {
  if (readOnly !== undefined) spawnSync("umount", [readOnly]);
  await removeTempDirs();
});

let caseNumber = 0;

/** A fresh hostile path of `kind` in a folder of its own (commands that write must not meet another case's leftovers). */
function hostile(kind: Kind): string | undefined {
  const dir = join(cases, `case-${++caseNumber}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "a-file"), "{}\n");
  switch (kind) {
    case "missing parent":
      return join(dir, "nowhere", "deeper", "x.json");
    case "folder":
      mkdirSync(join(dir, "a-folder"));
      return join(dir, "a-folder");
    case "under a file":
      return join(dir, "a-file", "x.json");
    case "FIFO":
      spawnSync("mkfifo", [join(dir, "a-fifo")]);
      return join(dir, "a-fifo");
    case "name too long":
      return join(dir, "x".repeat(300));
    case "path too long":
      return join(dir, ...Array.from({ length: 40 }, () => "y".repeat(120)));
    case "sysfs":
      return `/sys/gamma-prompt-${caseNumber}.json`;
    case "read-only mount":
      return readOnly === undefined ? undefined : join(readOnly, `case-${caseNumber}.json`);
  }
}

/** A real process, killed at the timeout: a hang shows as `timedOut`. */
function runProcess(argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean; running: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...argv], { cwd: project, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    // watch runs until stopped: once its first event is out, it is running as it should, and one Ctrl-C
    // stops it (a second one, sent while a loaded machine is still stopping it, would exit 130 at once).
    const watching = argv[0] === "watch";
    let interrupted = false;
    const poll = watching
      ? setInterval(() => {
          if (!interrupted && stdout.includes("\n")) {
            interrupted = true;
            child.kill("SIGINT");
          }
        }, 50)
      : undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, TIMEOUT_MS);
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      resolve({ code, stdout, stderr, timedOut, running: watching && code === 0 });
    });
  });
}

const KINDS: Kind[] = ["missing parent", "folder", "under a file", "FIFO", "name too long", "path too long", "sysfs", "read-only mount"];

describe("every command's path arguments, hostile", () => {
  for (const kind of KINDS) {
    it(`a ${kind}: exit 1 or 2 with what is wrong, never an internal error, a stack trace or a hang`, async () => {
      const problems: string[] = [];
      for (const argument of ARGUMENTS) {
        const path = hostile(kind);
        if (path === undefined) continue;
        const argv = argument.argv(path);
        const real = kind === "FIFO" || argv[0] === "watch";
        const run = real ? await runProcess(argv) : { ...(await runCliInProcessFrom(project, ...argv)), timedOut: false, running: false };
        const output = `${run.stdout}${run.stderr}`;
        const said = `${argument.name} (${kind}): exit ${run.code}, ${JSON.stringify(output.slice(0, 300))}`;
        if (run.timedOut) problems.push(`${said}: still running after ${TIMEOUT_MS} ms`);
        else if (/internal error|^\s+at .+:\d+:\d+\)?$/m.test(output)) problems.push(`${said}: a stack trace`);
        else if (run.running) continue;
        else if (run.code === 2 && !new RegExp(`^(gamma-prompt ${argv[0]}: |error: )\\S`).test(run.stderr)) problems.push(`${said}: exit 2 without a line naming the command`);
        else if (run.code === 1 && !/\berror\b/.test(output)) problems.push(`${said}: exit 1 without a finding`);
        else if (run.code === 0 && argument.writes !== undefined && !(kind === "missing parent" || (kind === "folder" && argument.writes === "folder"))) {
          problems.push(`${said}: reported success writing where nothing can be written`);
        }
        else if (run.code !== 0 && run.code !== 1 && run.code !== 2) problems.push(`${said}: an unexpected exit code`);
      }
      expect(problems).toEqual([]);
    }, 240_000);
  }
});
