import { statSync } from "node:fs";
import { expectAbortSignal, expectBoolean, expectFunction, expectNumber, expectProjectOptions, expectStringArray, shownValue } from "./protocol/arguments.js";
import { basename, join, resolve } from "node:path";
import { compareDiagnostics, countDiagnostics, createDiagnostic, FILE_START, type Diagnostic } from "./diagnostics/diagnostic.js";
import { ProjectRootError, refuseOutputHoldingRoot, refuseOutputInSourceFolder } from "./pipeline/discover/discover.js";
import { readSkillLayout } from "./pipeline/discover/skill-folders.js";
import { sameStamp } from "./pipeline/discover/file-stamp.js";
import { relativePosix } from "./pipeline/discover/relative-paths.js";
import { MANIFEST_FILE, type ArtifactEntry, type DistManifest } from "./protocol/dist-manifest.js";
import { JOURNAL_FILE } from "./protocol/dist-journal.js";
import { readRegularFile, statIfPossible } from "./protocol/regular-file.js";
import { CACHE_FORMAT, cacheFile, computeInputKey, readPersistedBuild, sourceSnapshot, stampSources, writePersistedBuild } from "./pipeline/cache/build-cache.js";
import type { CompiledProject } from "./pipeline/compile/compile.js";
import { DIST_MEMORY, EmitError, emitArtifacts, listTree, type DistMemory } from "./pipeline/emit/emit.js";
import { acquireOutputLock, lockPathFor, LockWriteError, removeStaleLockFiles, type LockHolder, type OutputLock } from "./pipeline/emit/lock.js";
import { recoverDist, removeStaleStaging, type Recovery } from "./pipeline/emit/recovery.js";
import { BuildSession, defineSlot } from "./pipeline/session/build-session.js";
import type { ArtifactContent } from "./pipeline/emit/artifacts.js";
import { sha256Hex } from "./pipeline/discover/read-source.js";
import { summarize, type BuildSummary } from "./pipeline/render/summary.js";
import type { CachePlan } from "./protocol/cache-plan.js";
import { describeFsError, folderProblem, fsErrorCode } from "./protocol/path-problem.js";
import { PathProbes, probesStillHold } from "./pipeline/discover/path-probes.js";
import { messageOf } from "./protocol/error-message.js";

export type { BuildSummary, VariantSummary } from "./pipeline/render/summary.js";

/**
 * Opaque state for successive builds of one project (watch mode): the build
 * session that keeps what a rebuild can reuse (see BuildSession). Never
 * shared between projects.
 */
export type BuildCache = BuildSession;

export function createBuildCache(): BuildCache {
  return new BuildSession({ repeated: true });
}

/** Housekeeping a build of this session left running after it returned (the removal of its staging folder). */
const PENDING_CLEANUP = defineSlot<{ pending?: Promise<void> }>("pending cleanup");

/**
 * From this many sources a one-shot build counts its tokens on a worker thread. Starting the worker and
 * loading the tokenizer there costs about 100 ms of the other core; counting the bodies of a few hundred
 * skills costs the main thread as much.
 */
const TOKEN_WORKER_MIN_SOURCES = 300;

/** Resolves once the housekeeping of every build of this cache has finished (watch waits for it when it closes). */
export async function settleBuildCache(cache: BuildCache): Promise<void> {
  await cache.keep(PENDING_CLEANUP, () => ({})).pending;
}

export interface BuildOptions {
  /** Project root: holds skills/, prompts/, schemas/tools/ and the optional gamma-prompt.config.json. */
  root: string;
  /** Output folder, relative to the root unless absolute. Default "dist". */
  outDir?: string;
  /** Reuse across successive builds (watch). */
  cache?: BuildCache;
  /**
   * Root-relative paths changed since the last build with this cache: only
   * these sources are re-read, and dist/ files this cache wrote whose bytes do
   * not change are trusted without a stat (a hand edit to one is repaired by
   * the next build without this hint; `check` reports it meanwhile).
   */
  changedPaths?: string[];
  /**
   * Persist a record of the last build under node_modules/.cache/gamma-prompt/
   * so an unchanged project rebuilds without rendering. Default true, except
   * for a rebuild with a `changedPaths` hint (something did change; hashing
   * every source again would only slow watch mode down).
   */
  persistentCache?: boolean;
  /** How long to wait for another build of the same output folder (default 10,000 ms; 0 or more, Infinity for as long as it runs), then throw OutputLockedError. */
  lockWaitMs?: number;
  /** Called once when this build starts waiting for another build of the same output folder. */
  onLockWait?: (holder: LockHolder) => void;
  /**
   * Stops the build at the next safe point once aborted (the CLI's Ctrl-C): while it waits for the lock,
   * before and after compiling, and last just before the output folder is written. Writing, once begun,
   * always finishes. The lock is released and no staging folder is left; build() then throws
   * {@link BuildStoppedError} with the output folder as it was.
   */
  signal?: AbortSignal;
}

/** Thrown by a build whose `signal` was aborted before it wrote anything: the output folder is as it was. */
export class BuildStoppedError extends Error {
  override readonly name = "BuildStoppedError";
  constructor() {
    super("the build was stopped before it wrote the output folder, which was left as it was");
  }
}

function stopIfAsked(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new BuildStoppedError();
}

export interface BuildResult {
  ok: boolean;
  diagnostics: Diagnostic[];
  errorCount: number;
  warningCount: number;
  /** Notes never fail a build. */
  noteCount: number;
  /** dist-relative paths written, removed and left untouched by this build. */
  written: string[];
  removed: string[];
  unchanged: string[];
  /** The new manifest when ok. */
  manifest?: DistManifest;
  /** What dist/ held before, when readable. */
  previousManifest?: DistManifest;
  /** staticPrefix.cacheKey differs from previousManifest's (or there was none). */
  prefixChanged: boolean;
  summary?: BuildSummary;
  /** The persistent cache matched the sources and dist/ was verified byte for byte without rendering. */
  fromCache: boolean;
  /**
   * Present when an interrupted build had left dist/ journaled: how this build
   * found it complete again before building ("unrecoverable": its journal
   * could not be used, and only a successful build clears it).
   */
  recovery?: Exclude<Recovery, "none">;
}

export async function build(options: BuildOptions): Promise<BuildResult> {
  expectProjectOptions(options, "build");
  if (options.cache !== undefined && !(options.cache instanceof BuildSession)) throw new TypeError(`Unexpected cache ${shownValue(options.cache)}, expected a build cache from createBuildCache()`);
  if (options.changedPaths !== undefined) expectStringArray(options.changedPaths, "changedPaths", "an array of root-relative paths");
  if (options.persistentCache !== undefined) expectBoolean(options.persistentCache, "persistentCache");
  if (options.lockWaitMs !== undefined) {
    expectNumber(options.lockWaitMs, "lockWaitMs", "a number of milliseconds");
    if (options.lockWaitMs < 0) throw new RangeError(`Unexpected lockWaitMs ${options.lockWaitMs}, expected a number of milliseconds, 0 or more (Infinity waits as long as the other build runs)`);
  }
  if (options.onLockWait !== undefined) expectFunction(options.onLockWait, "onLockWait", "a function that takes the build holding the lock");
  if (options.signal !== undefined) expectAbortSignal(options.signal);
  const root = resolve(options.root);
  const outDir = resolve(root, options.outDir ?? "dist");
  const outRel = relativePosix(root, outDir) || ".";
  // Before anything is created: a root that is no folder (or one the file system does not let this process enter) is a usage problem.
  const rootProblem = folderProblem(root);
  if (rootProblem !== undefined) throw new ProjectRootError(`project root "${options.root}" ${rootProblem}`);
  // A build removes every file of its output folder that is not an artifact:
  // one holding the root would delete the sources, manifest.json or not.
  refuseOutputHoldingRoot(root, outDir, options.outDir);
  // Something other than a folder where the output folder goes: no build can write there, and none may remove it.
  const outStats = statIfPossible(outDir);
  if (outStats !== undefined && !outStats.isDirectory()) {
    throw new ProjectRootError(`output folder "${options.outDir ?? "dist"}" is ${outStats.isFile() ? "a file" : "not a folder"}, expected a folder: remove it or pass --out`);
  }
  refuseOutputInSourceFolder(root, outDir, options.outDir, { ...readSkillLayout(root), outDir: outRel });
  if (options.cache) await settleBuildCache(options.cache);
  stopIfAsked(options.signal);
  const lock = await acquireOutputLock(outDir, {
    ...(options.lockWaitMs !== undefined ? { waitMs: options.lockWaitMs } : {}),
    ...(options.onLockWait ? { onWait: options.onLockWait } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  }).catch((error: unknown) => {
    if (options.signal?.aborted) throw new BuildStoppedError();
    throw unusableOutputFolder(error, options.outDir ?? "dist");
  });
  try {
    // Before anything reads dist/: finish or undo what a killed build left, and clear its leftovers.
    let recovery: Recovery;
    try {
      recovery = recoverDist(outDir);
    } catch (error) {
      const code = fsErrorCode(error);
      if (code === undefined) throw error;
      // A file the rollback cannot rename back (a bind mount, an immutable file): said as a finding, the journal kept.
      return recoveryFailed(outRel, code);
    }
    removeStaleStaging(outDir);
    removeStaleLockFiles(outDir);
    const result = await buildLocked(options, root, outDir, outRel, lock, recovery);
    return recovery === "none" ? result : { ...result, recovery };
  } finally {
    lock.release();
  }
}

/**
 * The result of a build that found an interrupted build's journal in its output folder and could not finish
 * restoring it: nothing was built, the journal stays (check and the runtime keep refusing the folder), and the
 * next build tries again.
 */
function recoveryFailed(outRel: string, code: string): BuildResult {
  const message = `Unexpected failure restoring the build an interrupted build left half replaced (${describeFsError(code)}, ${code}), expected to put its files back; the output folder stays marked as interrupted, which check and the runtime refuse: remove what holds its files (a mount, an immutable flag) and build again`;
  const diagnostics = [createDiagnostic("dist/write-failed", `${outRel}/${JOURNAL_FILE}`, FILE_START, message)];
  return { ok: false, diagnostics, ...countDiagnostics(diagnostics), written: [], removed: [], unchanged: [], prefixChanged: false, fromCache: false };
}

async function buildLocked(options: BuildOptions, root: string, outDir: string, outRel: string, lock: OutputLock, recovery: Recovery): Promise<BuildResult> {
  // A journal nothing could act on is cleared only by writing: no shortcut may skip the write.
  const persistent = recovery !== "unrecoverable" && (options.persistentCache ?? !(options.cache && options.changedPaths));
  // A one-shot build runs in a session of its own.
  const session = options.cache ?? new BuildSession();
  const distMemory = session.keep(DIST_MEMORY, () => ({ files: new Map() }));
  if (recovery !== "none") {
    // Recovery renamed files in dist/: what this session remembers of it no longer holds.
    distMemory.files.clear();
    delete distMemory.manifest;
  }
  const previousManifest = rememberedManifest(outDir, distMemory) ?? (await readManifest(outDir));

  const input = persistent ? await computeInputKey(root, outRel) : undefined;
  if (input !== undefined) {
    const hit = await tryFastPath(root, outDir, outRel, input.key, previousManifest);
    if (hit) return hit;
  }

  // Heavy modules (lint, templates, tokenizer) load only when something must be rendered.
  stopIfAsked(options.signal);
  // A large one-shot build counts its tokens on a second thread, started before the compile's modules load.
  const tokenWorker = input !== undefined && !options.cache && input.paths.length >= TOKEN_WORKER_MIN_SOURCES ? (await import("./pipeline/render/token-worker-client.js")).TokenWorker.start() : undefined;
  const { compileProject } = await import("./pipeline/compile/compile.js");
  const previous = previousManifest ? { previousManifest } : {};
  const failed = (diagnostics: Diagnostic[]): BuildResult => ({
    ok: false,
    diagnostics,
    ...countDiagnostics(diagnostics),
    written: [],
    removed: [],
    unchanged: [],
    ...previous,
    prefixChanged: false,
    fromCache: false,
  });
  // Sources are snapshotted before they are read and compared again just before dist/ is written: an
  // edit in between makes the build start over once, then fail, never write a dist/ that matches no sources.
  // Watch rebuilds compare sizes and modification times (hashing every source would undo their speed), and
  // only of the paths the watcher reported: those are all such a rebuild reads. An edit to any other source
  // while it runs leaves dist/ equal to the sources just before that edit, and the watcher reports it for
  // the next rebuild.
  const watchHint = input === undefined && options.cache ? options.changedPaths : undefined;
  const takeSnapshot = (hint: readonly string[] | undefined): Promise<string | undefined> =>
    hint ? Promise.resolve(stampSources(root, hint)) : sourceSnapshot(root, watchHint ? "stamp" : "content", outRel);
  let changedPaths = options.cache ? options.changedPaths : undefined;
  let snapshot = input?.content ?? (await takeSnapshot(watchHint));
  let compiled: CompiledProject;
  let probes: PathProbes | undefined;
  try {
    for (let attempt = 1; ; attempt++) {
      // Recorded for the persistent cache: its entry is trusted again only while these lookups find the same.
      probes = input === undefined ? undefined : new PathProbes(root);
      stopIfAsked(options.signal);
      // The first attempt's snapshot is the input key's, whose listing walked every skill folder: lint takes those walks.
      const walks = attempt === 1 ? input?.walks : undefined;
      compiled = await compileProject(root, session, changedPaths, { outDir: outRel, ...(probes ? { probes } : {}), ...(walks ? { walks } : {}), ...(tokenWorker ? { tokenWorker } : {}) });
      stopIfAsked(options.signal);
      if (!compiled.artifacts || !compiled.manifest || compiled.errorCount > 0) return failed(compiled.diagnostics);
      const now = await takeSnapshot(attempt === 1 ? watchHint : undefined);
      if (now === snapshot) break;
      if (attempt === 2) {
        const message = "Unexpected sources changed during the build (twice in a row), expected them to stay unchanged until dist/ is written; dist/ was left as it was, build again when the edits are done";
        return failed([...compiled.diagnostics, createDiagnostic("source/changed-during-build", outRel, FILE_START, message)].sort(compareDiagnostics));
      }
      // Without a hint every source is read and checked again: the hint names what changed before this build, not during it.
      snapshot = watchHint ? await takeSnapshot(undefined) : now;
      changedPaths = undefined;
    }
  } finally {
    tokenWorker?.close();
  }
  const artifacts = compiled.artifacts;
  const manifest = compiled.manifest;

  let ownership: Diagnostic | undefined;
  try {
    ownership = await checkOwnership(outDir, outRel, artifacts, previousManifest);
  } catch (error) {
    if (!(error instanceof EmitError)) throw error;
    ownership = createDiagnostic(error.ruleId, error.path ? `${outRel}/${error.path}` : outRel, FILE_START, error.message);
  }
  if (ownership) return failed([...compiled.diagnostics, ownership].sort(compareDiagnostics));

  if (!lock.stillHeld()) {
    const message = `Unexpected loss of the output folder's lock (${lock.path}) to another build, expected to hold it until the build is written; the output folder was left as it was`;
    return failed([...compiled.diagnostics, createDiagnostic("dist/write-failed", outRel, FILE_START, message)].sort(compareDiagnostics));
  }

  // The last safe point: from here the output folder is written to the end (emitArtifacts runs in one go).
  stopIfAsked(options.signal);
  let emitted;
  try {
    const hashes = compiled.hashes;
    const manifestText = artifacts.get(MANIFEST_FILE) as string | undefined;
    const fingerprint = (path: string): string | undefined => (path === MANIFEST_FILE ? manifestText : hashes?.get(path)?.sha256);
    // Only a session that builds again reads its memory of dist/: a one-shot build skips stamping every file it writes.
    const cleanup = session.keep(PENDING_CLEANUP, () => ({}));
    const memory = session.repeated
      ? { fingerprint, files: distMemory.files, trustUnchanged: options.cache !== undefined && options.changedPaths !== undefined, deferCleanup: (pending: Promise<void>) => (cleanup.pending = pending) }
      : undefined;
    emitted = await emitArtifacts(outDir, artifacts, memory, lock);
    const manifestFile = distMemory.files.get(MANIFEST_FILE);
    if (manifestFile) distMemory.manifest = { file: manifestFile, manifest };
    else delete distMemory.manifest;
  } catch (error) {
    delete distMemory.manifest;
    const path = error instanceof EmitError && error.path ? `${outRel}/${error.path}` : outRel;
    const message = messageOf(error);
    const ruleId = error instanceof EmitError ? error.ruleId : "dist/write-failed";
    return failed([...compiled.diagnostics, createDiagnostic(ruleId, path, FILE_START, message)].sort(compareDiagnostics));
  }
  if (input !== undefined && probes !== undefined && snapshot === input.content && stampSources(root, input.paths) === input.stamp) {
    // Recorded only when no source was touched while the build ran (a source added meanwhile changes the next key anyway).
    await writePersistedBuild(cacheFile(root, outRel), {
      format: CACHE_FORMAT,
      key: input.key,
      artifacts: artifactHashes(artifacts, compiled.hashes),
      diagnostics: compiled.diagnostics,
      probes: probes.recorded(),
    });
  }
  return {
    ok: true,
    diagnostics: compiled.diagnostics,
    errorCount: compiled.errorCount,
    warningCount: compiled.warningCount,
    noteCount: compiled.noteCount,
    ...emitted,
    manifest,
    ...previous,
    prefixChanged: previousManifest?.staticPrefix?.cacheKey !== manifest.staticPrefix.cacheKey,
    summary: compiled.summary ?? summarize(manifest),
    fromCache: false,
  };
}

/** Succeeds only when the cache entry matches the sources and dist/ holds exactly its files, byte for byte. */
async function tryFastPath(root: string, outDir: string, outRel: string, key: string, manifest: DistManifest | undefined): Promise<BuildResult | undefined> {
  if (!manifest) return undefined;
  const entry = await readPersistedBuild(cacheFile(root, outRel));
  if (!entry || entry.key !== key || !probesStillHold(root, entry.probes)) return undefined;
  let present: Set<string>;
  try {
    present = listTree(outDir);
  } catch (error) {
    // A folder of dist/ that cannot be listed: the full build names it.
    if (error instanceof EmitError) return undefined;
    throw error;
  }
  const expected = Object.keys(entry.artifacts);
  if (present.size !== expected.length || !expected.every((path) => present.has(path))) return undefined;
  const matches = await Promise.all(
    expected.map(async (path) => {
      const read = readRegularFile(join(outDir, path));
      return read.kind === "file" && sha256Hex(read.bytes) === entry.artifacts[path]?.sha256;
    }),
  );
  if (!matches.every(Boolean)) return undefined;
  const diagnostics = entry.diagnostics;
  return {
    ok: true,
    diagnostics,
    ...countDiagnostics(diagnostics),
    written: [],
    removed: [],
    unchanged: expected.sort(),
    manifest,
    previousManifest: manifest,
    prefixChanged: false,
    summary: summarize(manifest, verifiedCachePlan(outDir, manifest)),
    fromCache: true,
  };
}

/** The cache plan of a dist/ whose files were just matched byte for byte; undefined when it cannot be read. */
function verifiedCachePlan(outDir: string, manifest: DistManifest): CachePlan | undefined {
  const read = readRegularFile(join(outDir, manifest.cachePlan.file));
  if (read.kind !== "file") return undefined;
  try {
    return JSON.parse(read.bytes.toString("utf8")) as CachePlan;
  } catch {
    return undefined;
  }
}

/**
 * gamma-prompt deletes stale files only in a folder it owns (one holding its
 * manifest); a mistaken --out never costs anyone their files.
 */
async function checkOwnership(outDir: string, outRel: string, artifacts: ReadonlyMap<string, ArtifactContent>, previous: DistManifest | undefined): Promise<Diagnostic | undefined> {
  if (previous) return undefined;
  const foreign = [...listTree(outDir)].filter((path) => !artifacts.has(path)).sort();
  if (foreign.length === 0) return undefined;
  return createDiagnostic(
    "dist/not-owned",
    `${outRel}/${foreign[0]}`,
    FILE_START,
    `Unexpected file in an output folder without ${MANIFEST_FILE} (${foreign.length} such file${foreign.length === 1 ? "" : "s"}), expected an empty folder or one written by gamma-prompt`,
  );
}

/** The manifest the last build of this cache wrote, while manifest.json on disk is still that file. */
function rememberedManifest(outDir: string, memory: DistMemory): DistManifest | undefined {
  const remembered = memory.manifest;
  if (!remembered) return undefined;
  const now = statSync(join(outDir, MANIFEST_FILE), { throwIfNoEntry: false });
  return sameStamp(remembered.file, now) ? remembered.manifest : undefined;
}

export async function readManifest(outDir: string): Promise<DistManifest | undefined> {
  try {
    const read = readRegularFile(join(outDir, MANIFEST_FILE));
    if (read.kind !== "file") return undefined;
    const parsed: unknown = JSON.parse(read.bytes.toString("utf8"));
    return typeof parsed === "object" && parsed !== null && "artifacts" in parsed ? (parsed as DistManifest) : undefined;
  } catch {
    return undefined;
  }
}

/** Every artifact's sha256 and size; those the compile already hashed (all but manifest.json) are not hashed again. */
function artifactHashes(artifacts: ReadonlyMap<string, ArtifactContent>, known: ReadonlyMap<string, ArtifactEntry> | undefined): Record<string, { sha256: string; bytes: number }> {
  const hashes: Record<string, { sha256: string; bytes: number }> = {};
  for (const path of [...artifacts.keys()].sort()) {
    const entry = known?.get(path);
    const text = artifacts.get(path) as ArtifactContent;
    hashes[path] = entry ? { sha256: entry.sha256, bytes: entry.bytes } : { sha256: sha256Hex(text), bytes: Buffer.byteLength(text) };
  }
  return hashes;
}


/**
 * A lock file the file system refuses (the output folder's name is over the limit or holds a NUL byte, the
 * folder that holds it is read-only) is a usage problem, not a crash; the message names the lock, which sits
 * beside the output folder, so a read-only project root is not mistaken for a missing output folder.
 */
function unusableOutputFolder(error: unknown, outDir: string): unknown {
  const code = error instanceof LockWriteError ? error.code : fsErrorCode(error);
  if (code === undefined) return error instanceof LockWriteError ? error.cause : error;
  if (error instanceof LockWriteError && ["ENOSPC", "EDQUOT", "EIO", "EFBIG"].includes(code)) {
    // The folder that holds the lock is there (a full disk, a quota): what failed is writing the lock, not creating dist/.
    return new ProjectRootError(`output folder "${outDir}" cannot be written: its lock ${basename(error.lockPath)}, in the folder that holds it, cannot be written: ${describeFsError(code)} (${code})`);
  }
  if (code === "EACCES" || code === "EPERM" || code === "EROFS") {
    return new ProjectRootError(`output folder "${outDir}" cannot be written: its lock ${basename(lockPathFor(outDir))}, in the folder that holds it, cannot be created: ${describeFsError(code)} (${code})`);
  }
  return new ProjectRootError(`output folder "${outDir}" cannot be created: ${describeFsError(code)} (${code})`);
}
