/**
 * What would act on a terminal or a CI log instead of showing as text: C0
 * controls (line breaks and ESC among them), DEL, C1 controls, the Unicode
 * line and paragraph separators, and the bidirectional controls (they
 * reorder what a reader sees, so one name could show as another).
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text as a human-readable report prints it: each character above shown as
 * its JSON escape (`\u001b`), as `quoted` shows a control character, so a
 * file or folder name stays one line of plain text whatever it holds. Every
 * diagnostic message goes through here when it is made, keeping its tabs
 * and line breaks for the reporter to flatten or escape as its format
 * requires; a name printed as found on disk keeps nothing.
 */
export function escapeControls(text: string, options: { keepLineBreaks?: boolean } = {}): string {
  return text.replace(UNPRINTABLE, (character) =>
    options.keepLineBreaks === true && (character === "\t" || character === "\n" || character === "\r") ? character : `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`,
  );
}

/** A message as one row of a human-readable report: line breaks from hostile input must not forge extra rows. */
export function messageRow(message: string): string {
  return message.replace(/[\r\n]+/g, " ");
}
