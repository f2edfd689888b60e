import { lstatSync, readdirSync, realpathSync, type Stats } from "node:fs";
import { folderProblem } from "./protocol/path-problem.js";
import { statIfPossible } from "./protocol/regular-file.js";
import { join, resolve, sep } from "node:path";
import { performance } from "node:perf_hooks";
import { build, createBuildCache, settleBuildCache, type BuildResult } from "./build.js";
import { expectFunction, expectNumber, expectProjectOptions, shownValue } from "./protocol/arguments.js";
import type { InvalidationCost } from "./cost/invalidation.js";
import { ProjectRootError } from "./pipeline/discover/discover.js";
import type { PrefixChange, WatchBuildEvent, WatchEvent } from "./watch/events.js";
import { isIgnoredSource, layoutTopFolders, toRootRelative, WATCHED_FOLDERS } from "./watch/paths.js";
import { readSkillLayout } from "./pipeline/discover/skill-folders.js";
import { CONFIG_FILE } from "./pipeline/discover/source-paths.js";
import { findFolderLinks, LinkTargetWatch } from "./watch/link-targets.js";
import { createPlanTracker } from "./watch/plan-cost.js";
import { RebuildQueue } from "./watch/queue.js";
import { DEFAULT_DEBOUNCE_MS, MAX_DEBOUNCE_MS, MIN_DEBOUNCE_MS } from "./watch/debounce.js";
import { messageOf } from "./protocol/error-message.js";

export type { PrefixChange, WatchBuildEvent, WatchErrorEvent, WatchEvent } from "./watch/events.js";

export interface WatchOptions {
  /** Project root: the folder holding skills/, prompts/, schemas/ and the optional config file. */
  root: string;
  /** Output folder, relative to the root unless absolute. Default `dist`. */
  outDir?: string;
  /** Quiet period after the last change before a rebuild starts. Default 100 ms; from 60 ms to 60,000 ms (a RangeError otherwise). */
  debounceMs?: number;
  /** Called once per build (initial and every rebuild) and for watcher faults. */
  onEvent: (event: WatchEvent) => void;
}

export interface WatchHandle {
  /** The top-level folders watched now, besides the config file: the fixed ones and the skill layout's, or "any" when a layout pattern starts with a glob. */
  readonly watching: readonly string[] | "any";
  /**
   * Stops watching. Pending changes are dropped; a build in flight is allowed
   * to finish, so dist/ is never left with temporary files.
   */
  close(): Promise<void>;
  /**
   * Resolves, with why, when watch stops on its own: its project root is no longer a folder (moved or
   * deleted), so nothing there is watched any more. The error event before it says so too. Never resolves
   * otherwise; a caller awaits it beside its own reason to stop.
   */
  readonly stoppedItself: Promise<string>;
}

export { DEFAULT_DEBOUNCE_MS, MIN_DEBOUNCE_MS };

/**
 * Builds once, then rebuilds on every change to the project's sources until
 * `close()`. Resolves after the initial build whether or not the sources
 * had errors (a broken project at start is just the first thing the author
 * fixes); rejects with {@link ProjectRootError} when the root is not a folder
 * or has no skills/ folder.
 */
/** Watcher faults each build reports itself, with the file they concern. */
const UNWATCHABLE_REPORTED_BY_BUILD = new Set(["ELOOP", "EACCES", "EPERM"]);

export async function watch(options: WatchOptions): Promise<WatchHandle> {
  expectProjectOptions(options, "watch");
  expectFunction(options.onEvent, "onEvent", "a function that takes each build's event");
  if (options.debounceMs !== undefined) {
    expectNumber(options.debounceMs, "debounceMs", `a number of milliseconds (at least ${MIN_DEBOUNCE_MS})`);
    // Refused as `watch --debounce` refuses it, never quietly raised to the least that works.
    if (!(options.debounceMs >= MIN_DEBOUNCE_MS && options.debounceMs <= MAX_DEBOUNCE_MS)) {
      throw new RangeError(`Unexpected debounceMs ${shownValue(options.debounceMs)}, expected a number of milliseconds from ${MIN_DEBOUNCE_MS} to ${MAX_DEBOUNCE_MS}`);
    }
  }
  const root = resolve(options.root);
  const rootProblem = folderProblem(root);
  if (rootProblem !== undefined) throw new ProjectRootError(`project root "${options.root}" ${rootProblem}`);

  const outDirOption = options.outDir === undefined ? {} : { outDir: options.outDir };
  const outDirRelative = toRootRelative(root, resolve(root, options.outDir ?? "dist"));
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  let cache = createBuildCache();

  // The in-memory cache serves every rebuild; the on-disk one would re-hash
  // every source twice per save and only helps a fresh process.
  const runBuild = (changedPaths?: string[]) =>
    build({ root, ...outDirOption, cache, persistentCache: false, ...(changedPaths ? { changedPaths } : {}) });
  const planCost = createPlanTracker(resolve(root, options.outDir ?? "dist"));

  let stopItself: (why: string) => void = () => undefined;
  const stoppedItself = new Promise<string>((resolveStop) => {
    stopItself = resolveStop;
  });

  // `rescan`: read every source again instead of only the changed paths (their list is still what the event reports).
  const rebuild = async (changedPaths: string[], rescan = false): Promise<void> => {
    const started = performance.now();
    let event: WatchEvent;
    try {
      const result = await runBuild(rescan ? undefined : changedPaths);
      event = toBuildEvent("rebuild", changedPaths, result, elapsedSince(started), planCost(result));
    } catch (error) {
      // E.g. skills/ was deleted. A build that threw may have left the cache
      // half-updated, so the next one starts cold.
      await settleBuildCache(cache);
      cache = createBuildCache();
      event = { type: "error", changedPaths, durationMs: elapsedSince(started), message: messageOf(error) };
    }
    options.onEvent(event);
    // A root moved or deleted takes the watched folders with it: no later save reaches this watch.
    const gone = event.type === "error" ? folderProblem(root) : undefined;
    if (gone !== undefined) stopItself(`the project root "${options.root}" is gone (it ${gone}): it was moved or deleted, and nothing there is watched`);
  };

  // A project the initial build cannot even read (no skills/ folder) is a
  // usage problem: watch() rejects instead of watching nothing.
  const initialBuild = async (): Promise<void> => {
    const started = performance.now();
    const result = await runBuild();
    options.onEvent(toBuildEvent("initial", [], result, elapsedSince(started), planCost(result)));
  };

  // The folders the config's `skills` names are watched too; an edit to the config that names new ones adds them.
  let layoutTops = layoutTopFolders(readSkillLayout(root));
  const followLayout = (changedPaths: readonly string[]): void => {
    if (!changedPaths.includes(CONFIG_FILE)) return;
    const before = layoutTops;
    layoutTops = layoutTopFolders(readSkillLayout(root));
    linkTargets.set(findLinks());
    if (before === "any") return;
    const added = layoutTops === "any" ? topFolders(root) : layoutTops;
    for (const top of added) if (!before.includes(top)) watcher.add(join(root, top));
  };
  // Links to folders that were (re)made under a watched folder, or whose targets came, went or were replaced, since the last build: see followRelinked.
  const relinked = new Set<string>();
  const watchedTops = (): string[] => (layoutTops === "any" ? topFolders(root) : [...new Set([...WATCHED_FOLDERS, ...layoutTops])]);
  const findLinks = (): string[] => findFolderLinks(root, watchedTops(), (rel) => isIgnoredSource(rel, outDirRelative, layoutTops, "unknown"));
  // Where each link points is watched too: a target that appears, comes back or is replaced has to be followed again.
  const linkTargets = new LinkTargetWatch(root, (link) => {
    relinked.add(link);
    queue.add(link);
  });
  const queue = new RebuildQueue(debounceMs, async (changedPaths: string[]) => {
    followLayout(changedPaths);
    const relinks = await followRelinked(changedPaths);
    await rebuild(relinks?.changedPaths ?? changedPaths, relinks !== undefined);
  });
  const { watch: watchFiles } = await import("chokidar");
  const openWatcher = () => {
    const opened = watchFiles(root, {
      ignoreInitial: true,
      // Asked first without stats, then with them: a name is judged as a file's only once chokidar knows it is one.
      ignored: (path: string, stats?: Stats) => {
        const rel = toRootRelative(root, path);
        return rel === undefined || isIgnoredSource(rel, outDirRelative, layoutTops, stats === undefined ? "unknown" : stats.isDirectory() ? "folder" : "file");
      },
    });
    opened.on("all", (eventName, path) => {
      // A folder's own event counts too: chokidar reports each file inside an added or removed folder, but an
      // empty skill folder has none, and the build reports it (skill/missing-skill-file) until it is gone.
      const rel = toRootRelative(root, path);
      if (rel !== undefined && rel !== "") queue.add(rel);
    });
    opened.on("raw", (_eventName, name, details) => noticeLink((details as { watchedPath?: unknown } | undefined)?.watchedPath, name));
    opened.on("error", (error) => {
      // A link that loops cannot be watched, and every build reports it already (skill/missing-skill-file, skill/supporting-file-skipped);
      // nor can a source file or folder without read permission, which every build reports as unreadable, naming it.
      if (UNWATCHABLE_REPORTED_BY_BUILD.has((error as NodeJS.ErrnoException).code ?? "")) return;
      options.onEvent({ type: "error", changedPaths: [], durationMs: 0, message: messageOf(error) });
    });
    return opened;
  };
  const whenReady = (opened: ReturnType<typeof watchFiles>) => new Promise<void>((resolveReady) => opened.once("ready", () => resolveReady()));

  // chokidar follows a link to a folder once, when it first sees it: a link made again under the same
  // name (`ln -sfn`, a rename over it) keeps the old target watched and reports nothing, though every
  // file under the name changed. The folder's own watcher still sees the name come back: a link to a
  // folder named there is queued as changed, and followRelinked takes it from there.
  const noticeLink = (watchedPath: unknown, name: unknown): void => {
    if (typeof watchedPath !== "string" || typeof name !== "string" || name === "" || name.includes(sep) || name.includes("/")) return;
    const path = join(watchedPath, name);
    const rel = toRootRelative(root, path);
    if (rel === undefined || rel === "" || isIgnoredSource(rel, outDirRelative, layoutTops, "unknown")) return;
    try {
      if (!lstatSync(path).isSymbolicLink()) return;
    } catch {
      return;
    }
    // A link to nothing yet: its target is watched for, and followed once it comes.
    const target = statIfPossible(path);
    if (target?.isDirectory() !== true) {
      if (target === undefined) linkTargets.add(rel);
      return;
    }
    relinked.add(rel);
    queue.add(rel);
  };

  // Before the build that follows, a fresh watcher, which follows each link to where it points now, replaces
  // the old one (after it is closed: chokidar shares one system watcher per path, which would still be the
  // old target's). A save made while the fresh one lists the folders reaches no watcher, so that build reads
  // every source again, and the event names every file under the link as changed.
  const followRelinked = async (changedPaths: string[]): Promise<{ changedPaths: string[] } | undefined> => {
    if (relinked.size === 0) return undefined;
    const links = [...relinked];
    relinked.clear();
    await watcher.close();
    watcher = openWatcher();
    await whenReady(watcher);
    linkTargets.set(findLinks());
    const paths = new Set(changedPaths);
    for (const link of links) for (const file of filesUnder(root, link)) if (!isIgnoredSource(file, outDirRelative, layoutTops)) paths.add(file);
    return { changedPaths: [...paths].sort() };
  };

  // Before the first listing: a target that comes while the watcher lists the folders is not missed.
  linkTargets.set(findLinks());
  let watcher = openWatcher();
  const ready = whenReady(watcher);
  // The first build starts only once every source is watched. Overlapping it with the folder scan lost
  // a save made right after the initial event to a file the scan had not reached yet (a large project
  // builds faster than chokidar lists it). Edits made during the build queue for the next one.
  try {
    await ready;
    await queue.runExclusive(initialBuild);
  } catch (error) {
    // The queue first: a build it lets finish may still hand over to a fresh watcher.
    await queue.close();
    linkTargets.close();
    await watcher.close();
    await settleBuildCache(cache);
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    stoppedItself,
    get watching() {
      return layoutTops === "any" ? "any" : [...new Set([...WATCHED_FOLDERS, ...layoutTops])];
    },
    close() {
      // The last build's staging folder is removed before close resolves: nothing is left behind.
      // The queue first: a build it lets finish may still hand over to a fresh watcher, which is the one to close.
      closing ??= queue
        .close()
        .then(() => {
          linkTargets.close();
          return watcher.close();
        })
        .then(() => settleBuildCache(cache));
      return closing;
    },
  };
}

function toBuildEvent(
  type: WatchBuildEvent["type"],
  changedPaths: string[],
  result: BuildResult,
  durationMs: number,
  invalidation: InvalidationCost[] | undefined,
): WatchBuildEvent {
  const event: WatchBuildEvent = {
    type,
    changedPaths,
    ok: result.ok,
    written: [...result.written].sort(),
    removed: [...result.removed].sort(),
    durationMs,
    diagnostics: result.diagnostics,
    errorCount: result.errorCount,
    warningCount: result.warningCount,
    noteCount: result.noteCount,
  };
  const prefixChange = describePrefixChange(result);
  if (prefixChange) event.prefixChange = prefixChange;
  if (invalidation) event.invalidation = invalidation;
  return event;
}

/** Only a prefix that replaces an earlier one invalidates anything: a first build has nothing cached. */
function describePrefixChange(result: BuildResult): PrefixChange | undefined {
  const before = result.previousManifest?.staticPrefix;
  if (!result.ok || !result.prefixChanged || !result.manifest || !before) return undefined;
  const after = result.manifest.staticPrefix;
  return { cacheKeyBefore: before.cacheKey, cacheKeyAfter: after.cacheKey, tokensBefore: before.tokens, tokensAfter: after.tokens };
}

/** Root-relative paths of the files under a folder (through the link it is reached by), or none when it cannot be listed; a file is itself. */
function filesUnder(root: string, rel: string): string[] {
  const found = statIfPossible(join(root, rel));
  if (found?.isDirectory() !== true) return found === undefined ? [] : [rel];
  try {
    return readdirSync(join(root, rel), { recursive: true, withFileTypes: true })
      .filter((entry) => !entry.isDirectory())
      .map((entry) => toRootRelative(root, join(entry.parentPath, entry.name)))
      .filter((path): path is string => path !== undefined);
  } catch {
    return [];
  }
}

function topFolders(root: string): string[] {
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

function elapsedSince(started: number): number {
  return Math.round(performance.now() - started);
}
