/** One edit of a single line; it may return several lines. */
export type LineEdit = (line: string) => string;

/**
 * Variations that stay close to a text: every non-empty line changed by every
 * edit, one at a time, the rest of the text as it was. Readers that answer only
 * for a subset of a format are held to the full parser on these.
 */
export function nearMisses(text: string, edits: readonly LineEdit[]): string[] {
  const lines = text.split("\n");
  const out: string[] = [];
  lines.forEach((line, position) => {
    if (line === "") return;
    for (const edit of edits) out.push([...lines.slice(0, position), edit(line), ...lines.slice(position + 1)].join("\n"));
  });
  return out;
}
