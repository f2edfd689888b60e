/**
 * Ctrl-C or SIGTERM sent to a real `gamma-prompt build` process: the build stops at its next safe point
 * (a write already begun finishes), releases its lock, leaves no staging folder, and exits as a shell
 * reports a signal (130 for SIGINT, 143 for SIGTERM), saying in one line what became of dist/.
 */
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { init } from "../../src/init.js";
import { lockPathFor } from "../../src/pipeline/emit/lock.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { signalTwice } from "../helpers/signals.js";
import { cliPath, removeTempDirs, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

async function builtProject(): Promise<string> {
  const root = join(await tempDir("gamma interrupted build"), "x");
  expect((await init({ dir: root, template: "gamma" })).ok).toBe(true);
  expect(spawnSync(process.execPath, [cliPath, "build"], { cwd: root }).status).toBe(0);
  return root;
}

function startBuild(root: string): { pid: number; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>; stderr: () => string; kill: (signal: NodeJS.Signals) => void } {
  const child = spawn(process.execPath, [cliPath, "build", "--wait", "30"], { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
  return { pid: child.pid ?? 0, exit, stderr: () => stderr, kill: (signal) => child.kill(signal) };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

const leftovers = (root: string): string[] => readdirSync(root).filter((name) => name.startsWith(".gamma-prompt-"));

describe("gamma-prompt build stopped by a signal", () => {
  it("on Ctrl-C while it builds: exit 130, its lock released, no staging folder, dist/ whole", async () => {
    const root = await builtProject();
    appendFileSync(join(root, "prompts", "prefix.hbs"), "<!-- y -->\n");
    const running = startBuild(root);
    // Once it holds the lock it has begun: the signal lands somewhere between that and its last write.
    await until(() => existsSync(lockPathFor(join(root, "dist"))));
    running.kill("SIGINT");
    expect(await running.exit).toEqual({ code: 130, signal: null });
    expect(running.stderr()).toMatch(/^gamma-prompt build: stopped by SIGINT(; dist\/ was left as it was| after writing dist\/ in full)\n$/);
    expect(leftovers(root)).toEqual([]);
    // The old build or the new one, never a half-replaced one: it verifies against its own manifest, and
    // check finds at most files that differ from what the edited sources give.
    expect(() => loadArtifacts({ distDir: join(root, "dist") })).not.toThrow();
    const checked = spawnSync(process.execPath, [cliPath, "check", "--format", "json"], { cwd: root, encoding: "utf8" });
    const ruleIds = (JSON.parse(checked.stdout) as { diagnostics: Array<{ ruleId: string }> }).diagnostics.map((diagnostic) => diagnostic.ruleId);
    expect(ruleIds.filter((id) => id !== "dist/changed")).toEqual([]);
  });

  it("on SIGTERM while it waits for another build's lock: exit 143 at once, that lock untouched", async () => {
    const root = await builtProject();
    const lock = lockPathFor(join(root, "dist"));
    // A live holder: this test's own process.
    const held = `${JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), token: "0123456789abcdef" })}\n`;
    writeFileSync(lock, held);
    const running = startBuild(root);
    await until(() => running.stderr().includes("waiting up to 30 s"));
    running.kill("SIGTERM");
    expect(await running.exit).toEqual({ code: 143, signal: null });
    expect(running.stderr()).toMatch(/\ngamma-prompt build: stopped by SIGTERM; dist\/ was left as it was\n$/);
    expect(readFileSync(lock, "utf8")).toBe(held);
    expect(leftovers(root)).toEqual([".gamma-prompt-lock-dist"]);
  });

  it("on a second Ctrl-C while a large build compiles: exit 130 at once, without waiting for the next safe point", async () => {
    const root = await builtProject();
    // Enough skills that compiling runs long stretches without yielding, in which both signals arrive.
    for (let index = 0; index < 400; index++) {
      const name = `topic-${String(index).padStart(3, "0")}`;
      mkdirSync(join(root, "skills", name));
      writeFileSync(
        join(root, "skills", name, "SKILL.md"),
        `---\nname: ${name}\ndescription: Use when the user asks about ${name}, its facts, its sources and its vocabulary in any document.\nmetadata:\n  gamma-type: reference\n---\n\n# Topic ${index}\n\nFacts about ${name}.\n`,
      );
    }
    const running = startBuild(root);
    await until(() => existsSync(lockPathFor(join(root, "dist"))));
    await signalTwice(running.pid, "SIGINT");
    expect(await running.exit).toEqual({ code: 130, signal: null });
    // Ended by the second signal, not at a safe point the first one reached.
    expect(running.stderr()).toBe("");
  });
});
