/**
 * JSON text that depends only on the data: 2-space indent, LF, one trailing
 * newline. Object keys are sorted unless the caller keeps author order (for
 * values where key order carries meaning).
 */
export function canonicalJson(value: unknown, options: { sortKeys: boolean } = { sortKeys: true }): string {
  return `${JSON.stringify(options.sortKeys ? sortKeysDeep(value) : value, null, 2)}\n`;
}

export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (typeof value === "object" && value !== null) {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const item = sortKeysDeep((value as Record<string, unknown>)[key]);
      // Plain assignment is several times faster (the manifest of a large project is sorted on every
      // watch rebuild); only `__proto__` needs defining, or it would set the prototype instead.
      if (key === "__proto__") Object.defineProperty(sorted, key, { value: item, enumerable: true, writable: true, configurable: true });
      else sorted[key] = item;
    }
    return sorted;
  }
  return value;
}
