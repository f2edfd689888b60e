import { isMapping } from "../parse/parse.js";
import { splitFrontmatter } from "../parse/frontmatter.js";
import { LineIndex } from "../parse/positions.js";
import { parseWithYamlLibrary } from "../parse/yaml-tree.js";
import { overlapping, type PlannedFix, type TextEdit } from "./planned-fix.js";

/**
 * Applies planned fixes to a file's own bytes. Edits are planned on the
 * normalised text (LF, no BOM); here they are mapped onto the raw text, so
 * the BOM, every CRLF or lone CR, comments and key order stay as they were,
 * and an inserted line ends the way the lines around it end.
 */

export interface AppliedFixes {
  /** The fixes kept: each reads back as the value it promises, alone and together. */
  fixes: PlannedFix[];
  /** The new normalised text (what lint reads). */
  text: string;
  /** The new file content, BOM and line endings as they were. */
  raw: string;
}

/**
 * `raw` is the decoded file with its BOM (if any) as its first character. `dropped`, when given, receives the
 * planned fixes left out because the file would not read back as they promise.
 */
export function applyFixes(text: string, raw: string, planned: readonly PlannedFix[], dropped?: PlannedFix[]): AppliedFixes | undefined {
  const before = frontmatterValue(text);
  if (before === undefined) return undefined;
  const fixes = planned.filter((fix) => readsBackAs(text, [fix], before));
  dropped?.push(...planned.filter((fix) => !fixes.includes(fix)));
  if (fixes.length === 0) return undefined;
  if (!readsBackAs(text, fixes, before)) {
    dropped?.push(...fixes);
    return undefined;
  }
  const edits = fixes.flatMap((fix) => fix.edits);
  const written = applyEdits(raw, edits.map((edit) => toRawEdit(raw, edit)));
  const withoutMark = fixes.some((fix) => fix.dropsByteOrderMark === true) && written.startsWith("\ufeff");
  return { fixes, text: applyEdits(text, edits), raw: withoutMark ? written.slice(1) : written };
}

/** True when the edits leave the body alone and the frontmatter reads back as `before` with each fix's change. */
function readsBackAs(text: string, fixes: readonly PlannedFix[], before: Record<string, unknown>): boolean {
  const edits = fixes.flatMap((fix) => fix.edits);
  if (overlapping(edits)) return false;
  const after = applyEdits(text, edits);
  const expected = structuredClone({ ...before });
  for (const fix of fixes) fix.expect(expected);
  const value = frontmatterValue(after);
  return value !== undefined && sameValue(value, expected) && bodyOf(after) === bodyOf(text);
}

function frontmatterValue(text: string): Record<string, unknown> | undefined {
  const index = new LineIndex(text);
  const split = splitFrontmatter(index);
  if ("ruleId" in split) return undefined;
  const tree = parseWithYamlLibrary(text.slice(split.yamlStart, split.yamlEnd), split.yamlStart, index);
  if (Array.isArray(tree) || !isMapping(tree.value)) return undefined;
  return tree.value;
}

/** Everything from the closing `---` on: no fix may change it. */
function bodyOf(text: string): string | undefined {
  const index = new LineIndex(text);
  const split = splitFrontmatter(index);
  return "ruleId" in split ? undefined : text.slice(index.lineStart(split.closing.start.line));
}

function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let result = text;
  // From the end, so earlier offsets stay valid.
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) result = result.slice(0, edit.start) + edit.insert + result.slice(edit.end);
  return result;
}

/**
 * The same edit on the raw text: offsets moved past the BOM and every CR, inserted line breaks written as the
 * neighbouring line ends (a file whose lines end in different ways keeps each part as it was): an edit at a
 * line's start as the line before it ends, any other as the line it is in ends.
 */
function toRawEdit(raw: string, edit: TextEdit): TextEdit {
  const start = rawOffset(raw, edit.start);
  const end = rawOffset(raw, edit.end);
  const before = raw[start - 1] === "\n" ? (raw[start - 2] === "\r" ? "\r\n" : "\n") : raw[start - 1] === "\r" ? "\r" : undefined;
  const lineBreak = before ?? /\r\n|\r|\n/.exec(raw.slice(end))?.[0] ?? /\r\n|\r|\n/.exec(raw)?.[0] ?? "\n";
  return { start, end, insert: edit.insert.replace(/\n/g, lineBreak) };
}

function rawOffset(raw: string, normalised: number): number {
  let position = raw.startsWith("\ufeff") ? 1 : 0;
  for (let count = 0; count < normalised && position < raw.length; count++) position += raw[position] === "\r" && raw[position + 1] === "\n" ? 2 : 1;
  return position;
}

/** Deep equality of plain YAML data (null-prototype mappings, lists, scalars); key order is not part of it. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, position) => sameValue(item, b[position]));
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  return aKeys.length === bKeys.length && aKeys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}
