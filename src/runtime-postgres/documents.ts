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
 *
 * Every document is an object, so these two forms are the only ones this
 * version reads. Any other `jsonb` value (an array, a number, a boolean, a
 * null), or JSON text of anything but an object, is a form another version of
 * the package wrote: it is named as such (StoredFormatError), never taken for
 * a missing record or a malformed event. A later version that changes what a
 * row holds stores it in such a form, so this version says so rather than
 * misreading it. (A jsonb string that is not JSON text is a row cut short or
 * edited by hand.)
 */
import { StateStoreError } from "../runtime/state/errors.js";
import { StoredFormatError } from "./errors.js";
import { messageOf } from "../protocol/error-message.js";

/** The value to give a `jsonb` parameter, or to put in a batch that SQL unpacks into `jsonb` columns. */
export function storedDocument(value: unknown): string {
  return JSON.stringify(value);
}

/** `storedDocument` as a `jsonb` parameter's own text: a JSON string holding the document's JSON text. */
export function documentParameter(value: unknown): string {
  return JSON.stringify(storedDocument(value));
}

/** What a stored `jsonb` value holds: a document, a form of another version (described), or text that is not JSON. */
export type StoredForm = { document: Record<string, unknown> } | { foreign: string } | { broken: string };

/** Reads a stored `jsonb` value without throwing. */
export function storedForm(stored: unknown): StoredForm {
  if (isObject(stored)) return { document: stored };
  if (typeof stored !== "string") return { foreign: `a jsonb ${kindOf(stored)}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored) as unknown;
  } catch (error) {
    return { broken: messageOf(error) };
  }
  return isObject(parsed) ? { document: parsed } : { foreign: `JSON text of ${withArticle(kindOf(parsed))} in a jsonb string` };
}

/**
 * The document a session's row holds, or the error naming the row: StoredFormatError
 * for another version's form, StateStoreError for text that is not JSON.
 */
export function documentIn(stored: unknown, sessionKey: string, row: string): Record<string, unknown> {
  const form = storedForm(stored);
  if ("document" in form) return form.document;
  if ("foreign" in form) throw new StoredFormatError(sessionKey, row, form.foreign);
  throw new StateStoreError(`session ${sessionKey}`, `Unexpected ${row} that is not JSON text (${form.broken}), expected a document as gamma-prompt stores it: the row was cut short or edited by hand`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  return Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
}

function withArticle(kind: string): string {
  return kind === "null" ? "null" : kind === "array" ? "an array" : `a ${kind}`;
}
