/** The quiet period before a rebuild, in a module of its own so the CLI can check `--debounce` without loading the watcher. */
export const DEFAULT_DEBOUNCE_MS = 100;
/**
 * chokidar drops (not delays) a second `change` for the same file within
 * 50 ms. A debounce longer than that guarantees the build starts after any
 * dropped write, so it still reads the latest bytes.
 */
export const MIN_DEBOUNCE_MS = 60;
/**
 * The longest quiet period `watch --debounce` and `lsp --debounce` take: one
 * minute. A longer pause is no debounce, and past 2^31-1 ms Node's timers
 * would fire after 1 ms instead.
 */
export const MAX_DEBOUNCE_MS = 60_000;
