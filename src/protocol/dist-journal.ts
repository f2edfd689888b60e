/**
 * The journal of a dist/ transaction: present in dist/ from the moment a
 * build starts replacing files until every file is in place. Readers (the
 * runtime's loadArtifacts and `check`) refuse a dist/ that holds one; the
 * next build rolls it back or forward before anything else. Shared by the
 * compiler (which writes it) and the runtime (which only looks for it), so
 * this module imports nothing but node:fs and node:path.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
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
  /**
   * Name of the staging folder next to the output folder: `new/` holds the
   * new bytes not yet renamed into place, `old/` a hard link (or copy) of
   * every original the transaction replaces or removes.
   */
  staging: string;
  /** sha256 of the new manifest.json when the transaction writes one: once it is in place, every other file is. */
  manifestSha256: string | null;
  /** Every file the transaction touches, in the order it applies them: removals, then writes, manifest.json last. */
  changes: JournalChange[];
}

/** What a reader finds: no journal, or one left by a build that is still running or has died. */
export type JournalState = { present: false } | { present: true; pid?: number; live: boolean };

export function journalState(distDir: string): JournalState {
  const read = readRegularFile(join(distDir, JOURNAL_FILE), { noFollow: true, maxBytes: 64 * 1024 * 1024 });
  if (read.kind === "missing") return { present: false };
  // Anything else at that name (a folder, a FIFO, an unreadable file) still marks dist/ as journaled.
  if (read.kind !== "file") return { present: true, live: false };
  const writer = journalWriter(read.bytes.toString("utf8"));
  return writer === undefined ? { present: true, live: false } : { present: true, pid: writer.pid, live: isProcessAlive(writer.pid, writer.processStart) };
}

/** The one message every reader gives for a journaled dist/. */
export function journaledMessage(state: JournalState): string {
  if (state.present && state.live) {
    return `a build (pid ${state.pid}) is replacing dist/ right now; load it again when that build has finished`;
  }
  return "an interrupted build left dist/ half-replaced; run gamma-prompt build";
}

function journalWriter(text: string): { pid: number; processStart?: string } | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const { pid, processStart } = parsed as Record<string, unknown>;
    if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
    return typeof processStart === "string" ? { pid, processStart } : { pid };
  } catch {
    return undefined;
  }
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
