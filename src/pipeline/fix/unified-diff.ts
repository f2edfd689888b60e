/**
 * A unified diff (`diff -u`, `git apply`) of one file's old and new text,
 * for `lint --fix-dry-run`. Lines keep their own endings, so a CRLF file's
 * diff applies to it as it is. Fixes touch a few frontmatter lines: the
 * common head and tail are cut first and only the middle is compared.
 */

const CONTEXT = 3;
/** Past this many changed lines on a side, the middle is shown as removed and added whole. */
const MAX_COMPARED_LINES = 2000;

type Operation = { kind: " " | "-" | "+"; text: string };

/** The diff of every fixed file, each under the path `displayPath` gives it (default: as recorded, root-relative). */
export function fixesDiff(files: ReadonlyArray<{ file: string; before: string; after: string }>, displayPath: (file: string) => string = (file) => file): string {
  return files.map((fixed) => unifiedDiff(displayPath(fixed.file), fixed.before, fixed.after)).join("");
}

export function unifiedDiff(path: string, before: string, after: string): string {
  if (before === after) return "";
  const operations = diffLines(splitLines(before), splitLines(after));
  const hunks: string[] = [];
  let index = 0;
  while (index < operations.length) {
    const firstChange = operations.findIndex((operation, position) => position >= index && operation.kind !== " ");
    if (firstChange === -1) break;
    const start = Math.max(index, firstChange - CONTEXT);
    // Extend while the next change is within two contexts of the last one.
    let end = firstChange;
    for (let position = firstChange; position < operations.length; position++) {
      if (operations[position]?.kind !== " ") end = position;
      else if (position - end > 2 * CONTEXT) break;
    }
    const stop = Math.min(operations.length, end + CONTEXT + 1);
    hunks.push(formatHunk(operations, start, stop));
    index = stop;
  }
  return `--- ${diffPath("a/", path)}\n+++ ${diffPath("b/", path)}\n${hunks.join("")}`;
}

/** The C escapes git writes for these in a quoted path; other control characters are written in octal. */
const NAMED_ESCAPES: Readonly<Record<string, string>> = { "\x07": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\" };

/**
 * A path in a diff's header as git writes it: as it is, unless it holds a
 * control character, a double quote or a backslash; then in double quotes
 * with C escapes, which `git apply` reads back. A raw line feed in a file's
 * name would end the header line and a raw escape sequence would reach the
 * terminal.
 */
function diffPath(side: "a/" | "b/", path: string): string {
  const name = side + path;
  if (!/[\u0000-\u001f\u007f"\\]/.test(name)) return name;
  const escaped = name.replace(/[\u0000-\u001f\u007f"\\]/g, (character) => NAMED_ESCAPES[character] ?? `\\${character.charCodeAt(0).toString(8).padStart(3, "0")}`);
  return `"${escaped}"`;
}

function formatHunk(operations: readonly Operation[], start: number, stop: number): string {
  let oldLine = 1;
  let newLine = 1;
  for (const operation of operations.slice(0, start)) {
    if (operation.kind !== "+") oldLine++;
    if (operation.kind !== "-") newLine++;
  }
  const slice = operations.slice(start, stop);
  const oldCount = slice.filter((operation) => operation.kind !== "+").length;
  const newCount = slice.filter((operation) => operation.kind !== "-").length;
  const header = `@@ -${oldCount === 0 ? oldLine - 1 : oldLine},${oldCount} +${newCount === 0 ? newLine - 1 : newLine},${newCount} @@\n`;
  const lines = slice.map((operation) => {
    const line = `${operation.kind}${operation.text}`;
    return line.endsWith("\n") ? line : `${line}\n\\ No newline at end of file\n`;
  });
  return header + lines.join("");
}

/**
 * Lines as diff and `git apply` read them: each up to and with its line feed
 * (a CRLF line keeps its CR). A lone CR ends no line for them, so a file
 * whose lines end in lone CRs is one line here too, or the diff would not
 * apply.
 */
function splitLines(text: string): string[] {
  return text === "" ? [] : text.split(/(?<=\n)/);
}

function diffLines(before: readonly string[], after: readonly string[]): Operation[] {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const same = (text: string): Operation => ({ kind: " ", text });
  const middle = middleOperations(before.slice(head, before.length - tail), after.slice(head, after.length - tail));
  return [...before.slice(0, head).map(same), ...middle, ...before.slice(before.length - tail).map(same)];
}

/** A longest-common-subsequence walk over the changed middle. */
function middleOperations(before: readonly string[], after: readonly string[]): Operation[] {
  if (before.length > MAX_COMPARED_LINES || after.length > MAX_COMPARED_LINES) {
    return [...before.map((text): Operation => ({ kind: "-", text })), ...after.map((text): Operation => ({ kind: "+", text }))];
  }
  const width = after.length + 1;
  const lengths = new Uint32Array((before.length + 1) * width);
  for (let i = before.length - 1; i >= 0; i--) {
    for (let j = after.length - 1; j >= 0; j--) {
      lengths[i * width + j] = before[i] === after[j] ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1 : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
    }
  }
  const operations: Operation[] = [];
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    if (i < before.length && j < after.length && before[i] === after[j]) {
      operations.push({ kind: " ", text: before[i++] ?? "" });
      j++;
    } else if (i < before.length && (j === after.length || (lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0))) {
      operations.push({ kind: "-", text: before[i++] ?? "" });
    } else {
      operations.push({ kind: "+", text: after[j++] ?? "" });
    }
  }
  return operations;
}
