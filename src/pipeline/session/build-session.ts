import { UsedEntries } from "./used-entries.js";

/**
 * The one reuse object of the compiler. Every build runs in a session: a
 * one-shot build makes a fresh one and drops it, watch mode keeps one across
 * rebuilds. Stages stay functions of their inputs; what they may reuse is
 * asked of the session under a typed slot that the stage declares itself, so
 * this module knows nothing of any stage. Every entry is keyed by the exact
 * inputs it was computed from, so a hit gives the same result as computing
 * again: the build is faster, never different.
 */

/** A typed place in a session, declared by the stage that fills it. */
export interface Slot<V> {
  readonly name: string;
  /** Never set: carries the value type. */
  readonly valueType?: V;
}

export function defineSlot<V>(name: string): Slot<V> {
  return { name };
}

/** A long-lived object kept in a session may tidy itself up after each build. */
export interface EndsBuild {
  endBuild(): void;
}

/** `compute`'s result for `key`, reused while the key is unchanged. */
export type Reuse<V> = (key: string, compute: () => V) => V;

export interface BuildSessionOptions {
  /** The session serves successive builds of one project (watch mode). */
  repeated?: boolean;
}

export class BuildSession {
  /** True when the session serves successive builds (watch); a one-shot build does not pay for checks that pay off only later. */
  readonly repeated: boolean;
  private readonly perKey = new Map<Slot<unknown>, UsedEntries<string, unknown>>();
  private readonly latest = new Map<Slot<unknown>, { key: string; value: unknown }>();
  private readonly kept = new Map<Slot<unknown>, unknown>();

  constructor(options: BuildSessionOptions = {}) {
    this.repeated = options.repeated ?? false;
  }

  /** Reuses a value per key; entries the latest build did not use are dropped when it ends. */
  reuse<V>(slot: Slot<V>, key: string, compute: () => NoInfer<V>): V {
    let entries = this.perKey.get(slot) as UsedEntries<string, V> | undefined;
    if (!entries) {
      entries = new UsedEntries<string, V>();
      this.perKey.set(slot, entries as UsedEntries<string, unknown>);
    }
    const known = entries.get(key);
    if (known !== undefined) return known;
    const value = compute();
    entries.set(key, value);
    return value;
  }

  /** The slot's reuse bound to it, for a stage that takes a {@link Reuse} function. */
  reuser<V>(slot: Slot<V>): Reuse<V> {
    return (key, compute) => this.reuse(slot, key, compute);
  }

  /** Keeps one value per slot: the last key's. For results of a whole input set (templates, config). */
  reuseLatest<V>(slot: Slot<V>, key: string, compute: () => NoInfer<V>): V {
    const known = this.latest.get(slot);
    if (known?.key === key) return known.value as V;
    const value = compute();
    this.latest.set(slot, { key, value });
    return value;
  }

  /** The slot's kept value, if something made one: for a stage that uses a cache only when one is offered. */
  find<V>(slot: Slot<V>): V | undefined {
    return this.kept.get(slot) as V | undefined;
  }

  /** A long-lived object a stage manages itself (a cache, a memory of dist/), made on first use. */
  keep<V>(slot: Slot<V>, create: () => NoInfer<V>): V {
    if (this.kept.has(slot)) return this.kept.get(slot) as V;
    const value = create();
    this.kept.set(slot, value);
    return value;
  }

  /** Forgets a kept object, e.g. when what it describes can no longer be trusted. */
  forget(slot: Slot<unknown>): void {
    this.kept.delete(slot);
    this.latest.delete(slot);
    this.perKey.delete(slot);
  }

  /**
   * Ends a build: drops what it did not use, so a long session holds one build's worth. A build that
   * failed before a stage ran used nothing of that stage's: what the stage holds is kept for the next build.
   */
  endBuild(): void {
    for (const entries of this.perKey.values()) entries.dropUnused();
    for (const value of this.kept.values()) if (endsBuild(value)) value.endBuild();
  }
}

function endsBuild(value: unknown): value is EndsBuild {
  return typeof value === "object" && value !== null && typeof (value as Partial<EndsBuild>).endBuild === "function";
}
