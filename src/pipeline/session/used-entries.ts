/**
 * A map that keeps only what the latest build used: every entry not read or
 * written since the previous `dropUnused()` is dropped then, so a long
 * session holds one build's worth of results, not its whole history.
 */
export class UsedEntries<K, V> {
  private readonly entries = new Map<K, V>();
  private readonly touched = new Set<K>();

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) this.touched.add(key);
    return value;
  }

  set(key: K, value: V): void {
    this.entries.set(key, value);
    this.touched.add(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops what was not used since the last call; when nothing was (the build stopped before its stage), keeps all. */
  dropUnused(): void {
    if (this.touched.size === 0) return;
    for (const key of this.entries.keys()) if (!this.touched.has(key)) this.entries.delete(key);
    this.touched.clear();
  }
}
