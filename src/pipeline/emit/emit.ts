import { randomBytes } from "node:crypto";
import { copyFileSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync, type Dirent } from "node:fs";
import { rm, rmdir, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { JOURNAL_FILE, JOURNAL_FORMAT, pidNamespace, processStartTime, type DistJournal } from "../../protocol/dist-journal.js";
import { MANIFEST_FILE, type DistManifest } from "../../protocol/dist-manifest.js";
import { readRegularFile } from "../../protocol/regular-file.js";
import { defineSlot } from "../session/build-session.js";
import { sameStamp, stampOf, type FileStamp } from "../discover/file-stamp.js";
import { errorCode, isNotFound } from "../discover/sources.js";
import { sha256Hex } from "../discover/read-source.js";
import { describeFsError } from "../../protocol/path-problem.js";
import { failpoint } from "./failpoint.js";
import type { ArtifactContent } from "./artifacts.js";
import { attempt, removeEmptyFolders, rollBack, stagingPrefix } from "./recovery.js";

/**
 * Writes dist/ as one transaction with a journal (the README's "dist/ as one
 * transaction" tells the whole design):
 *
 * 1. stage: every new file is written into a staging folder next to dist/
 *    (same filesystem, so renames are atomic; inside dist/ when dist/ is on
 *    another mount, see placeStaging) and every original it replaces
 *    or removes is hard-linked (or copied) into the staging folder's `old/`;
 *    dist/ is untouched.
 * 2. journal: `dist/.gamma-prompt-journal` is renamed into place, naming the
 *    staging folder and every change. From here on readers refuse dist/.
 * 3. apply: stale files are removed, new files renamed over the originals,
 *    manifest.json last.
 * 4. commit: the journal is removed; dist/ is the complete new build.
 *
 * A failure rolls back from `old/`; a process killed at any instant leaves
 * either the complete old dist/ (before step 2), the complete new one (after
 * step 4) or a journal, which the next build rolls back or forward before
 * anything else (see recovery.ts). Unchanged files are not touched.
 *
 * File access is synchronous on purpose: emit has nothing to overlap with,
 * and a round trip through the thread pool per call cost several times the
 * calls themselves on a busy machine (watch mode runs emit on every save).
 */

export interface EmitResult {
  written: string[];
  removed: string[];
  unchanged: string[];
}

/** A file as emit last wrote or verified it: its fingerprint and the stamp it had then. */
export interface EmittedFile extends FileStamp {
  fingerprint: string;
}

/**
 * Lets emit skip reading dist/ back (watch mode): a file whose size, mtime
 * and inode still match what emit recorded holds the bytes recorded with it.
 */
export interface EmitMemory {
  /**
   * A string that differs whenever an artifact's bytes differ: its sha256,
   * or for manifest.json (which no hash covers) its text.
   */
  fingerprint(path: string): string | undefined;
  /** Updated in place; cleared when an emit fails. */
  files: Map<string, EmittedFile>;
  /**
   * Trust a file this memory recorded, without even a stat, while its
   * fingerprint is unchanged (watch rebuilds: the watcher ignores dist/, so
   * only a hand edit could change such a file, and stat-checking a thousand
   * skill bodies on every save costs more than the rest of emit). A hand edit
   * is then repaired when the artifact next changes, by any build without
   * this option, and reported by `check`. A file missing from the listing is
   * always written again.
   */
  trustUnchanged?: boolean;
  /**
   * Takes the removal of the staging folder after a successful emit, which
   * then runs off the main thread instead of before emit returns (watch: the
   * originals the build replaced are freed while the author reads the result;
   * the session waits for it before its next build and when it closes).
   */
  deferCleanup?: (cleanup: Promise<void>) => void;
}

/** What a build session remembers of its output folder between builds. */
export interface DistMemory {
  /** Every file the last emit wrote or verified, with its stamp then. */
  files: Map<string, EmittedFile>;
  /** The manifest the last build wrote, with its stamp. */
  manifest?: { file: EmittedFile; manifest: DistManifest };
}

export const DIST_MEMORY = defineSlot<DistMemory>("dist memory");

export class EmitError extends Error {
  override readonly name = "EmitError";
  constructor(
    message: string,
    readonly path: string,
    readonly ruleId: "dist/write-failed" | "dist/not-a-file" | "dist/unreadable" = "dist/write-failed",
    /** The file system's error code, when one caused it. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * The output folder's lock as emit checks it: right before it starts changing
 * the output folder, while it applies (before a change once {@link LOCK_CHECK_MS} have passed since the last look)
 * and right before it commits. A lock lost to another build (one that judged
 * this build gone: stalled past the heartbeat's stale age, or in another PID
 * namespace) stops emit with {@link LostLockError}, and the output folder is
 * left to the build that holds the lock now.
 */
export interface EmitLock {
  readonly path: string;
  stillHeld(): boolean;
}

/** While applying, the lock is looked at again once this long has passed since the last look. */
const LOCK_CHECK_MS = 50;

/** Emit stopped because another build holds the output folder's lock now; nothing more was written. */
export class LostLockError extends EmitError {
  constructor(lockPath: string, journaled: boolean) {
    super(
      journaled
        ? `Unexpected loss of the output folder's lock (${lockPath}) to another build while this build was replacing the output folder, expected to hold it until the build is written; this build stopped and left the output folder to the build that holds the lock, which puts it back to a complete build: run gamma-prompt build again when that build has finished`
        : `Unexpected loss of the output folder's lock (${lockPath}) to another build, expected to hold it until the build is written; the output folder was left as it was`,
      "",
    );
  }
}

export async function emitArtifacts(outDir: string, artifacts: ReadonlyMap<string, ArtifactContent>, memory?: EmitMemory, lock?: EmitLock): Promise<EmitResult> {
  const existing = listTree(outDir);
  const seen = new Map<string, EmittedFile>();
  const { changed, unchanged } = sortChanges(outDir, artifacts, existing, memory, seen);
  const orphans = [...existing].filter((path) => !artifacts.has(path)).sort();
  if (changed.length === 0 && orphans.length === 0) {
    // dist/ already holds exactly the new build: a journal left by an unrecoverable interruption is obsolete.
    rmSync(join(outDir, JOURNAL_FILE), { force: true });
    remember(memory, seen);
    return { written: [], removed: [], unchanged };
  }

  const stagingName = `${stagingPrefix(outDir)}${process.pid}-${randomBytes(4).toString("hex")}`;
  if (existing.size === 0 && !lstatSync(outDir, { throwIfNoEntry: false })) {
    emitIntoNewFolder(outDir, join(dirname(outDir), stagingName), artifacts, changed, memory, seen, lock);
    return { written: changed, removed: [], unchanged };
  }
  const stagingInOutput = placeStaging(outDir);
  const staging = join(stagingInOutput ? outDir : dirname(outDir), stagingName);
  // The manifest is the commit point of the files: it names only files already in place.
  const writes = [...changed.filter((path) => path !== MANIFEST_FILE), ...changed.filter((path) => path === MANIFEST_FILE)];
  const journal: DistJournal = {
    format: JOURNAL_FORMAT,
    pid: process.pid,
    startedAt: new Date().toISOString(),
    ...startOfThisProcess(),
    pidNamespace: pidNamespace(),
    staging: stagingName,
    ...(stagingInOutput ? { stagingInOutput: true as const } : {}),
    manifestSha256: artifacts.has(MANIFEST_FILE) && changed.includes(MANIFEST_FILE) ? sha256Hex(artifacts.get(MANIFEST_FILE) as ArtifactContent) : null,
    changes: [
      ...orphans.map((path) => ({ path, action: "remove" as const })),
      ...writes.map((path) => ({ path, action: existing.has(path) ? ("replace" as const) : ("add" as const) })),
    ],
  };
  const made = new Set<string>();
  let current = "";
  let journaled = false;
  let lost = false;
  let createdOutDir: string | undefined;
  let lastCheck = Date.now();
  /** Stops with LostLockError when another build holds the lock now; `always` looks whatever the time since the last look. */
  const checkLock = (always: boolean): void => {
    if (!lock || (!always && Date.now() - lastCheck < LOCK_CHECK_MS)) return;
    lastCheck = Date.now();
    if (lock.stillHeld()) return;
    lost = true;
    throw new LostLockError(lock.path, journaled);
  };
  try {
    // 1. Stage: dist/ is untouched.
    for (const path of changed) {
      current = path;
      stageFile(join(staging, "new", path), path, artifacts, memory, seen, made);
    }
    for (const change of journal.changes) {
      if (change.action === "add") continue;
      current = change.path;
      keepBackup(outDir, staging, change.path, made);
    }
    // 2. Journal: from here on readers refuse dist/ and the next build recovers it.
    current = "";
    checkLock(true);
    current = JOURNAL_FILE;
    writeFileSync(join(staging, "journal.json"), `${JSON.stringify(journal)}\n`);
    createdOutDir = mkdirSync(outDir, { recursive: true });
    renameSync(join(staging, "journal.json"), join(outDir, JOURNAL_FILE));
    journaled = true;
    failpoint("journal");
    // 3. Apply.
    for (const path of orphans) {
      checkLock(false);
      current = path;
      unlinkSync(join(outDir, path));
      failpoint("apply");
    }
    removeEmptyFolders(outDir, orphans);
    for (const path of writes) {
      checkLock(false);
      current = path;
      const target = join(outDir, path);
      // An original's folder exists; only a new file may need one.
      if (!existing.has(path)) ensureFolder(dirname(target), made);
      renameSync(join(staging, "new", path), target);
      failpoint("apply");
    }
    // 4. Commit.
    current = "";
    checkLock(true);
    current = JOURNAL_FILE;
    unlinkSync(join(outDir, JOURNAL_FILE));
    failpoint("commit");
  } catch (caught) {
    memory?.files.clear();
    let error = caught;
    // A file operation can fail because another build took the lock over while this one stalled (stopped, or
    // in another PID namespace) and changed the folder under it: the look between two checks would come too
    // late. Undone now, this build would delete that build's finished files; so the lock is asked first.
    if (!lost && lock !== undefined && !lock.stillHeld()) {
      lost = true;
      error = new LostLockError(lock.path, journaled);
    }
    if (lost) {
      // The output folder, its journal and (once journaled) this build's staging folder are the other build's now.
      if (!journaled) attempt(() => rmSync(staging, { recursive: true, force: true }));
      throw error;
    }
    let notRestored: string | undefined;
    if (journaled) {
      try {
        if (!rollBack(outDir, staging, journal.changes)) notRestored = "an original is missing from the staging folder";
      } catch (rollbackError) {
        notRestored = `${describeFsError(errorCode(rollbackError))}, ${errorCode(rollbackError)}`;
      }
      if (notRestored === undefined) attempt(() => unlinkSync(join(outDir, JOURNAL_FILE)));
    }
    // A rollback that could not finish keeps the journal and the originals in the staging folder: the next build finishes it.
    if (notRestored === undefined) attempt(() => rmSync(staging, { recursive: true, force: true }));
    if (!journaled && createdOutDir !== undefined) attempt(() => rmSync(createdOutDir as string, { recursive: true }));
    throw new EmitError(writeFailedMessage(error, current, notRestored), current);
  }
  const removal = stagingRemoval(changed, journal.changes.filter((change) => change.action !== "add").map((change) => change.path));
  if (memory?.deferCleanup) memory.deferCleanup(removeStagingLater(staging, removal));
  else removeStaging(staging, removal);
  remember(memory, seen);
  return { written: changed, removed: orphans, unchanged };
}

/**
 * A first build (no output folder yet): every file is staged, then the staging
 * folder's `new/` becomes the output folder in one rename. A reader sees no
 * folder or the complete build, so no journal is needed, and a thousand
 * renames (each a change to two folders) are saved. Killed before the rename,
 * it leaves only its staging folder, which the next build removes.
 */
function emitIntoNewFolder(outDir: string, staging: string, artifacts: ReadonlyMap<string, ArtifactContent>, paths: readonly string[], memory: EmitMemory | undefined, seen: Map<string, EmittedFile>, lock: EmitLock | undefined): void {
  const made = new Set<string>();
  let current = "";
  try {
    for (const path of paths) {
      current = path;
      stageFile(join(staging, "new", path), path, artifacts, memory, seen, made);
    }
    current = "";
    if (lock && !lock.stillHeld()) throw new LostLockError(lock.path, false);
    renameSync(join(staging, "new"), outDir);
    failpoint("commit");
  } catch (error) {
    memory?.files.clear();
    attempt(() => rmSync(staging, { recursive: true, force: true }));
    if (error instanceof LostLockError) throw error;
    throw new EmitError(writeFailedMessage(error, current), current);
  }
  attempt(() => rmdirSync(staging));
  remember(memory, seen);
}

/**
 * Where the staging folder of a build into an existing output folder goes:
 * next to it (false), unless the output folder is on another mount than its
 * parent folder (a volume, a bind mount, a tmpfs), where no file can be
 * renamed into it from outside: then inside it (true), where every rename
 * stays on its mount. Another device tells at once; a bind mount of the same
 * file system keeps the device, so on Linux the mount table tells
 * ({@link mountOf}). Nothing is written to find out.
 */
function placeStaging(outDir: string): boolean {
  const parent = dirname(outDir);
  const outStats = statSync(outDir, { throwIfNoEntry: false });
  const parentStats = statSync(parent, { throwIfNoEntry: false });
  if (!outStats?.isDirectory() || !parentStats) return false;
  if (outStats.dev !== parentStats.dev) return true;
  const mounts = mountPoints();
  if (mounts.length === 0) return false;
  try {
    return mountOf(realpathSync(outDir), mounts) !== mountOf(realpathSync(parent), mounts);
  } catch {
    return false;
  }
}

/** The mounts of this process's mount namespace in the order they were made (Linux); empty where the system does not tell. */
function mountPoints(): { id: string; path: string }[] {
  if (process.platform !== "linux") return [];
  let text: string;
  try {
    text = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return [];
  }
  const mounts: { id: string; path: string }[] = [];
  for (const line of text.split("\n")) {
    const fields = line.split(" ");
    const [id, , , , point] = fields;
    // The mount point's spaces, tabs, newlines and backslashes are written as octal escapes.
    if (id && point) mounts.push({ id, path: point.replace(/\\([0-7]{3})/g, (_escape, octal: string) => String.fromCharCode(Number.parseInt(octal, 8))) });
  }
  return mounts;
}

/** The id of the mount a real path lies on: the deepest mount point above it, the last one made there. */
function mountOf(path: string, mounts: readonly { id: string; path: string }[]): string | undefined {
  let found: { id: string; path: string } | undefined;
  for (const mount of mounts) {
    const above = mount.path === "/" || path === mount.path || path.startsWith(`${mount.path}/`);
    if (above && (!found || mount.path.length >= found.path.length)) found = mount;
  }
  return found?.id;
}

/**
 * The message of dist/write-failed for a failure at `path` (inside the output
 * folder, "" for none). A rename across file systems (EXDEV) names its cause:
 * the output folder and its parent folder, or a folder inside the output
 * folder (a mount point there), are on different file systems.
 */
function writeFailedMessage(error: unknown, path: string, notRestored?: string): string {
  const code = errorCode(error);
  if (notRestored !== undefined) {
    return `Unexpected failure writing this file (${code}), expected a writable output folder; putting the previous build back failed too (${notRestored}), so the output folder stays marked as an interrupted build, which check and the runtime refuse, until the next build finishes restoring it`;
  }
  if (code === "EXDEV") {
    const where = path.includes("/")
      ? "a folder on this file's path inside the output folder is on a different file system from the output folder (a mount point inside it)"
      : "the output folder and its parent folder are on different file systems";
    return `Unexpected move across file systems (EXDEV): ${where}, expected the output folder and everything in it on one file system (mount the output folder itself, not a folder inside it); the output folder was left as it was`;
  }
  return `Unexpected failure writing this file (${code}), expected a writable output folder; the output folder was left as it was`;
}

/** Writes one new file into the staging folder and, for a memory, records its stamp. */
function stageFile(staged: string, path: string, artifacts: ReadonlyMap<string, ArtifactContent>, memory: EmitMemory | undefined, seen: Map<string, EmittedFile>, made: Set<string>): void {
  ensureFolder(dirname(staged), made);
  writeFileSync(staged, artifacts.get(path) as ArtifactContent);
  // Stamped before the rename, which keeps inode and mtime: a later write by anyone else changes the stamp.
  const fingerprint = memory?.fingerprint(path);
  if (fingerprint !== undefined) seen.set(path, { fingerprint, ...stampOf(statSync(staged)) });
  failpoint("stage");
}

/**
 * Splits the artifacts into changed and unchanged, sorted. A file emit
 * recorded is judged by its stamp alone; any other is read and compared.
 */
function sortChanges(
  outDir: string,
  artifacts: ReadonlyMap<string, ArtifactContent>,
  existing: ReadonlySet<string>,
  memory: EmitMemory | undefined,
  seen: Map<string, EmittedFile>,
): { changed: string[]; unchanged: string[] } {
  const changed: string[] = [];
  const unchanged: string[] = [];
  const unknown: string[] = [];
  for (const path of [...artifacts.keys()].sort()) {
    if (!existing.has(path)) {
      changed.push(path);
      continue;
    }
    const recorded = memory?.files.get(path);
    const fingerprint = memory?.fingerprint(path);
    if (memory?.trustUnchanged && recorded && recorded.fingerprint === fingerprint) {
      seen.set(path, recorded);
      unchanged.push(path);
      continue;
    }
    const now = recorded && fingerprint !== undefined ? statSync(join(outDir, path), { throwIfNoEntry: false }) : undefined;
    if (!recorded || fingerprint === undefined || !now || !sameStamp(recorded, now)) {
      unknown.push(path);
      continue;
    }
    seen.set(path, recorded);
    (recorded.fingerprint === fingerprint ? unchanged : changed).push(path);
  }
  for (const path of unknown) {
    const file = join(outDir, path);
    // Stamped before reading: if the file changes meanwhile, the stamp no longer matches next time.
    const before = memory ? statSync(file, { throwIfNoEntry: false }) : undefined;
    // fstat before any read: a FIFO, socket or device at an artifact's path is refused, never waited on.
    const read = readRegularFile(file);
    if (read.kind === "not-a-file") throw new EmitError(`Unexpected ${read.what}, expected a regular file (remove it and build again); the output folder was left as it was`, path, "dist/not-a-file");
    const current = read.kind === "file" ? read.bytes : undefined;
    const fingerprint = memory?.fingerprint(path);
    if (current !== undefined && current.equals(toBytes(artifacts.get(path) as ArtifactContent))) {
      unchanged.push(path);
      if (before && fingerprint !== undefined) seen.set(path, { fingerprint, ...stampOf(before) });
    } else changed.push(path);
  }
  changed.sort();
  unchanged.sort();
  return { changed, unchanged };
}


/** After a successful emit the memory describes exactly the files dist/ now holds. */
function remember(memory: EmitMemory | undefined, seen: ReadonlyMap<string, EmittedFile>): void {
  if (!memory) return;
  memory.files.clear();
  for (const [path, file] of seen) memory.files.set(path, file);
}

/**
 * Keeps the original reachable from the staging folder as a hard link (a
 * copy where links are not supported): the original never leaves its place
 * until the new file replaces it, and a rollback renames the link back.
 */
function keepBackup(outDir: string, staging: string, path: string, made: Set<string>): void {
  const original = join(outDir, path);
  const backup = join(staging, "old", path);
  ensureFolder(dirname(backup), made);
  try {
    linkSync(original, backup);
  } catch (error) {
    if (isNotFound(error)) throw error;
    copyFileSync(original, backup);
  }
}

/**
 * Every file under `dir` as a POSIX path relative to it; empty when `dir` does not exist.
 * A folder that cannot be listed (no permission) is an {@link EmitError} of rule
 * dist/unreadable naming that folder; with `unreadable` given, it is recorded
 * there instead (folder → error code, "" for `dir` itself) and the rest is listed.
 */
export function listTree(dir: string, unreadable?: Map<string, string>): Set<string> {
  const found = new Set<string>();
  const walk = (relDir: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(dir, relDir), { withFileTypes: true });
    } catch (error) {
      // No folder there, or a name no file system can look up (over the limit, a NUL byte): nothing to list.
      if (relDir === "" && (isNotFound(error) || ["ENOTDIR", "ENAMETOOLONG", "ERR_INVALID_ARG_VALUE"].includes(errorCode(error) ?? ""))) return;
      // A folder inside removed or replaced by a file meanwhile fails too: its files would be left out.
      const code = errorCode(error);
      if (code === "unknown error") throw error;
      if (unreadable) {
        unreadable.set(relDir, code);
        return;
      }
      throw new EmitError(unreadableFolderMessage(code), relDir, "dist/unreadable", code);
    }
    for (const entry of entries) {
      const rel = relDir === "" ? entry.name : `${relDir}/${entry.name}`;
      // The transaction's journal is no artifact: recovery and the readers look for it by name.
      if (rel === JOURNAL_FILE) continue;
      // Nor is a staging folder inside a mounted output folder (see placeStaging).
      if (relDir === "" && entry.isDirectory() && entry.name.startsWith(stagingPrefix(dir))) continue;
      if (entry.isDirectory()) walk(rel);
      else found.add(rel);
    }
  };
  walk("");
  return found;
}

/** This process's start time for the journal, where the system tells it. */
function startOfThisProcess(): { processStart?: string } {
  const processStart = processStartTime(process.pid);
  return processStart === undefined ? {} : { processStart };
}

/** The message of dist/unreadable for a folder of the output that cannot be listed. */
export function unreadableFolderMessage(code: string): string {
  return `Unexpected folder that cannot be read (${describeFsError(code)}, ${code}), expected a folder gamma-prompt can list: give it read and search permission, then run the command again`;
}

/**
 * What removing the staging folder takes after a successful emit, where every
 * new file was renamed away and `old/` holds exactly the backups and orphans:
 * one unlink per file and one rmdir per folder (deepest first, the staging
 * folder last) cost a fraction of a recursive removal.
 */
function stagingRemoval(newPaths: readonly string[], oldPaths: readonly string[]): { files: string[]; folders: string[] } {
  const folders = new Set<string>();
  const addFolders = (top: string, paths: readonly string[]): void => {
    if (paths.length > 0) folders.add(top);
    for (const path of paths) {
      for (let folder = dirname(path); folder !== "." && folder !== ""; folder = dirname(folder)) folders.add(`${top}/${folder}`);
    }
  };
  addFolders("new", newPaths);
  addFolders("old", oldPaths);
  const deepestFirst = [...folders].sort((a, b) => b.split("/").length - a.split("/").length);
  return { files: oldPaths.map((path) => `old/${path}`), folders: [...deepestFirst, ""] };
}

/** Removes the staging folder now; anything unexpected falls back to the recursive removal. */
function removeStaging(staging: string, removal: { files: string[]; folders: string[] }): void {
  try {
    for (const file of removal.files) unlinkSync(join(staging, file));
    for (const folder of removal.folders) rmdirSync(join(staging, folder));
  } catch {
    attempt(() => rmSync(staging, { recursive: true, force: true }));
  }
}

/** The same off the main thread, for a session that builds again (see EmitMemory.deferCleanup); never rejects. */
async function removeStagingLater(staging: string, removal: { files: string[]; folders: string[] }): Promise<void> {
  try {
    for (const file of removal.files) await unlink(join(staging, file));
    for (const folder of removal.folders) await rmdir(join(staging, folder));
  } catch {
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Creates a folder (and its parents) once per emit; `made` remembers which exist already. */
function ensureFolder(folder: string, made: Set<string>): void {
  if (made.has(folder)) return;
  try {
    mkdirSync(folder, { recursive: true });
  } catch (error) {
    // A recursive mkdir says ENOENT for any refusal (a read-only mount's EROFS): the first missing level made alone says which.
    if (errorCode(error) === "ENOENT") {
      let missing = folder;
      while (!lstatSync(dirname(missing), { throwIfNoEntry: false }) && dirname(missing) !== missing) missing = dirname(missing);
      mkdirSync(missing);
    }
    throw error;
  }
  made.add(folder);
}



function toBytes(content: ArtifactContent): Uint8Array {
  return typeof content === "string" ? Buffer.from(content) : content;
}
