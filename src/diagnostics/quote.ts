import { escapeControls } from "./printable.js";

/**
 * A value quoted for a diagnostic message. A hostile source can hold a string
 * of a megabyte; messages show its start and its length instead, so one finding
 * stays one readable line.
 */
export const QUOTE_LIMIT = 80;

export function quoted(text: string): string {
  return quotedUpTo(text, QUOTE_LIMIT);
}

/** `quoted` with another bound; one argument each, so `list.map(quoted)` cannot pass an index as the bound. */
function quotedUpTo(text: string, limit: number): string {
  const head = cutAt(text, limit);
  return head === undefined ? JSON.stringify(text) : `${JSON.stringify(head)}… (${[...text].length} code points)`;
}

/** How much of a parser's reason a message quotes. */
export const PARSER_REASON_LIMIT = 200;

/**
 * A phrase of someone else's (a parser's reason, which can quote the rest of a line a megabyte long) at most
 * `limit` code points, the rest told by its length; unquoted, as it reads as part of the message.
 */
export function shortened(text: string, limit: number): string {
  const head = cutAt(text, limit);
  return head === undefined ? text : `${head}… (${[...text].length} code points)`;
}

/** The first `limit` code points of a longer text, or undefined when it is no longer (only its start is split). */
function cutAt(text: string, limit: number): string | undefined {
  const codePoints = [...text.slice(0, limit * 2 + 2)];
  return codePoints.length <= limit ? undefined : codePoints.slice(0, limit).join("");
}

/**
 * How long a path lint resolved may be before a message cuts it: far beyond
 * any path a project holds (plugin marketplaces nest skills well past 80 code
 * points), yet a bound, since a link target of a megabyte resolves to a path
 * as long.
 */
export const PATH_LIMIT = 1024;

/**
 * A path lint resolved or read from disk (where it looked for a link's file,
 * a file's own spelling), for a message. It is not text a user wrote but the
 * place the reader has to find, so it is shown whole up to PATH_LIMIT code
 * points, each control character as its escape (printable.ts); a longer one
 * is quoted and cut as `quoted` cuts a value.
 */
export function shownPath(path: string): string {
  const codePoints = [...path.slice(0, PATH_LIMIT * 2 + 2)];
  if (codePoints.length <= PATH_LIMIT) return escapeControls(path);
  return quotedUpTo(path, PATH_LIMIT);
}

/** A path lint resolved, in quotes (JSON escapes), cut only past PATH_LIMIT code points. */
export function quotedPath(path: string): string {
  return quotedUpTo(path, PATH_LIMIT);
}
