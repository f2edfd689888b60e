import type { InvalidationCost } from "../cost/invalidation.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";

/**
 * What `watch()` reports, as plain data. The CLI prints these; editor
 * integrations receive them verbatim as JSON lines.
 */
export type WatchEvent = WatchBuildEvent | WatchErrorEvent;

/**
 * The static prefix's cache key moved away from the one dist/ held: every
 * variant's provider-side prefix cache is now cold. `tokens*` count the
 * static prefix (o200k_base).
 */
export interface PrefixChange {
  cacheKeyBefore: string;
  cacheKeyAfter: string;
  tokensBefore: number;
  tokensAfter: number;
}

export interface WatchBuildEvent {
  /** `initial` for the build on start, `rebuild` for every build a change triggered. */
  type: "initial" | "rebuild";
  /** Root-relative POSIX paths that changed since the previous build, sorted; empty for `initial`. */
  changedPaths: string[];
  /** False when the sources have errors; dist/ then still holds the last good build. */
  ok: boolean;
  /** dist-relative paths rewritten or newly created, sorted. */
  written: string[];
  /** dist-relative paths deleted because no source produces them any more, sorted. */
  removed: string[];
  /** Wall-clock time of the build, in whole milliseconds. */
  durationMs: number;
  diagnostics: Diagnostic[];
  errorCount: number;
  warningCount: number;
  /** Notes never fail a build. */
  noteCount: number;
  /** Present only when the build succeeded and replaced a static prefix with a different one. */
  prefixChange?: PrefixChange;
  /** Present when the build replaced cached blocks (any variant's): what that costs until the cache is warm again. */
  invalidation?: InvalidationCost[];
}

/** The build itself failed (not the sources): an internal fault or an unreadable folder. */
export interface WatchErrorEvent {
  type: "error";
  changedPaths: string[];
  durationMs: number;
  message: string;
}
