/**
 * How a document (a transcript entry, a state record, a snapshot, an event)
 * is kept in a `jsonb` column. `jsonb` stores an object with its keys
 * reordered, and refuses a NUL character (`\u0000`) and a lone surrogate,
 * which Pi's messages can hold (a tool's output of a binary file). A session
 * read back from such a column would then send other bytes than the server
 * that wrote it (a tool call's input with its keys moved breaks the cached
 * prefix there), or could not be written at all, and so never resumed.
 *
 * So a document is stored as its JSON text, inside a `jsonb` string: the
 * text keeps its keys in order and its characters as escapes, and reading it
 * back gives the same value. A row that holds an object (written before this
 * form, or by hand) is read as it is; no document is a bare string.
 */

/** The value to give a `jsonb` parameter, or to put in a batch that SQL unpacks into `jsonb` columns. */
export function storedDocument(value: unknown): string {
  return JSON.stringify(value);
}

/** The document a `jsonb` column held, as written. */
export function documentOf(stored: unknown): unknown {
  return typeof stored === "string" ? (JSON.parse(stored) as unknown) : stored;
}

/** `storedDocument` as a `jsonb` parameter's own text: a JSON string holding the document's JSON text. */
export function documentParameter(value: unknown): string {
  return JSON.stringify(storedDocument(value));
}
