/** A JSON object: not null, not an array (the one check every boundary reader uses). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
