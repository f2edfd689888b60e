/**
 * The journal of a dist/ transaction: present in dist/ from the moment a
 * build starts replacing files until every file is in place. Readers (the
 * runtime's loadArtifacts and `check`) refuse a dist/ that holds one; the
 * next build rolls it back or forward before anything else. Shared by the
 * compiler (which writes it) and the runtime (which only looks for it), so
 * this module imports nothing but node:fs, node:os and node:path.
 */
import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { readRegularFile } from "./regular-file.js";

/** Inside the output folder; a dotfile, so listings of artifacts never mistake it for one. */
export const JOURNAL_FILE = ".gamma-prompt-journal";
export const JOURNAL_FORMAT = "gamma-prompt/dist-journal/v1";

/** One file the transaction touches: replaced, added or removed. */
export interface JournalChange {
  path: string;
  action: "replace" | "add" | "remove";
}

export interface DistJournal {
  format: typeof JOURNAL_FORMAT;
  /** The writing process and when its build started (ISO 8601), to tell a live build from a dead one. */
  pid: number;
  startedAt: string;
  /** When the writing process started, where the system tells ({@link processStartTime}): a pid reused since is not taken for the build. */
  processStart?: string;
  /** Where `pid` names the writer ({@link pidNamespace}): seen from another container or host, the pid says nothing. */
  pidNamespace?: string;
  /**
   * Name of the staging folder next to the output folder (inside it with
   * `stagingInOutput`): `new/` holds the
   * new bytes not yet renamed into place, `old/` a hard link (or copy) of
   * every original the transaction replaces or removes.
   */
  staging: string;
  /**
   * True when the staging folder is inside the output folder rather than next
   * to it: the output folder is a mount point (a volume, a bind mount, a tmpfs)
   * and no file can be renamed into it from its parent folder.
   */
  stagingInOutput?: true;
  /** sha256 of the new manifest.json when the transaction writes one: once it is in place, every other file is. */
  manifestSha256: string | null;
  /** Every file the transaction touches, in the order it applies them: removals, then writes, manifest.json last. */
  changes: JournalChange[];
}

/**
 * What a reader finds: no journal, or one left by a build that is still
 * running or has died. `unreadable` (the file system's error, EACCES): the
 * output folder, or a folder on its path, does not let this process look
 * in, so whether a journal is there cannot be told; no build is known to
 * have been interrupted.
 */
export type JournalState = { present: false; unreadable?: string } | { present: true; pid?: number; live: boolean };

export function journalState(distDir: string): JournalState {
  const path = join(distDir, JOURNAL_FILE);
  const read = readRegularFile(path, { noFollow: true, maxBytes: 64 * 1024 * 1024 });
  if (read.kind === "missing") return { present: false };
  if (read.kind === "error") {
    const lookup = lookupError(path);
    if (lookup === "ENOENT" || lookup === "ENOTDIR") return { present: false };
    if (lookup !== undefined) return { present: false, unreadable: lookup };
  }
  // Anything else at that name (a folder, a FIFO, a file that cannot be read) still marks dist/ as journaled.
  if (read.kind !== "file") return { present: true, live: false };
  const writer = journalWriter(read.bytes.toString("utf8"));
  return writer === undefined ? { present: true, live: false } : { present: true, pid: writer.pid, live: isHolderAlive(writer, lockFileFor(distDir)) };
}

/**
 * Why the name `path` cannot be looked up (ENOENT: nothing there; EACCES: a
 * folder on its path that this process may not search), or undefined when
 * something is there, whether or not it can be read.
 */
export function lookupError(path: string): string | undefined {
  try {
    lstatSync(path);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? "unknown error";
  }
}

/** The output folder's lock: `.gamma-prompt-lock-<name>` beside it. */
export function lockFileFor(outDir: string): string {
  return join(dirname(outDir), `.gamma-prompt-lock-${basename(outDir)}`);
}

/** The one message every reader gives for a journaled dist/. */
export function journaledMessage(state: JournalState): string {
  if (state.present && state.live) {
    return `a build (pid ${state.pid}) is replacing dist/ right now; load it again when that build has finished`;
  }
  return "an interrupted build left dist/ half-replaced; run gamma-prompt build";
}

function journalWriter(text: string): ProcessIdentity | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const { pid, processStart, pidNamespace } = parsed as Record<string, unknown>;
    if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
    return { pid, ...(typeof processStart === "string" ? { processStart } : {}), ...(typeof pidNamespace === "string" ? { pidNamespace } : {}) };
  } catch {
    return undefined;
  }
}

/** A build as a lock or a journal names it. */
export interface ProcessIdentity {
  pid: number;
  processStart?: string;
  pidNamespace?: string;
}

/**
 * How often a build that holds an output folder's lock touches the lock file
 * (its modification time): the heartbeat by which builds in other PID
 * namespaces (containers) or on other hosts sharing the folder tell it lives.
 */
export const LOCK_HEARTBEAT_MS = 2_000;
/**
 * A lock taken in another PID namespace or on another host whose file was not
 * touched for longer than this belongs to a build that is gone (or stalled so
 * long that it checks the lock and stops before it writes anything more).
 */
export const LOCK_STALE_MS = 30_000;

/**
 * Whether the build a lock or a journal names still runs. Taken in this PID
 * namespace on this host (or recorded without one, by an older version), its
 * pid decides at once, as {@link isProcessAlive}. Taken elsewhere, the pid
 * names another process or none here: the lock file's heartbeat decides, alive
 * while it was touched within {@link LOCK_STALE_MS}.
 */
export function isHolderAlive(holder: ProcessIdentity, lockPath: string, now = Date.now()): boolean {
  if (holder.pidNamespace === undefined || holder.pidNamespace === pidNamespace()) return isProcessAlive(holder.pid, holder.processStart);
  const touched = lstatSync(lockPath, { throwIfNoEntry: false })?.mtimeMs;
  return touched !== undefined && now - touched <= LOCK_STALE_MS;
}

let cachedNamespace: string | undefined;
/**
 * Where this process's pid means this process: the host, the boot (pids start
 * over) and, on Linux, the PID namespace (a container has its own). Two
 * builds with the same value see each other's pids.
 */
export function pidNamespace(): string {
  if (cachedNamespace === undefined) {
    let namespace = "-";
    try {
      // "pid:[4026531836]": the namespace's inode, the same for every process in it.
      namespace = readlinkSync("/proc/self/ns/pid");
    } catch {
      // No /proc (macOS, Windows): one namespace per host.
    }
    cachedNamespace = `${hostname()} ${bootId() ?? "-"} ${namespace}`;
  }
  return cachedNamespace;
}

/**
 * True while a process with this id exists on this machine (EPERM: it exists, owned by someone else).
 * With `processStart` (what {@link processStartTime} gave for the process that wrote a lock or a journal),
 * a process that has the pid now but started at another time is another process that reuses the id: not alive.
 * Where start times cannot be read (no /proc), the pid alone decides.
 */
export function isProcessAlive(pid: number, processStart?: string): boolean {
  if (pid !== process.pid) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
    }
  }
  if (processStart === undefined) return true;
  const now = processStartTime(pid);
  return now === undefined || now === processStart;
}

/**
 * When a process started, as the kernel records it: on Linux the boot's id and
 * field 22 of /proc/<pid>/stat (clock ticks since boot), which together never
 * name two processes. Undefined where the system does not expose it.
 */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = fields[19];
    if (ticks === undefined || !/^\d+$/.test(ticks)) return undefined;
    return `${bootId() ?? "boot"}:${ticks}`;
  } catch {
    return undefined;
  }
}

let cachedBootId: string | undefined;
function bootId(): string | undefined {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      return undefined;
    }
  }
  return cachedBootId;
}
