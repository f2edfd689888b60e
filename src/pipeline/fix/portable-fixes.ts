import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { RuleId } from "../../diagnostics/rules/index.js";
import { isMapping, type ParsedSkillFile } from "../parse/parse.js";
import { tokensOf, type WrittenField } from "../parse/design-fields.js";
import { quoteIfNeeded } from "../validate/allowed-tools.js";
import { allowedToolsOf, frontmatterComments, portableYamlProblems } from "../validate/portable-yaml.js";
import { isSuppressionComment } from "../validate/suppressions.js";
import type { DeclinedFix, FixSite, PlannedFix, TextEdit } from "./planned-fix.js";

/**
 * The fixes that make a SKILL.md portable:
 * - the design's top-level fields move under metadata as their portable keys
 *   (`type: workflow` → `gamma-type: workflow`, a list → one space-separated
 *   string, an empty list left out). Each field's lines are removed where
 *   they were, and the entries are written, in the fields' order, at the end
 *   of an existing metadata block or, without one, in a new block at the end
 *   of the frontmatter.
 *   Comments move with their field (a comment on the lines just above it, or
 *   inside a list, becomes a comment line above the entry; one after a
 *   one-line value stays after it); every other byte stays where it was.
 * - a construct the reference validator cannot read is rewritten when the
 *   value stays the same (see validate/portable-yaml.ts).
 */

export const PORTABLE_MANIFEST_RULES: ReadonlySet<RuleId> = new Set<RuleId>(["skill/portable-manifest", "skill/manifest-spelling"]);

interface Span {
  /** Offset of the first line's start and of the line after the last. */
  start: number;
  end: number;
}

export function planPortableManifest(parsed: ParsedSkillFile, site: FixSite, declined?: DeclinedFix[]): PlannedFix | undefined {
  const { split, tree, index, spellings } = parsed;
  if (!split || !tree || !spellings || !isMapping(tree.value)) return undefined;
  const moving = spellings.written.filter((field) => field.topLevel !== undefined);
  if (moving.length === 0) return undefined;
  const entries: string[] = [];
  const moved: Array<{ field: WrittenField; span: Span; value: string | undefined }> = [];
  const comments = frontmatterComments(split, index, tree.margin);
  const text = index.text;
  const lineStartOf = (offset: number): number => text.lastIndexOf("\n", offset - 1) + 1;
  const nextLineStart = (offset: number): number => {
    const lineEnd = text.indexOf("\n", offset);
    return lineEnd === -1 ? text.length : lineEnd + 1;
  };
  const offsetOf = (line: number, column: number): number => index.lineStart(line) + column - 1;
  let indent = "  ";
  let insertAt: number | undefined;
  if (tree.value["metadata"] !== undefined) {
    const place = metadataEnd(parsed);
    if (!place) return undefined;
    ({ indent, at: insertAt } = place);
  }
  for (const field of moving) {
    const place = field.topLevel;
    if (!place || place.keyRange.start.column !== 1) return undefined;
    const value = portableValue(field);
    // A value no metadata string can hold (a mapping, a name with a space), or two spellings that disagree: a person decides.
    if (value === null) return undefined;
    const keyStart = offsetOf(place.keyRange.start.line, 1);
    const last = place.valueRange ?? place.keyRange;
    let start = keyStart;
    // Comment lines right above the key (unindented, as the key is) belong to it.
    while (start > split.yamlStart) {
      const previous = lineStartOf(start - 1);
      if (!text.startsWith("#", previous)) break;
      start = previous;
    }
    // Whole lines, to the end of the value's last one: a comment after the value goes with the field too.
    const end = Math.min(nextLineStart(offsetOf(last.end.line, last.end.column)), split.yamlEnd);
    const span = { start, end };
    const inside = comments.filter((comment) => comment.start >= start && comment.end <= end);
    const oneLine = place.keyRange.start.line === last.end.line;
    // A suppression comment covers the next line and the value starting there. Among a value's several lines
    // it covers one item; above them, the key's line alone: moved above the one entry line the fix writes, it
    // would cover every item, and hide findings it does not hide now.
    const directive = oneLine ? undefined : inside.find((comment) => isSuppressionComment(text.slice(comment.start, comment.end)));
    if (directive) {
      declined?.push({ ...site, reason: `${field.spelling.field} is left for a person: the suppression comment on line ${index.position(directive.start).line} would cover the one line --fix writes under metadata, and hide findings it does not hide now` });
      return undefined;
    }
    const trailing = oneLine ? inside.find((comment) => comment.start > keyStart) : undefined;
    for (const comment of inside) if (comment !== trailing) entries.push(`${indent}${text.slice(comment.start, comment.end)}`);
    if (value !== undefined && field.portable === undefined) {
      const after = trailing ? `${text.slice(offsetOf(last.end.line, last.end.column), trailing.start).replace(/[^ \t]/g, "")}${text.slice(trailing.start, trailing.end)}` : "";
      entries.push(`${indent}${field.spelling.portableKey}: ${value}${after}`);
    } else if (trailing) entries.push(`${indent}${text.slice(trailing.start, trailing.end)}`);
    moved.push({ field, span, value });
  }
  const edits: TextEdit[] = moved.map(({ span }) => ({ start: span.start, end: span.end, insert: "" }));
  const creates = insertAt === undefined && moved.some(({ field, value }) => value !== undefined && field.portable === undefined);
  // Without a metadata block, one is written at the end of the frontmatter; comments of fields that need no entry stay unindented.
  const block = `${creates ? "metadata:\n" : ""}${entries.map((line) => `${insertAt === undefined && !creates ? line.trimStart() : line}\n`).join("")}`;
  const at = insertAt ?? split.yamlEnd;
  const touching = edits.find((edit) => edit.start === at || edit.end === at);
  if (touching) touching.insert = block;
  else if (block !== "") edits.push({ start: at, end: at, insert: block });
  edits.sort((a, b) => a.start - b.start);
  const names = moved.map(({ field }) => field.spelling);
  const dropped = moved.filter(({ value }) => value === undefined).map(({ field }) => field.spelling.field);
  const written = moved.filter(({ field, value }) => value !== undefined && field.portable === undefined).map(({ field }) => field.spelling);
  const message = `moved ${list(names.map((spelling) => spelling.field))} under metadata${written.length > 0 ? ` as ${list(written.map((spelling) => spelling.portableKey))}` : ""}${dropped.length > 0 ? ` (the empty ${list(dropped)} left out)` : ""}`;
  return {
    ...site,
    message,
    edits,
    expect: (frontmatter) => {
      const target = isMapping(frontmatter["metadata"]) ? frontmatter["metadata"] : (Object.create(null) as Record<string, unknown>);
      for (const { field, value } of moved) {
        delete frontmatter[field.spelling.field];
        if (value !== undefined && field.portable === undefined) target[field.spelling.portableKey] = unquoted(value);
      }
      if (Object.keys(target).length > 0) frontmatter["metadata"] = target;
    },
  };
}

/**
 * Where entries join an existing metadata block mapping: after its last line
 * (`at`) or before its first entry and the comment lines above it (`first`,
 * the line after `metadata:`), at its entries' indentation. A comment above
 * an entry stays with that entry: a suppression comment keeps covering the
 * line it was written for. Undefined for metadata written any other way
 * (flow style, empty, not a mapping), which no line can join.
 */
export function metadataEnd(parsed: ParsedSkillFile): { at: number; first: number; indent: string } | undefined {
  const { tree, index } = parsed;
  const metadata = tree && isMapping(tree.value) ? tree.value["metadata"] : undefined;
  const metadataKey = tree?.keyRanges.get("/metadata");
  const metadataValue = tree?.valueRanges.get("/metadata");
  const firstEntry = isMapping(metadata) ? Object.keys(metadata)[0] : undefined;
  const entryKey = firstEntry === undefined ? undefined : tree?.keyRanges.get(`/metadata/${firstEntry.replace(/~/g, "~0").replace(/\//g, "~1")}`);
  if (!metadataKey || !metadataValue || !entryKey || entryKey.start.line <= metadataKey.start.line || metadataKey.start.column !== 1) return undefined;
  const lastLineEnd = index.text.indexOf("\n", index.lineStart(metadataValue.end.line));
  return { at: lastLineEnd === -1 ? index.text.length : lastLineEnd + 1, first: index.lineStart(metadataKey.start.line + 1), indent: " ".repeat(entryKey.start.column - 1) };
}

/**
 * The entry's value as YAML (plain when that reads back the same), undefined
 * for an empty list (left out), null when it cannot be moved: a value that
 * is not a word or a list of words, or a portable spelling with another value.
 */
function portableValue(field: WrittenField): string | undefined | null {
  const value = field.topLevel?.value;
  let text: string;
  if (field.spelling.list) {
    if (!Array.isArray(value) || !value.every((item) => typeof item === "string" && item !== "" && !/[ \t\n\r]/.test(item))) return null;
    text = (value as string[]).join(" ");
  } else {
    if (typeof value !== "string" || /[\n\r]/.test(value)) return null;
    text = value;
  }
  if (field.portable !== undefined) {
    const portable = field.portable.value;
    if (typeof portable !== "string") return null;
    const same = field.spelling.list ? tokensOf(portable).map((token) => token.text).join(" ") === text : portable === text;
    return same ? text : null;
  }
  return text === "" && field.spelling.list ? undefined : quoteIfNeeded(text);
}

function unquoted(written: string): string {
  return written.startsWith('"') ? (JSON.parse(written) as string) : written;
}

function list(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1] ?? ""}`;
}

/** The fix for one yaml-portable finding: the construct found at the finding's position, when it has one. */
export function planPortableYaml(parsed: ParsedSkillFile, finding: Diagnostic, site: FixSite): PlannedFix | undefined {
  const { split, index, source } = parsed;
  if (!split) return undefined;
  const problem = portableYamlProblems(split, index, source.byteOrderMark === true, allowedToolsOf(parsed), parsed.tree?.margin).find((candidate) => candidate.range.start.line === finding.line && candidate.range.start.column === finding.column);
  if (!problem?.fix) return undefined;
  const fix = problem.fix;
  if (fix === "drop-byte-order-mark") return { ...site, message: "removed the byte order mark before the opening ---", edits: [], dropsByteOrderMark: true, expect: () => undefined };
  return {
    ...site,
    message: fix.insert.startsWith("\n") ? `wrote the flow-style ${index.text[fix.end - 1] === "]" ? "list" : "mapping"} in block style` : "wrote the tab as a space",
    edits: [fix],
    expect: () => undefined,
  };
}
