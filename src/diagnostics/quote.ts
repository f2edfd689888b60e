/**
 * A value quoted for a diagnostic message. A hostile source can hold a string
 * of a megabyte; messages show its start and its length instead, so one finding
 * stays one readable line.
 */
export const QUOTE_LIMIT = 80;

export function quoted(text: string): string {
  const codePoints = [...text.slice(0, QUOTE_LIMIT * 2 + 2)];
  if (codePoints.length <= QUOTE_LIMIT) return JSON.stringify(text);
  return `${JSON.stringify(codePoints.slice(0, QUOTE_LIMIT).join(""))}… (${[...text].length} code points)`;
}
