/**
 * JSON text that depends only on the data: 2-space indent, LF, one trailing
 * newline. Object keys are sorted unless the caller keeps author order (for
 * values where key order carries meaning).
 */
export function canonicalJson(value: unknown, options: { sortKeys: boolean } = { sortKeys: true }): string {
  return `${JSON.stringify(options.sortKeys ? sortKeysDeep(value) : value, null, 2)}\n`;
}

/**
 * A value with every object's keys in sorted order. A list or object that is
 * already so is returned as it is: the manifest of a large project is built
 * mostly in sorted order, and copying it on every watch rebuild only made
 * garbage.
 */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const sortedItem = sortKeysDeep(item);
      if (sortedItem !== item) copy ??= value.slice(0, index);
      copy?.push(sortedItem);
    }
    return copy ?? value;
  }
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    const items = keys.map((key) => sortKeysDeep(record[key]));
    const prototype: unknown = Object.getPrototypeOf(value);
    // Only a plain object may stand for itself: JSON.stringify treats others (a Date, say) differently.
    let same = prototype === Object.prototype || prototype === null;
    for (let index = 0; index < keys.length && same; index++) {
      same = items[index] === record[keys[index] as string] && (index === 0 || (keys[index - 1] as string) < (keys[index] as string)) && keys[index] !== "__proto__";
    }
    if (same) return value;
    const order = keys.map((_, index) => index).sort((a, b) => ((keys[a] as string) < (keys[b] as string) ? -1 : 1));
    const sorted: Record<string, unknown> = {};
    for (const index of order) {
      const key = keys[index] as string;
      const item = items[index];
      // Plain assignment is several times faster (the manifest of a large project is sorted on every
      // watch rebuild); only `__proto__` needs defining, or it would set the prototype instead.
      if (key === "__proto__") Object.defineProperty(sorted, key, { value: item, enumerable: true, writable: true, configurable: true });
      else sorted[key] = item;
    }
    return sorted;
  }
  return value;
}
