import { copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isProcessAlive, JOURNAL_FILE, lookupError, JOURNAL_FORMAT, type DistJournal, type JournalChange } from "../../protocol/dist-journal.js";
import { MANIFEST_FILE } from "../../protocol/dist-manifest.js";
import { readRegularFile } from "../../protocol/regular-file.js";
import { sha256Hex } from "../discover/read-source.js";
import { failpoint } from "./failpoint.js";

/**
 * Recovery of a dist/ transaction that a killed process left half done, and
 * removal of the staging folders dead builds leave behind. Both run at the
 * start of every build, under the output folder's lock, before anything
 * else reads dist/.
 */

/** How a build found its output folder. */
export type Recovery = "none" | "rolled-back" | "rolled-forward" | "unrecoverable";

/**
 * Staging folders live next to the output folder, or inside it when it is a
 * mount point: `.gamma-prompt-tmp-<name>-<pid>-<random>`.
 */
export function stagingPrefix(outDir: string): string {
  return `.gamma-prompt-tmp-${basename(outDir)}-`;
}

/** A staging folder older than this is removed even when its pid is alive again (pids are reused). */
export const STALE_STAGING_MS = 60 * 60 * 1000;

/**
 * Brings a journaled dist/ back to a complete build: forward when the new
 * manifest is already in place (every file before it is), else back to the
 * originals kept in the staging folder. "unrecoverable" leaves the journal:
 * readers keep refusing dist/ until a build writes every file again.
 */
export function recoverDist(outDir: string): Recovery {
  const read = readRegularFile(join(outDir, JOURNAL_FILE), { noFollow: true, maxBytes: 64 * 1024 * 1024 });
  if (read.kind === "missing") return "none";
  // An output folder this process may not look into holds no journal it knows of: the build's listing of it says what is wrong.
  if (read.kind === "error" && lookupError(join(outDir, JOURNAL_FILE)) !== undefined) return "none";
  const journal = read.kind === "file" ? parseJournal(read.bytes.toString("utf8"), outDir) : undefined;
  if (!journal) return "unrecoverable";
  const staging = join(journal.stagingInOutput === true ? outDir : dirname(outDir), journal.staging);
  const manifest = readRegularFile(join(outDir, MANIFEST_FILE), { noFollow: true });
  const manifestInPlace = journal.manifestSha256 !== null && manifest.kind === "file" && sha256Hex(manifest.bytes) === journal.manifestSha256;
  const onlyRemovals = journal.changes.every((change) => change.action === "remove");
  let outcome: Recovery;
  if (manifestInPlace || onlyRemovals) {
    // Forward: what is left to do is removing files that no longer belong.
    for (const change of journal.changes) if (change.action === "remove") rmSync(join(outDir, change.path), { force: true });
    removeEmptyFolders(outDir, journal.changes.filter((change) => change.action === "remove").map((change) => change.path));
    outcome = "rolled-forward";
  } else {
    outcome = rollBack(outDir, staging, journal.changes) ? "rolled-back" : "unrecoverable";
  }
  if (outcome === "unrecoverable") return outcome;
  // Gone already when a build that was judged dead (another container's, stalled past the lock's stale age) wakes and clears it.
  rmSync(join(outDir, JOURNAL_FILE), { force: true });
  attempt(() => rmSync(staging, { recursive: true, force: true }));
  return outcome;
}

/**
 * Puts every original back from `old/` and removes files the transaction
 * added. Idempotent, so a rollback killed halfway is simply run again: a
 * backup already renamed back is no longer in `old/`. True when every
 * original is in place again.
 */
export function rollBack(outDir: string, staging: string, changes: readonly JournalChange[]): boolean {
  let complete = true;
  for (const change of [...changes].reverse()) {
    const target = join(outDir, change.path);
    if (change.action === "add") {
      // The transaction adds files only: a folder there was never its own.
      if (lstatSync(target, { throwIfNoEntry: false })?.isDirectory() === false) rmSync(target, { force: true });
    } else {
      const backup = join(staging, "old", change.path);
      if (!(lstatSync(backup, { throwIfNoEntry: false }) && restore(backup, target)) && !lstatSync(target, { throwIfNoEntry: false })) complete = false;
    }
    failpoint("rollback");
  }
  removeEmptyFolders(outDir, changes.filter((change) => change.action === "add").map((change) => change.path));
  return complete;
}

/**
 * Renames a backup into place; false when it vanished first (put back by a
 * build that stopped with it). Into a folder on another file system (a mount
 * point inside the output folder) the backup is copied, then removed.
 */
function restore(backup: string, target: string): boolean {
  // A change the transaction never applied (it stopped there, or at the one that failed) left the original in
  // place: the backup is a link to it, or a copy of its bytes where no link could be made. Nothing to put
  // back, and no rename onto a file that cannot be renamed over (a file bind-mounted into dist/, an
  // immutable one), which would fail the rollback as it failed the write.
  if (originalInPlace(backup, target)) {
    rmSync(backup, { force: true });
    return true;
  }
  mkdirSync(dirname(target), { recursive: true });
  try {
    renameSync(backup, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && !lstatSync(backup, { throwIfNoEntry: false })) return false;
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
  }
  copyFileSync(backup, target);
  rmSync(backup, { force: true });
  return true;
}

function originalInPlace(backup: string, target: string): boolean {
  const kept = lstatSync(backup, { throwIfNoEntry: false });
  const there = lstatSync(target, { throwIfNoEntry: false });
  if (kept === undefined || there === undefined || !kept.isFile() || !there.isFile()) return false;
  if (kept.dev === there.dev && kept.ino === there.ino) return true;
  if (kept.size !== there.size) return false;
  try {
    return readFileSync(backup).equals(readFileSync(target));
  } catch {
    return false;
  }
}

/**
 * Removes staging folders of this output folder whose process is dead or
 * which are older than {@link STALE_STAGING_MS}; never one of this process.
 * Returns the names removed.
 */
export function removeStaleStaging(outDir: string, now = Date.now()): string[] {
  const prefix = stagingPrefix(outDir);
  const removed: string[] = [];
  // Next to the output folder, and inside it (a mounted output folder's, named `<name>/<staging>`).
  for (const [folder, shown] of [[dirname(outDir), ""], [outDir, `${basename(outDir)}/`]] as const) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.startsWith(prefix)) continue;
      const match = /^(\d+)-[0-9a-f]+$/.exec(name.slice(prefix.length));
      if (!match) continue;
      const pid = Number(match[1]);
      if (pid === process.pid) continue;
      const stats = lstatSync(join(folder, name), { throwIfNoEntry: false });
      if (!stats?.isDirectory()) continue;
      if (isProcessAlive(pid) && now - stats.mtimeMs < STALE_STAGING_MS) continue;
      attempt(() => rmSync(join(folder, name), { recursive: true, force: true }));
      removed.push(`${shown}${name}`);
    }
  }
  return removed.sort();
}

/** A journal this build can act on: its own format, paths inside dist/, a staging folder of this output folder. */
function parseJournal(text: string, outDir: string): DistJournal | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const journal = parsed as Partial<DistJournal>;
  if (journal.format !== JOURNAL_FORMAT || typeof journal.staging !== "string" || !Array.isArray(journal.changes)) return undefined;
  if (!journal.staging.startsWith(stagingPrefix(outDir)) || /[\\/]/.test(journal.staging)) return undefined;
  if (journal.manifestSha256 !== null && typeof journal.manifestSha256 !== "string") return undefined;
  if (journal.stagingInOutput !== undefined && journal.stagingInOutput !== true) return undefined;
  const valid = journal.changes.every(
    (change: unknown) =>
      typeof change === "object" &&
      change !== null &&
      isSafeRelativePath((change as JournalChange).path) &&
      ["replace", "add", "remove"].includes((change as JournalChange).action),
  );
  return valid ? (journal as DistJournal) : undefined;
}

function isSafeRelativePath(path: unknown): boolean {
  return typeof path === "string" && path.length > 0 && !path.includes("\\") && path.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}

/** Runs one clean-up step; a step that fails leaves the rest to run. */
export function attempt(step: () => void): void {
  try {
    step();
  } catch {
    // Best effort: the original error is what gets reported.
  }
}

/** Removes folders the removed files leave empty, deepest first; never dist/ itself. */
export function removeEmptyFolders(outDir: string, removedFiles: readonly string[]): void {
  const folders = new Set<string>();
  for (const path of removedFiles) {
    for (let folder = dirname(path); folder !== "." && folder !== ""; folder = dirname(folder)) folders.add(folder);
  }
  const deepestFirst = [...folders].sort((a, b) => b.split("/").length - a.split("/").length || (a < b ? 1 : -1));
  for (const folder of deepestFirst) attempt(() => rmdirSync(join(outDir, folder)));
}
