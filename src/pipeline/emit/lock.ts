import { randomBytes } from "node:crypto";
import { linkSync, lstatSync, mkdirSync, renameSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { isHolderAlive, LOCK_HEARTBEAT_MS, LOCK_STALE_MS, lockFileFor, pidNamespace, processStartTime } from "../../protocol/dist-journal.js";
import { readRegularFile } from "../../protocol/regular-file.js";
import { STALE_STAGING_MS } from "./recovery.js";
import { removeLeftoverFiles } from "../../protocol/leftover-files.js";

/**
 * One build at a time per output folder. The lock is a file next to the
 * output folder, `.gamma-prompt-lock-<name>`, holding the owner's pid, start
 * time, PID namespace and a random token. It is created whole (written to a
 * temporary name, then hard-linked into place, which fails when a lock
 * exists), so no reader ever sees an empty lock. A lock whose process is gone
 * is taken over: at once when it was taken in this PID namespace and its pid
 * is dead; when it was taken in another (a container, another host sharing
 * the folder), once its heartbeat (the file's modification time, touched every
 * LOCK_HEARTBEAT_MS while held) is older than LOCK_STALE_MS.
 */

export interface LockHolder {
  pid: number;
  /** ISO 8601. */
  startedAt: string;
  token: string;
  /** When the holding process started, where the system tells: a lock whose pid now names another process is stale. */
  processStart?: string;
  /** Where the pid is valid ({@link pidNamespace}): from anywhere else, only the heartbeat tells the holder lives. */
  pidNamespace?: string;
}

export interface OutputLock {
  readonly path: string;
  readonly holder: LockHolder;
  /** True while the lock file is still this build's (nobody broke it); then also touches it (the heartbeat). */
  stillHeld(): boolean;
  release(): void;
}

export interface LockOptions {
  /** How long to wait for another build before giving up. Default 10,000 ms. */
  waitMs?: number;
  /** Called once when the build starts waiting, with the holder it waits for. */
  onWait?: (holder: LockHolder) => void;
  /** Gives up waiting once aborted, throwing the signal's reason; a lock already taken is returned. */
  signal?: AbortSignal;
}

export const DEFAULT_LOCK_WAIT_MS = 10_000;
const POLL_MS = 50;
/** A lock file that cannot be parsed and is older than this is a leftover of a process killed mid-write. */
const UNREADABLE_LOCK_GRACE_MS = 5_000;

/** Thrown when another live build keeps the output folder past the wait; the CLI exits 2 naming the holder. */
export class OutputLockedError extends Error {
  override readonly name = "OutputLockedError";
  constructor(
    readonly lockPath: string,
    readonly holder: LockHolder | undefined,
    waitedMs: number,
  ) {
    const elsewhere = holder !== undefined && !holderIsHere(holder);
    super(
      `${holder ? `build ${describeLockHolder(holder)}` : "another build"} holds ${lockPath}` +
        ` and was still running after ${Math.round(waitedMs / 100) / 10} s; try again when it has finished` +
        (elsewhere
          ? ` (its pid means nothing here: a lock its build has not touched for ${LOCK_STALE_MS / 1000} s is taken over, so a --wait longer than that outlasts a build that was killed)`
          : ` (remove the lock file only if that process is not a gamma-prompt build)`),
    );
  }
}

/** Whether the holder's pid names a process this one can see (the same PID namespace on the same host). */
function holderIsHere(holder: LockHolder): boolean {
  return holder.pidNamespace === undefined || holder.pidNamespace === pidNamespace();
}

/** The holder as a user can look for it: `pid 42 (started …)`, saying when the pid is another container's or host's. */
export function describeLockHolder(holder: LockHolder): string {
  return `pid ${holder.pid}${holderIsHere(holder) ? "" : " in another container or on another host"} (started ${holder.startedAt})`;
}

export function lockPathFor(outDir: string): string {
  return lockFileFor(outDir);
}

export async function acquireOutputLock(outDir: string, options: LockOptions = {}): Promise<OutputLock> {
  const path = lockPathFor(outDir);
  const waitMs = options.waitMs ?? DEFAULT_LOCK_WAIT_MS;
  const processStart = processStartTime(process.pid);
  const holder: LockHolder = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    token: randomBytes(8).toString("hex"),
    ...(processStart === undefined ? {} : { processStart }),
    pidNamespace: pidNamespace(),
  };
  const started = Date.now();
  let announced = false;
  mkdirSync(dirname(path), { recursive: true });
  for (;;) {
    if (tryCreate(path, holder)) return heldLock(path, holder);
    const current = readHolder(path);
    if (current.state === "stale") {
      takeOver(path, current.text);
      continue;
    }
    if (current.state === "gone") continue;
    options.signal?.throwIfAborted();
    const waited = Date.now() - started;
    if (waited >= waitMs) throw new OutputLockedError(path, current.holder, waited);
    if (!announced && current.holder) {
      announced = true;
      options.onWait?.(current.holder);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, waitMs - waited)));
    options.signal?.throwIfAborted();
  }
}

/**
 * Removes the files a lock leaves beside itself when its process is killed
 * between two steps: the whole lock written under its temporary name
 * (`<lock>.<pid>.<token>`) before the link, and a stale lock moved aside
 * (`<lock>.stale.<pid>.<hex>`) before its removal. Judged as staging folders
 * are: removed when the process that made it is gone or the file is older
 * than {@link STALE_STAGING_MS}; never one of this process. Returns the names removed.
 */
export function removeStaleLockFiles(outDir: string, now = Date.now()): string[] {
  const lock = basename(lockPathFor(outDir));
  return removeLeftoverFiles(
    dirname(outDir),
    (name) => {
      if (!name.startsWith(`${lock}.`)) return undefined;
      const match = /^(?:stale\.)?(\d+)\.[0-9a-f]+$/.exec(name.slice(lock.length + 1));
      return match ? Number(match[1]) : undefined;
    },
    STALE_STAGING_MS,
    now,
  );
}

/**
 * The lock file itself could not be written (a full disk, a read-only folder):
 * `code` is the file system's error. Nothing of the attempt is left behind.
 */
export class LockWriteError extends Error {
  override readonly name = "LockWriteError";
  constructor(
    readonly lockPath: string,
    readonly code: string | undefined,
    options: { cause: unknown },
  ) {
    super(`cannot write the lock ${lockPath}${code === undefined ? "" : ` (${code})`}`, options);
  }
}

function tryCreate(path: string, holder: LockHolder): boolean {
  const temp = `${path}.${holder.pid}.${holder.token}`;
  let written = false;
  try {
    // In the try: a write that fails half-way (a full disk) leaves no temporary lock behind.
    writeFileSync(temp, `${JSON.stringify(holder)}\n`);
    written = true;
    linkSync(temp, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    // The holder cleared the temporary lock as a leftover (it cannot see this process: another container): try again.
    if (written && code === "ENOENT" && !lstatSync(temp, { throwIfNoEntry: false }) && lstatSync(dirname(path), { throwIfNoEntry: false })) return false;
    throw new LockWriteError(path, code, { cause: error });
  } finally {
    rmSync(temp, { force: true });
  }
}

type HolderState = { state: "gone" } | { state: "live"; holder?: LockHolder } | { state: "stale"; text: string };

function readHolder(path: string): HolderState {
  const read = readRegularFile(path, { noFollow: true, maxBytes: 4096 });
  if (read.kind === "missing") return { state: "gone" };
  if (read.kind !== "file") return { state: "live" };
  const text = read.bytes.toString("utf8");
  const holder = parseHolder(text);
  if (!holder) {
    const age = Date.now() - (lstatSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    return age > UNREADABLE_LOCK_GRACE_MS ? { state: "stale", text } : { state: "live" };
  }
  return isHolderAlive(holder, path) ? { state: "live", holder } : { state: "stale", text };
}

/**
 * Moves a stale lock aside and removes it, but only if what was moved is the
 * stale lock judged a moment ago: when another build took it over first, its
 * fresh lock is put back.
 */
function takeOver(path: string, staleText: string): void {
  const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else moved it first
  }
  const moved = readRegularFile(aside, { noFollow: true, maxBytes: 4096 });
  if (moved.kind === "file" && moved.bytes.toString("utf8") !== staleText) {
    try {
      linkSync(aside, path);
    } catch {
      // A third build holds the lock now; the one whose lock was moved notices before it commits.
    }
  }
  rmSync(aside, { force: true });
}

function heldLock(path: string, holder: LockHolder): OutputLock {
  const mine = (): boolean => {
    const read = readRegularFile(path, { noFollow: true, maxBytes: 4096 });
    return read.kind === "file" && parseHolder(read.bytes.toString("utf8"))?.token === holder.token;
  };
  const heartbeat = (): boolean => {
    if (!mine()) return false;
    try {
      const now = new Date();
      utimesSync(path, now, now);
    } catch {
      // A missed beat: the next one, or the check before the commit, tells.
    }
    return true;
  };
  const timer = setInterval(heartbeat, LOCK_HEARTBEAT_MS);
  timer.unref();
  return {
    path,
    holder,
    stillHeld: heartbeat,
    release: () => {
      clearInterval(timer);
      if (mine()) unlinkSync(path);
    },
  };
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const { pid, startedAt, token, processStart, pidNamespace } = parsed as Record<string, unknown>;
    if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 0 || typeof startedAt !== "string" || typeof token !== "string") return undefined;
    return { pid, startedAt, token, ...(typeof processStart === "string" ? { processStart } : {}), ...(typeof pidNamespace === "string" ? { pidNamespace } : {}) };
  } catch {
    return undefined;
  }
}
