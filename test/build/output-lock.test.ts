/**
 * The output folder's lock (src/pipeline/emit/lock.ts), in process: one build
 * at a time per output folder, a live holder waited for and named, a dead
 * or unreadable one taken over, and a lock released only by its owner.
 * test/robustness/concurrent.test.ts runs the same through real CLI processes.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { build } from "../../src/build.js";
import { spawn } from "node:child_process";
import { acquireOutputLock, DEFAULT_LOCK_WAIT_MS, lockPathFor, LockWriteError, OutputLockedError, removeStaleLockFiles, type LockHolder, type OutputLock } from "../../src/pipeline/emit/lock.js";
import { JOURNAL_FILE, journaledMessage, journalState, LOCK_HEARTBEAT_MS, LOCK_STALE_MS, pidNamespace, processStartTime } from "../../src/protocol/dist-journal.js";
import { emitArtifacts, LostLockError } from "../../src/pipeline/emit/emit.js";
import { STALE_STAGING_MS } from "../../src/pipeline/emit/recovery.js";
import type { RegularRead, RegularReadOptions } from "../../src/protocol/regular-file.js";
import { copyProject, removeTempDirs, tempDir } from "./helpers.js";

/**
 * What another build does at an exact instant of this one's lock handling,
 * just before a read of the lock (or any file) or just after it; or, by
 * throwing, a file system refusing a hard link. Cleared before each test.
 */
const hooks = vi.hoisted(
  () =>
    ({}) as {
      beforeRead?: (path: string) => void;
      afterRead?: (path: string) => void;
      linkSync?: (from: string, to: string) => void;
      writeFileSync?: (path: string) => void;
    },
);
vi.mock("../../src/protocol/regular-file.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/protocol/regular-file.js")>();
  return {
    ...actual,
    readRegularFile: (path: string, options?: RegularReadOptions): RegularRead => {
      hooks.beforeRead?.(path);
      const read = actual.readRegularFile(path, options);
      hooks.afterRead?.(path);
      return read;
    },
  };
});
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  return {
    ...actual,
    linkSync: (from: fs.PathLike, to: fs.PathLike) => {
      hooks.linkSync?.(String(from), String(to));
      actual.linkSync(from, to);
    },
    writeFileSync: (...args: Parameters<typeof fs.writeFileSync>) => {
      hooks.writeFileSync?.(String(args[0]));
      actual.writeFileSync(...args);
    },
  };
});

afterAll(removeTempDirs);
beforeEach(() => {
  for (const key of Object.keys(hooks) as (keyof typeof hooks)[]) delete hooks[key];
});
afterEach(() => {
  vi.useRealTimers();
});

/** A hook that acts only the first time `when` holds. */
function once(when: (path: string) => boolean, act: (path: string) => void): (path: string) => void {
  let done = false;
  return (path) => {
    if (done || !when(path)) return;
    done = true;
    act(path);
  };
}

/** Where a promise stands once every pending callback but the (fake) timers has run. */
async function standing<T>(promise: Promise<T>): Promise<{ state: "pending" } | { state: "fulfilled"; value: T } | { state: "rejected"; error: unknown }> {
  let outcome: { state: "pending" } | { state: "fulfilled"; value: T } | { state: "rejected"; error: unknown } = { state: "pending" };
  promise.then(
    (value) => (outcome = { state: "fulfilled", value }),
    (error: unknown) => (outcome = { state: "rejected", error }),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return outcome;
}

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

describe("the output lock's polling (fake clock)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  });

  it("with a wait of 0, gives up at its first look without announcing a wait", async () => {
    const dist = await outDir();
    const held = await acquireOutputLock(dist);
    const waitedFor: LockHolder[] = [];
    const outcome = await standing(acquireOutputLock(dist, { waitMs: 0, onWait: (holder) => waitedFor.push(holder) }));
    expect(outcome.state).toBe("rejected");
    expect((outcome as { error: unknown }).error).toBeInstanceOf(OutputLockedError);
    expect(waitedFor).toEqual([]);
    held.release();
  });

  it("looks again every 50 ms, so a released lock is taken at the next look", async () => {
    const dist = await outDir();
    const held = await acquireOutputLock(dist);
    const next = acquireOutputLock(dist, { waitMs: 10_000 });
    expect((await standing(next)).state).toBe("pending");
    held.release();
    await vi.advanceTimersByTimeAsync(49);
    expect((await standing(next)).state).toBe("pending");
    await vi.advanceTimersByTimeAsync(1);
    const outcome = await standing(next);
    expect(outcome.state).toBe("fulfilled");
    (outcome as { value: OutputLock }).value.release();
  });

  it("shortens its last wait to end at the deadline, and gives up there", async () => {
    const dist = await outDir();
    const held = await acquireOutputLock(dist);
    const next = acquireOutputLock(dist, { waitMs: 120 });
    // Looks at 0, 50 and 100 ms; the last wait is 20 ms.
    await vi.advanceTimersByTimeAsync(119);
    expect((await standing(next)).state).toBe("pending");
    await vi.advanceTimersByTimeAsync(1);
    const outcome = await standing(next);
    expect(outcome.state).toBe("rejected");
    expect(((outcome as { error: unknown }).error as OutputLockedError).message).toContain("was still running after 0.1 s;");
    held.release();
  });

  it("waits for an unreadable lock exactly 5 seconds old, and takes over one a millisecond older", async () => {
    const dist = await outDir();
    const writtenAt = Math.floor(Date.now() / 1000);
    writeFileSync(lockPathFor(dist), "{");
    utimesSync(lockPathFor(dist), writtenAt, writtenAt);
    vi.setSystemTime(writtenAt * 1000 + 5_000);
    await refusal(dist, 0);
    vi.setSystemTime(writtenAt * 1000 + 5_001);
    const lock = await acquireOutputLock(dist, { waitMs: 0 });
    expect(lock.stillHeld()).toBe(true);
    lock.release();
  });
});

describe("the output lock and another build acting meanwhile", () => {
  const liveOther = { pid: process.pid, startedAt: "2026-12-04T10:00:00.000Z", token: "fedcba9876543210" };

  it("takes a lock released between its failed create and its read at once, even with a wait of 0", async () => {
    const dist = await outDir();
    const held = await acquireOutputLock(dist);
    hooks.beforeRead = once(
      (path) => path === held.path,
      () => unlinkSync(held.path),
    );
    const lock = await acquireOutputLock(dist, { waitMs: 0 });
    expect(lock.stillHeld()).toBe(true);
    lock.release();
  });

  it("takes over an unreadable lock removed right after it was read", async () => {
    const dist = await outDir();
    const path = writeLock(dist, "{");
    hooks.afterRead = once(
      (read) => read === path,
      () => unlinkSync(path),
    );
    const lock = await acquireOutputLock(dist, { waitMs: 0 });
    expect(lock.stillHeld()).toBe(true);
    lock.release();
    expect(readdirSync(join(dist, ".."))).toEqual([]);
  });

  it("puts back the fresh lock of a build that took over the dead one first, and waits for that build", async () => {
    const dist = await outDir();
    const path = writeLock(dist, { pid: deadPid(), startedAt: "2026-01-01T00:00:00.000Z", token: "0123456789abcdef" });
    hooks.afterRead = once(
      (read) => read === path,
      () => {
        writeFileSync(`${path}.other`, `${JSON.stringify(liveOther)}\n`);
        renameSync(`${path}.other`, path);
      },
    );
    const error = await refusal(dist, 0);
    expect(error.holder).toEqual(liveOther);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(liveOther);
    expect(readdirSync(join(dist, ".."))).toEqual([".gamma-prompt-lock-dist"]);
  });

  it("does not put back a symlink found at the lock's path during a take-over: only a regular file is a lock", async () => {
    const dist = await outDir();
    const path = writeLock(dist, { pid: deadPid(), startedAt: "2026-01-01T00:00:00.000Z", token: "0123456789abcdef" });
    const elsewhere = join(dist, "..", "elsewhere");
    writeFileSync(elsewhere, `${JSON.stringify(liveOther)}\n`);
    hooks.afterRead = once(
      (read) => read === path,
      () => {
        unlinkSync(path);
        symlinkSync(elsewhere, path);
      },
    );
    const lock = await acquireOutputLock(dist, { waitMs: 0 });
    expect(lock.stillHeld()).toBe(true);
    expect(readFileSync(elsewhere, "utf8")).toBe(`${JSON.stringify(liveOther)}\n`);
    lock.release();
  });
});

describe("the output lock on unusual files", () => {
  it("never follows a symlink at the lock's path: it waits for it as for a lock it cannot read", async () => {
    const dist = await outDir();
    const target = join(dist, "..", "target");
    writeFileSync(target, `${JSON.stringify({ pid: deadPid(), startedAt: "2026-01-01T00:00:00.000Z", token: "0123456789abcdef" })}\n`);
    symlinkSync(target, lockPathFor(dist));
    const error = await refusal(dist, 0);
    expect(error.holder).toBeUndefined();
    expect(lstatSync(lockPathFor(dist)).isSymbolicLink()).toBe(true);
  });

  it("is no longer held once its file is replaced by a symlink, even to a copy of it, and release leaves that alone", async () => {
    const dist = await outDir();
    const lock = await acquireOutputLock(dist);
    const copy = join(dist, "..", "copy");
    writeFileSync(copy, readFileSync(lock.path));
    unlinkSync(lock.path);
    symlinkSync(copy, lock.path);
    expect(lock.stillHeld()).toBe(false);
    lock.release();
    expect(lstatSync(lock.path).isSymbolicLink()).toBe(true);
  });

  it("fails with the file system's error, leaving nothing behind, where hard links are refused", async () => {
    const dist = await outDir();
    hooks.linkSync = (_from, to) => {
      if (to === lockPathFor(dist)) throw Object.assign(new Error("EPERM: operation not permitted, link"), { code: "EPERM" });
    };
    const error: unknown = await acquireOutputLock(dist, { waitMs: 0 }).catch((caught: unknown) => caught);
    expect((error as NodeJS.ErrnoException).code).toBe("EPERM");
    expect(readdirSync(join(dist, ".."))).toEqual([]);
  });
});

describe("a lock that cannot be written", () => {
  /** A full disk: the temporary lock file is created, a few bytes go down, then ENOSPC. */
  function fillDisk(dist: string): void {
    hooks.writeFileSync = (path) => {
      if (!path.startsWith(`${lockPathFor(dist)}.`)) return;
      const descriptor = fs.openSync(path, "w");
      fs.writeSync(descriptor, "{");
      fs.closeSync(descriptor);
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    };
  }

  it("fails with the file system's error and leaves no temporary lock file, attempt after attempt", async () => {
    const dist = await outDir();
    mkdirSync(dist, { recursive: true });
    fillDisk(dist);
    for (let attempt = 0; attempt < 3; attempt++) {
      const error: unknown = await acquireOutputLock(dist, { waitMs: 0 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LockWriteError);
      expect((error as LockWriteError).code).toBe("ENOSPC");
    }
    expect(readdirSync(join(dist, ".."))).toEqual(["dist"]);
  });

  it("makes build say that the lock cannot be written, not that the existing output folder cannot be created", async () => {
    const root = await copyProject("basic");
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const siblings = readdirSync(root).sort();
    fillDisk(join(root, "dist"));
    const error: unknown = await build({ root, persistentCache: false }).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe('output folder "dist" cannot be written: its lock .gamma-prompt-lock-dist, in the folder that holds it, cannot be written: no space left on the device (ENOSPC)');
    expect(readdirSync(root).sort()).toEqual(siblings);
  });
});

describe("a pid that another process has taken since", () => {
  /** A live process that is not a build, and its start time as the system records it. */
  async function otherProcess(): Promise<{ pid: number; start: string | undefined; stop: () => void }> {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    await new Promise((resolve) => child.once("spawn", resolve));
    return { pid: child.pid as number, start: processStartTime(child.pid as number), stop: () => child.kill("SIGKILL") };
  }

  it.skipIf(process.platform !== "linux")("takes over a lock that names a live pid whose process started at another time, without waiting", async () => {
    const other = await otherProcess();
    try {
      expect(other.start).toMatch(/^.+:\d+$/);
      const dist = await outDir();
      writeLock(dist, { pid: other.pid, startedAt: "2026-01-01T00:00:00.000Z", token: "0123456789abcdef", processStart: `${other.start as string}1` });
      const waitedFor: LockHolder[] = [];
      const lock = await acquireOutputLock(dist, { waitMs: 0, onWait: (holder) => waitedFor.push(holder) });
      expect(waitedFor).toEqual([]);
      expect(lock.holder.processStart).toBe(processStartTime(process.pid));
      expect(JSON.parse(readFileSync(lock.path, "utf8"))).toEqual(lock.holder);
      lock.release();
    } finally {
      other.stop();
    }
  });

  it.skipIf(process.platform !== "linux")("waits for a lock whose pid and start time are those of a live process, and for one that records no start time", async () => {
    const other = await otherProcess();
    try {
      for (const recorded of [{ processStart: other.start as string }, {}]) {
        const dist = await outDir();
        writeLock(dist, { pid: other.pid, startedAt: "2026-01-01T00:00:00.000Z", token: "0123456789abcdef", ...recorded });
        const error = await refusal(dist, 0);
        expect(error.holder?.pid).toBe(other.pid);
      }
    } finally {
      other.stop();
    }
  });

  it.skipIf(process.platform !== "linux")("a journal left by a build whose pid now names another process is an interrupted build, not one in progress", async () => {
    const other = await otherProcess();
    try {
      const dist = await outDir();
      mkdirSync(dist, { recursive: true });
      const journal = { format: "gamma-prompt/dist-journal/v1", pid: other.pid, startedAt: "2026-01-01T00:00:00.000Z", staging: "x", manifestSha256: null, changes: [] };
      writeFileSync(join(dist, JOURNAL_FILE), JSON.stringify({ ...journal, processStart: `${other.start as string}1` }));
      const reused = journalState(dist);
      expect(reused).toEqual({ present: true, pid: other.pid, live: false });
      expect(journaledMessage(reused)).toBe("an interrupted build left dist/ half-replaced; run gamma-prompt build");
      writeFileSync(join(dist, JOURNAL_FILE), JSON.stringify({ ...journal, processStart: other.start }));
      expect(journalState(dist)).toEqual({ present: true, pid: other.pid, live: true });
    } finally {
      other.stop();
    }
  });

  it("a build records its own start time in its lock and journal where the system tells it", () => {
    const start = processStartTime(process.pid);
    if (process.platform === "linux") expect(start).toMatch(/^[0-9a-f-]+:\d+$/);
  });
});

describe("what a lock leaves when its process is killed mid-step", () => {
  /** The two leftovers of a process `pid`: the lock under its temporary name, and a stale lock moved aside. */
  function leftovers(dist: string, pid: number, ageMs = 0): string[] {
    const lock = lockPathFor(dist);
    const names = [`${lock}.${pid}.0123456789abcdef`, `${lock}.stale.${pid}.89abcdef`];
    const when = (Date.now() - ageMs) / 1000;
    for (const path of names) {
      writeFileSync(path, `${JSON.stringify({ pid, startedAt: "2026-01-01T00:00:00.000Z", token: "0123456789abcdef" })}\n`);
      utimesSync(path, when, when);
    }
    return names.map((path) => path.slice(join(dist, "..").length + 1)).sort();
  }

  it("is removed when that process is gone, kept while it lives and is young, removed once older than a stale staging folder", async () => {
    const dist = await outDir();
    mkdirSync(join(dist, ".."), { recursive: true });
    const dead = leftovers(dist, deadPid());
    const young = leftovers(dist, process.ppid);
    expect(removeStaleLockFiles(dist)).toEqual(dead);
    expect(readdirSync(join(dist, "..")).sort()).toEqual(young);
    expect(removeStaleLockFiles(dist, Date.now() + STALE_STAGING_MS + 1_000)).toEqual(young);
    expect(readdirSync(join(dist, ".."))).toEqual([]);
  });

  it("never removes this process's own files, another output folder's, or a folder of the same name", async () => {
    const dist = await outDir();
    mkdirSync(join(dist, ".."), { recursive: true });
    const own = leftovers(dist, process.pid);
    const other = leftovers(join(dist, "..", "out"), deadPid());
    mkdirSync(`${lockPathFor(dist)}.${deadPid()}.fedcba9876543210`);
    expect(removeStaleLockFiles(dist, Date.now() + STALE_STAGING_MS + 1_000)).toEqual([]);
    expect(readdirSync(join(dist, "..")).filter((name) => own.includes(name) || other.includes(name)).sort()).toEqual([...own, ...other].sort());
  });

  it("is cleared by the next build", async () => {
    const root = await copyProject("basic");
    const dist = join(root, "dist");
    leftovers(dist, deadPid());
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    expect(readdirSync(root).filter((name) => name.startsWith(".gamma-prompt-lock-"))).toEqual([]);
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

  it("says when the holder's pid is another container's or host's, and which wait outlasts it", () => {
    const holder = { pid: 1, startedAt: "2026-12-04T10:00:00.000Z", token: "t", pidNamespace: "elsewhere - pid:[1]" };
    expect(new OutputLockedError("/p/.gamma-prompt-lock-dist", holder, 2_000).message).toBe(
      "build pid 1 in another container or on another host (started 2026-12-04T10:00:00.000Z) holds /p/.gamma-prompt-lock-dist and was still running after 2 s; try again when it has finished (its pid means nothing here: a lock its build has not touched for 30 s is taken over, so a --wait longer than that outlasts a build that was killed)",
    );
  });
});

describe("a lock taken in another PID namespace or on another host (a container sharing the checkout)", () => {
  /** A lock as a build elsewhere writes it: its pid means nothing here, whatever process has it here. */
  const elsewhere = (pid: number) => ({ pid, startedAt: "2026-12-04T10:00:00.000Z", token: "0123456789abcdef", processStart: "boot:1", pidNamespace: "ci-runner 7d1c0a42-0000-4000-8000-000000000000 pid:[4026532999]" });

  it("is recorded with this process's namespace: host, boot and PID namespace", async () => {
    const lock = await acquireOutputLock(await outDir());
    expect(lock.holder.pidNamespace).toBe(pidNamespace());
    expect(JSON.parse(readFileSync(lock.path, "utf8")).pidNamespace).toBe(pidNamespace());
    if (process.platform === "linux") expect(pidNamespace()).toMatch(/ [0-9a-f-]+ pid:\[\d+\]$/);
    lock.release();
  });

  it("is waited for while its heartbeat is fresh though its pid names no process here, and named", async () => {
    const dist = await outDir();
    const holder = elsewhere(deadPid());
    writeLock(dist, holder, LOCK_STALE_MS - 5_000);
    const waitedFor: LockHolder[] = [];
    const error = await refusal(dist, 100, (seen) => waitedFor.push(seen));
    expect(error.holder).toEqual(holder);
    expect(waitedFor).toEqual([holder]);
    expect(JSON.parse(readFileSync(lockPathFor(dist), "utf8"))).toEqual(holder);
  });

  it("is taken over once its heartbeat is older than the stale age, though its pid names a live process here", async () => {
    const dist = await outDir();
    // Without a start time (a system that does not tell it), only the namespace keeps a live pid here from counting.
    const { processStart: _start, ...holder } = elsewhere(process.ppid);
    writeLock(dist, holder, LOCK_STALE_MS + 5_000);
    const lock = await acquireOutputLock(dist, { waitMs: 0 });
    expect(lock.stillHeld()).toBe(true);
    expect(readdirSync(join(dist, ".."))).toEqual([".gamma-prompt-lock-dist"]);
    lock.release();
  });

  it("tries again when the holder clears its temporary lock file as a leftover (it sees no such pid) before the link", async () => {
    const dist = await outDir();
    hooks.linkSync = once(
      (from) => from.startsWith(`${lockPathFor(dist)}.`),
      (from) => unlinkSync(from),
    );
    const lock = await acquireOutputLock(dist, { waitMs: 0 });
    expect(lock.stillHeld()).toBe(true);
    expect(readdirSync(join(dist, ".."))).toEqual([".gamma-prompt-lock-dist"]);
    lock.release();
  });

  it("leaves this namespace's locks to their pid: a dead one is taken over at once, however fresh its file", async () => {
    const dist = await outDir();
    writeLock(dist, { ...elsewhere(deadPid()), pidNamespace: pidNamespace() });
    const lock = await acquireOutputLock(dist, { waitMs: 0 });
    expect(lock.stillHeld()).toBe(true);
    lock.release();
  });

  it("beats every 2 seconds while held, and counts as gone after 30 seconds without a beat", async () => {
    expect(LOCK_HEARTBEAT_MS).toBe(2_000);
    expect(LOCK_STALE_MS).toBe(30_000);
    const dist = await outDir();
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout"] });
    const lock = await acquireOutputLock(dist);
    const hourAgo = (Date.now() - 3_600_000) / 1000;
    utimesSync(lock.path, hourAgo, hourAgo);
    await vi.advanceTimersByTimeAsync(LOCK_HEARTBEAT_MS);
    expect(Date.now() - lstatSync(lock.path).mtimeMs).toBeLessThan(LOCK_STALE_MS);
    // Taken over by another build: its lock is not touched by this one's beat.
    const other = { ...lock.holder, token: "fedcba9876543210" };
    writeLock(dist, other, 3_600_000);
    await vi.advanceTimersByTimeAsync(LOCK_HEARTBEAT_MS);
    expect(Date.now() - lstatSync(lock.path).mtimeMs).toBeGreaterThan(LOCK_STALE_MS);
    lock.release();
    expect(JSON.parse(readFileSync(lock.path, "utf8"))).toEqual(other);
  });

  it("makes a journal it wrote count as a live build while the lock's heartbeat is fresh, an interrupted one after", async () => {
    const dist = await outDir();
    mkdirSync(dist);
    const holder = elsewhere(deadPid());
    writeFileSync(join(dist, JOURNAL_FILE), `${JSON.stringify(holder)}\n`);
    writeLock(dist, holder, 1_000);
    expect(journalState(dist)).toEqual({ present: true, pid: holder.pid, live: true });
    writeLock(dist, holder, LOCK_STALE_MS + 1_000);
    expect(journalState(dist)).toEqual({ present: true, pid: holder.pid, live: false });
    unlinkSync(lockPathFor(dist));
    expect(journalState(dist)).toEqual({ present: true, pid: holder.pid, live: false });
  });
});

describe("a build that loses its lock to another build before it commits", () => {
  async function oldBuild(): Promise<string> {
    const dist = await outDir();
    mkdirSync(dist);
    writeFileSync(join(dist, "manifest.json"), "old manifest\n");
    writeFileSync(join(dist, "prefix.md"), "old prefix\n");
    return dist;
  }
  const newBuild = new Map([
    ["manifest.json", "new manifest\n"],
    ["prefix.md", "new prefix\n"],
  ]);

  it("stops before it changes dist/ when the lock is gone, and leaves dist/ and nothing else behind", async () => {
    const dist = await oldBuild();
    const lock = { path: lockPathFor(dist), stillHeld: () => false };
    const error = await emitArtifacts(dist, newBuild, undefined, lock).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LostLockError);
    expect((error as LostLockError).ruleId).toBe("dist/write-failed");
    expect((error as LostLockError).message).toBe(
      `Unexpected loss of the output folder's lock (${lock.path}) to another build, expected to hold it until the build is written; the output folder was left as it was`,
    );
    expect(readFileSync(join(dist, "prefix.md"), "utf8")).toBe("old prefix\n");
    expect(readFileSync(join(dist, "manifest.json"), "utf8")).toBe("old manifest\n");
    expect(readdirSync(join(dist, ".."))).toEqual(["dist"]);
  });

  it("stops at its check before the commit when the lock went while it replaced dist/: it neither commits nor undoes, the journal stays for the build that holds the lock", async () => {
    const dist = await oldBuild();
    // The lock is lost from the moment the journal is in place (another build judged this one gone).
    const lock = { path: lockPathFor(dist), stillHeld: () => !existsSync(join(dist, JOURNAL_FILE)) };
    const error = await emitArtifacts(dist, newBuild, undefined, lock).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LostLockError);
    expect((error as LostLockError).message).toMatch(/^Unexpected loss of the output folder's lock \(.*\) to another build while this build was replacing the output folder, expected to hold it until the build is written; this build stopped and left the output folder to the build that holds the lock, which puts it back to a complete build: run gamma-prompt build again when that build has finished$/);
    expect(existsSync(join(dist, JOURNAL_FILE))).toBe(true);
  });

  it("asks for the lock before it undoes anything after a failed write: a build that took the lock over changed the folder, and its files stay", async () => {
    const dist = await oldBuild();
    writeFileSync(join(dist, "orphan.md"), "gone in the new build\n");
    const withAdded = new Map([...newBuild, ["added.md", "new added\n"]]);
    // This build stalls after its last look at the lock; the build that takes it over meanwhile removes the
    // orphan and writes its own complete output, so this build's removal of the orphan fails.
    let looks = 0;
    const lock = {
      path: lockPathFor(dist),
      stillHeld: () => {
        looks += 1;
        if (looks > 1) return false;
        unlinkSync(join(dist, "orphan.md"));
        for (const [path, text] of withAdded) writeFileSync(join(dist, path), text);
        return true;
      },
    };
    const error = await emitArtifacts(dist, withAdded, undefined, lock).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LostLockError);
    for (const [path, text] of withAdded) expect(readFileSync(join(dist, path), "utf8")).toBe(text);
  });
});
