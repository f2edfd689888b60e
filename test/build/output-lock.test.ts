/**
 * The output folder's lock (src/pipeline/emit/lock.ts), in process: one build
 * at a time per output folder, a live holder waited for and named, a dead
 * or unreadable one taken over, and a lock released only by its owner.
 * test/robustness/concurrent.test.ts runs the same through real CLI processes.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { acquireOutputLock, DEFAULT_LOCK_WAIT_MS, lockPathFor, OutputLockedError, type LockHolder } from "../../src/pipeline/emit/lock.js";
import { removeTempDirs, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

async function outDir(): Promise<string> {
  return join(await tempDir("gamma output lock"), "dist");
}

/** The pid of a process that has exited: no build holds a lock with it. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", ""]);
  return child.pid;
}

function writeLock(dist: string, holder: unknown, ageMs = 0): string {
  const path = lockPathFor(dist);
  writeFileSync(path, typeof holder === "string" ? holder : `${JSON.stringify(holder)}\n`);
  const when = (Date.now() - ageMs) / 1000;
  utimesSync(path, when, when);
  return path;
}

async function refusal(dist: string, waitMs: number, onWait?: (holder: LockHolder) => void): Promise<OutputLockedError> {
  const error: unknown = await acquireOutputLock(dist, { waitMs, ...(onWait ? { onWait } : {}) }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OutputLockedError);
  return error as OutputLockedError;
}

describe("the output lock", () => {
  it("is a file next to the output folder holding this process's pid, start time and a random token, and nothing else is left", async () => {
    const dist = await outDir();
    const before = Date.now();
    const lock = await acquireOutputLock(dist);
    expect(lock.path).toBe(join(dist, "..", ".gamma-prompt-lock-dist"));
    expect(JSON.parse(readFileSync(lock.path, "utf8"))).toEqual(lock.holder);
    expect(readFileSync(lock.path, "utf8").endsWith("}\n")).toBe(true);
    expect(lock.holder.pid).toBe(process.pid);
    expect(lock.holder.token).toMatch(/^[0-9a-f]{16}$/);
    expect(Date.parse(lock.holder.startedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(readdirSync(join(dist, ".."))).toEqual([".gamma-prompt-lock-dist"]);
    expect(lock.stillHeld()).toBe(true);
    lock.release();
    expect(readdirSync(join(dist, ".."))).toEqual([]);
    expect(lock.stillHeld()).toBe(false);
  });

  it("creates the folder the lock goes in", async () => {
    const dist = join(await tempDir("gamma output lock"), "not", "yet", "dist");
    const lock = await acquireOutputLock(dist);
    expect(readdirSync(join(dist, ".."))).toEqual([".gamma-prompt-lock-dist"]);
    lock.release();
  });

  it("waits for a live holder, tells once whom it waits for, and gives up after the wait naming it", async () => {
    const dist = await outDir();
    const held = await acquireOutputLock(dist);
    const waitedFor: LockHolder[] = [];
    const started = Date.now();
    const error = await refusal(dist, 300, (holder) => waitedFor.push(holder));
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(waitedFor).toEqual([held.holder]);
    expect(error.holder).toEqual(held.holder);
    expect(error.lockPath).toBe(held.path);
    expect(error.message).toMatch(
      new RegExp(`^build pid ${process.pid} \\(started ${held.holder.startedAt.replace(/[.]/g, "\\.")}\\) holds ${held.path.replace(/[.]/g, "\\.")} and was still running after 0\\.[3-9] s; try again when it has finished \\(remove the lock file only if that process is not a gamma-prompt build\\)$`),
    );
    expect(held.stillHeld()).toBe(true);
    held.release();
  });

  it("gives up at once with a wait of 0, and takes the lock as soon as the holder releases it", async () => {
    const dist = await outDir();
    const held = await acquireOutputLock(dist);
    await refusal(dist, 0);
    setTimeout(() => held.release(), 150);
    const next = await acquireOutputLock(dist, { waitMs: 5_000 });
    expect(next.holder.token).not.toBe(held.holder.token);
    expect(next.stillHeld()).toBe(true);
    next.release();
  });

  it("waits 10 seconds by default", () => {
    expect(DEFAULT_LOCK_WAIT_MS).toBe(10_000);
  });

  it("takes over a lock whose process is gone without waiting, and leaves no trace of it", async () => {
    const dist = await outDir();
    writeLock(dist, { pid: deadPid(), startedAt: "2026-01-01T00:00:00.000Z", token: "0123456789abcdef" });
    const waitedFor: LockHolder[] = [];
    const lock = await acquireOutputLock(dist, { waitMs: 0, onWait: (holder) => waitedFor.push(holder) });
    expect(waitedFor).toEqual([]);
    expect(JSON.parse(readFileSync(lock.path, "utf8"))).toEqual(lock.holder);
    expect(readdirSync(join(dist, ".."))).toEqual([".gamma-prompt-lock-dist"]);
    lock.release();
  });

  it.each([
    ["not JSON", "{"],
    ["JSON null", "null"],
    ["a pid of 0", { pid: 0, startedAt: "2026-01-01T00:00:00.000Z", token: "t" }],
    ["a negative pid", { pid: -1, startedAt: "2026-01-01T00:00:00.000Z", token: "t" }],
    ["a fractional pid", { pid: 1.5, startedAt: "2026-01-01T00:00:00.000Z", token: "t" }],
    ["a pid as text", { pid: "1", startedAt: "2026-01-01T00:00:00.000Z", token: "t" }],
    ["no start time", { pid: 1, token: "t" }],
    ["no token", { pid: 1, startedAt: "2026-01-01T00:00:00.000Z" }],
  ])("treats an unreadable lock (%s) as a build still writing it while it is young, without naming a holder", async (_name, content) => {
    const dist = await outDir();
    writeLock(dist, content);
    const waitedFor: LockHolder[] = [];
    const error = await refusal(dist, 100, (holder) => waitedFor.push(holder));
    expect(error.holder).toBeUndefined();
    expect(waitedFor).toEqual([]);
    expect(error.message).toMatch(/^another build holds .*\.gamma-prompt-lock-dist and was still running after /);
  });

  it.each([
    ["not JSON", "{", 6_000],
    ["a pid of 0", { pid: 0, startedAt: "2026-01-01T00:00:00.000Z", token: "t" }, 6_000],
  ])("takes over an unreadable lock (%s) older than 5 seconds: a leftover of a build killed while writing it", async (_name, content, ageMs) => {
    const dist = await outDir();
    writeLock(dist, content, ageMs);
    const lock = await acquireOutputLock(dist, { waitMs: 0 });
    expect(lock.stillHeld()).toBe(true);
    lock.release();
  });

  it("keeps waiting for an unreadable lock younger than 5 seconds", async () => {
    const dist = await outDir();
    writeLock(dist, "{", 4_000);
    await refusal(dist, 0);
  });

  it("treats a folder at the lock's name as a live lock it cannot read", async () => {
    const dist = await outDir();
    mkdirSync(lockPathFor(dist), { recursive: true });
    const error = await refusal(dist, 0);
    expect(error.holder).toBeUndefined();
  });

  it("is released only by its owner: a lock another build took over stays", async () => {
    const dist = await outDir();
    const lock = await acquireOutputLock(dist);
    const other = { pid: process.pid, startedAt: new Date().toISOString(), token: "fedcba9876543210" };
    writeLock(dist, other);
    expect(lock.stillHeld()).toBe(false);
    lock.release();
    expect(JSON.parse(readFileSync(lock.path, "utf8"))).toEqual(other);
  });
});

describe("the error for a folder locked past the wait", () => {
  it("names the holder and the wait in tenths of a second", () => {
    const holder = { pid: 4242, startedAt: "2026-12-04T10:00:00.000Z", token: "t" };
    expect(new OutputLockedError("/p/.gamma-prompt-lock-dist", holder, 1_260).message).toBe(
      "build pid 4242 (started 2026-12-04T10:00:00.000Z) holds /p/.gamma-prompt-lock-dist and was still running after 1.3 s; try again when it has finished (remove the lock file only if that process is not a gamma-prompt build)",
    );
    const error = new OutputLockedError("/p/.gamma-prompt-lock-dist", undefined, 10_000);
    expect(error.message.startsWith("another build holds /p/.gamma-prompt-lock-dist and was still running after 10 s;")).toBe(true);
    expect(error.name).toBe("OutputLockedError");
  });
});
