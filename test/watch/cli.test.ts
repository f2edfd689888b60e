import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import type { WatchEvent } from "../../src/watch.js";
import { lockPathFor } from "../../src/pipeline/emit/lock.js";
import { runCliInProcess } from "../helpers/cli.js";
import { signalTwice } from "../helpers/signals.js";
import { copyProject, distProblems, pause, readTree, removeTempProjects, repoRoot, waitFor, withDescription } from "./helpers.js";

const cli = join(repoRoot, "lib", "cli", "index.js");

interface Running {
  child: ChildProcessWithoutNullStreams;
  /** Resolves with the next JSON event the process prints. */
  nextEvent: () => Promise<WatchEvent>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}

function startCli(root: string): Running {
  const child = spawn(process.execPath, [cli, "watch", "--format", "json", "--root", root], { cwd: root });
  const queued: WatchEvent[] = [];
  const waiting: Array<(event: WatchEvent) => void> = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    const event = JSON.parse(line) as WatchEvent;
    const waiter = waiting.shift();
    if (waiter) waiter(event);
    else queued.push(event);
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    nextEvent: () => {
      const event = queued.shift();
      return event ? Promise.resolve(event) : new Promise((resolve) => waiting.push(resolve));
    },
    exit,
    stderr: () => stderr,
  };
}

afterEach(removeTempProjects);

describe("gamma-prompt watch (CLI)", () => {
  it("prints the initial build as a JSON line, then exits 0 on SIGINT leaving only artifacts", async () => {
    const root = await copyProject();
    const running = startCli(root);
    const first = await running.nextEvent();
    expect(first).toMatchObject({ type: "initial", ok: true, changedPaths: [] });

    running.child.kill("SIGINT");
    expect(await running.exit).toEqual({ code: 0, signal: null });
    expect(running.stderr()).toBe("");
    expect(await distProblems(join(root, "dist"))).toEqual([]);
    expect([...(await readTree(root)).keys()].filter((path) => !/^(skills|prompts|schemas|dist)\//.test(path))).toEqual([]);
  });

  it("exits 0 on SIGTERM sent right after an edit, with dist/ consistent with its manifest", async () => {
    const root = await copyProject();
    const running = startCli(root);
    await running.nextEvent();
    const skill = join(root, "skills", "gml-cli", "SKILL.md");
    await writeFile(skill, withDescription(await readFile(skill, "utf8"), "Use BEFORE any gml command."));
    // Just past the debounce, so the signal usually lands while the rebuild writes; the
    // assertions hold wherever it lands.
    await pause(120);
    running.child.kill("SIGTERM");
    expect(await running.exit).toEqual({ code: 0, signal: null });
    expect(await distProblems(join(root, "dist"))).toEqual([]);
  });

  it("stops with exit 0 at its next event once the reader of its output has gone, leaving dist/ consistent", async () => {
    const root = await copyProject();
    const running = startCli(root);
    expect(await running.nextEvent()).toMatchObject({ type: "initial", ok: true });
    // `watch --format json | head -1`: the reader exits after the first event.
    running.child.stdout.destroy();
    const skill = join(root, "skills", "gml-cli", "SKILL.md");
    await writeFile(skill, withDescription(await readFile(skill, "utf8"), "Use BEFORE any gml command."));
    expect(await running.exit).toEqual({ code: 0, signal: null });
    expect(running.stderr()).toBe("");
    expect(await distProblems(join(root, "dist"))).toEqual([]);
  });

  it("stops with exit 2 and says why when its project root is moved away: nothing there is watched any more", async () => {
    const root = await copyProject();
    const running = startCli(root);
    expect(await running.nextEvent()).toMatchObject({ type: "initial", ok: true });
    const moved = `${root}-moved`;
    await rename(root, moved);
    try {
      expect(await running.nextEvent()).toMatchObject({ type: "error" });
      expect(await running.exit).toEqual({ code: 2, signal: null });
      expect(running.stderr()).toBe(`gamma-prompt watch: stopped: the project root "${root}" is gone (it does not exist): it was moved or deleted, and nothing there is watched\n`);
    } finally {
      await rename(moved, root);
    }
  });

  it("exits 130 at once on a second Ctrl-C sent while the initial build of a large project runs", async () => {
    const root = await copyProject();
    // Enough skills that the build runs long stretches without yielding, in which both signals arrive.
    for (let index = 0; index < 400; index++) {
      const name = `topic-${String(index).padStart(3, "0")}`;
      await mkdir(join(root, "skills", name));
      await writeFile(
        join(root, "skills", name, "SKILL.md"),
        `---\nname: ${name}\ndescription: Use when the user asks about ${name}, its facts, its sources and its vocabulary in any document.\nmetadata:\n  gamma-type: reference\n---\n\n# Topic ${index}\n\nFacts about ${name}.\n`,
      );
    }
    const running = startCli(root);
    // Once it holds the lock, the build has begun.
    await waitFor("the initial build to start", () => existsSync(lockPathFor(join(root, "dist"))));
    await signalTwice(running.child.pid ?? 0, "SIGINT");
    expect(await running.exit).toEqual({ code: 130, signal: null });
  });

  it("prints a summary line per build in text format", async () => {
    const root = await copyProject();
    const child = spawn(process.execPath, [cli, "watch", "--root", root]);
    const lines: string[] = [];
    const reader = createInterface({ input: child.stdout });
    await new Promise<void>((resolve) =>
      reader.on("line", (line) => {
        lines.push(line);
        if (line.startsWith("Watching ")) resolve();
      }),
    );
    child.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^✔ built in \d+ ms · wrote cache-plan\.json, catalog\.xml, injections\.json, manifest\.json \(\+\d+ more\)$/);
    expect(lines.at(-1)).toBe("Watching skills/, prompts/, schemas/, knowledge/ and gamma-prompt.config.json (Ctrl-C to stop)");
  });

  it.each([
    ["an unknown --format", ["--format", "xml"], "xml"],
    ["a root without skills/", ["--root", "test"], "has no skills/ folder"],
  ])("rejects %s as a usage error", async (_case, args, message) => {
    const child = spawn(process.execPath, [cli, "watch", ...args], { cwd: repoRoot });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });

  it("refuses a --debounce below the documented 60 ms minimum with one line, before watching anything", async () => {
    const root = await copyProject();
    for (const value of ["10", "59", "abc", "-5"]) {
      const { code, stdout, stderr } = await runCliInProcess("watch", "--root", root, "--debounce", value);
      expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
      expect(stderr.split("\n")[0]).toBe(`error: option '--debounce <ms>' argument '${value}' is invalid. Expected a whole number of milliseconds, at least 60 (a shorter pause can miss a save made right after another).`);
    }
    expect(await readTree(join(root, "dist"))).toEqual(new Map());
  });
  it("refuses a --debounce above the documented one-minute maximum with one line (Node's timers would fire at once)", async () => {
    const root = await copyProject();
    for (const value of ["60001", "3000000000", "99999999999999999999"]) {
      const { code, stdout, stderr } = await runCliInProcess("watch", "--root", root, "--debounce", value);
      expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
      expect(stderr.split("\n")[0]).toBe(`error: option '--debounce <ms>' argument '${value}' is invalid. Expected at most 60000 milliseconds (one minute).`);
      expect(stderr).not.toContain("TimeoutOverflowWarning");
    }
    expect(await readTree(join(root, "dist"))).toEqual(new Map());
  });
});
