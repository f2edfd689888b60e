/**
 * The journal of a dist/ transaction: present in dist/ from the moment a
 * build starts replacing files until every file is in place. Readers (the
 * runtime's loadArtifacts and `check`) refuse a dist/ that holds one; the
 * next build rolls it back or forward before anything else. Shared by the
 * compiler (which writes it) and the runtime (which only looks for it), so
 * this module imports nothing but node:fs.
 */
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
  const pid = journalPid(read.bytes.toString("utf8"));
  return pid === undefined ? { present: true, live: false } : { present: true, pid, live: isProcessAlive(pid) };
}

/** The one message every reader gives for a journaled dist/. */
export function journaledMessage(state: JournalState): string {
  if (state.present && state.live) {
    return `a build (pid ${state.pid}) is replacing dist/ right now; load it again when that build has finished`;
  }
  return "an interrupted build left dist/ half-replaced; run gamma-prompt build";
}

function journalPid(text: string): number | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const pid = (parsed as Record<string, unknown>)["pid"];
    return typeof pid === "number" && Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** True while a process with this id exists on this machine (EPERM: it exists, owned by someone else). */
export function isProcessAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
