/**
 * Turns a stream of changed paths into a sequence of builds: a burst of
 * changes within `debounceMs` becomes one build, a build never overlaps
 * another, and changes that arrive while a build runs are collected for the
 * next one. The build function is never called with an empty batch.
 */
export class RebuildQueue {
  readonly #pending = new Set<string>();
  readonly #debounceMs: number;
  readonly #runBuild: (changedPaths: string[]) => Promise<void>;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(debounceMs: number, runBuild: (changedPaths: string[]) => Promise<void>) {
    this.#debounceMs = debounceMs;
    this.#runBuild = runBuild;
  }

  /** Records a changed path and (re)starts the debounce window. */
  add(path: string): void {
    if (this.#closed) return;
    this.#pending.add(path);
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, this.#debounceMs);
  }

  /**
   * Runs `task` (e.g. the initial build) as if it were a build: queued changes
   * wait for it, and a flush that comes due meanwhile runs right after it.
   */
  runExclusive(task: () => Promise<void>): Promise<void> {
    const run = (this.#running ?? Promise.resolve()).then(task);
    this.#track(run);
    return run;
  }

  /** True while a build runs or changes wait for one. */
  get busy(): boolean {
    return this.#running !== undefined || this.#pending.size > 0;
  }

  /** Drops pending changes and resolves once the build in flight (if any) has finished. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending.clear();
    while (this.#running) await this.#running;
  }

  #flush(): void {
    // A running build re-checks the queue when it ends; starting here would overlap it.
    if (this.#closed || this.#running || this.#pending.size === 0) return;
    const batch = [...this.#pending].sort();
    this.#pending.clear();
    this.#track(this.#runBuild(batch));
  }

  #track(run: Promise<void>): void {
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#running = settled;
    void settled.then(() => {
      if (this.#running !== settled) return;
      this.#running = undefined;
      // Changes that came in during the build: if their debounce window has
      // already closed, build now; otherwise the pending timer will.
      if (this.#timer === undefined) this.#flush();
    });
  }
}
