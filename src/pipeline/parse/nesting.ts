/**
 * How deep arrays, objects and flow collections may nest in a YAML or JSON
 * source. Real manifests, variants and tool schemas need a handful of levels;
 * the YAML parser and every later step recurse per level and run out of stack
 * past about a thousand. The scans here are single passes without recursion,
 * so the limit holds whatever the depth.
 */
export const MAX_NESTING_DEPTH = 100;

/** The finding's words, the same for every source kind. */
export const NESTING_MESSAGE = `Unexpected collection nested deeper than ${MAX_NESTING_DEPTH} levels, expected at most ${MAX_NESTING_DEPTH} nested lists and mappings`;

/** The offset of the first `[` or `{` that opens past MAX_NESTING_DEPTH in JSON text (strings skipped). */
export function jsonNestingOverflow(text: string): number | undefined {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (inString) {
      if (char === "\\") at++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "[" || char === "{") {
      if (++depth > MAX_NESTING_DEPTH) return at;
    } else if (char === "]" || char === "}") depth = Math.max(0, depth - 1);
  }
  return undefined;
}

/**
 * Whether the YAML library gave up for lack of stack: it catches the
 * RangeError and reports its text as a parse error. Nesting the scan's floor
 * does not count (a sequence under a quoted key, say) ends there; the author
 * is told about the nesting, not about the engine's stack.
 */
export function isStackExhaustion(message: string): boolean {
  return /maximum call stack/i.test(message);
}
