import type { ChecklistStep } from "../../protocol/checklist.js";
import type { OrderedListShape } from "./body-shape.js";
import type { LineIndex } from "./positions.js";

/**
 * A workflow skill's checklist as structured steps, read from the ordered
 * lists the body parse found (the same lists the body rules judge), so lint
 * and build can never disagree about what the checklist is.
 *
 * The checklist is the procedure the body declares (see {@link chooseChecklist}). A step's
 * title is its bold lead (`**Validate.**`) or, without one, its first
 * sentence; "(optional)" at the start of the step, inside or outside the bold
 * lead, marks it optional.
 */
export function extractChecklist(lines: LineIndex, lists: readonly OrderedListShape[], bodyStartLine: number): ChecklistStep[] | undefined {
  const list = checklistList(lines, lists, bodyStartLine);
  if (!list) return undefined;
  // Step headings are numbered from 1; an ordered list from its first marker's number.
  const first = list.items[0]?.heading === undefined ? MARKER.exec(lines.lineText(list.line)) : null;
  const start = first ? Number(first[1]) : 1;
  return list.items.flatMap((item, index) => {
    const read = readStep(lines, item);
    if (read === undefined) return [];
    return [{ number: start + index, ...read.step, optional: read.step.optional || read.markerOptional, verifies: item.verifies, line: item.line }];
  });
}

/**
 * Which of the body's lists is its checklist (see extractChecklist): lint
 * judges the list the build compiles. `bodyStartLine` is the body's first
 * line: no heading is looked for above it.
 */
export function checklistList(lines: LineIndex, lists: readonly OrderedListShape[], bodyStartLine: number): OrderedListShape | undefined {
  return chooseChecklist(lines, lists, bodyStartLine)?.list;
}

/** The body's checklist, and how the body declares it: as `Step N` headings, under a heading that names the procedure, or not at all (`undefined`: the list is the first that reads as one). */
export interface ChecklistChoice {
  list: OrderedListShape;
  declared: "step-headings" | "heading" | undefined;
  /** The nearest heading above the list ("" when none). */
  heading: string;
}

/**
 * Which of the body's lists (in line order, step heading runs among them) is
 * the procedure it declares, the one rule the build, lint and init all apply:
 *
 * 1. numbered `Step N` headings (`## Step 1: …`), when the body has them: a
 *    list inside a step's section is part of that step;
 * 2. else the first list under a heading that names its steps (Steps,
 *    Step-by-step, Procedure, Checklist);
 * 3. else the first list of at least three steps (what reads as a
 *    procedure), declared when its heading names a process or a workflow;
 * 4. else the first list.
 *
 * A list under a heading about what comes after or outside the procedure
 * (Next steps, Follow-ups, See also, Related, Further reading, What's next,
 * a condition: When …, If …) is never taken while another list is there, and
 * a heading numbered as one part of several (`Workflow 1: …`, `Phase 4: …`)
 * declares nothing, whatever follows the number (`Phase 1 Steps`): the list
 * under it is one branch or stage. A section number or a count (`2. Steps`,
 * `3 steps to an outline`, `The 5 Steps`) numbers no part.
 */
export function chooseChecklist(lines: LineIndex, lists: readonly OrderedListShape[], bodyStartLine: number): ChecklistChoice | undefined {
  if (lists.length === 0) return undefined;
  const stepHeadings = lists.find((list) => {
    const first = list.items[0];
    return first?.heading !== undefined && STEP_WORD.test(lines.lineText(first.line));
  });
  if (stepHeadings) return { list: stepHeadings, declared: "step-headings", heading: headingBefore(lines, stepHeadings.line, bodyStartLine) };
  const headings = lists.map((list) => headingBefore(lines, list.line, bodyStartLine));
  const inside = lists.flatMap((list, at) => (isOutsideHeading(headings[at] ?? "") ? [] : [{ list, heading: headings[at] ?? "" }]));
  const names = (heading: string, words: RegExp): boolean => words.test(heading) && !numbersPart(heading);
  const named = inside.find((candidate) => names(candidate.heading, STEPS_HEADING));
  if (named) return { ...named, declared: "heading" };
  const long = inside.find((candidate) => candidate.list.items.length >= PROCEDURE_STEPS && stepCount(lines, candidate.list) >= PROCEDURE_STEPS);
  if (long) return { ...long, declared: names(long.heading, PROCEDURE_HEADING) ? "heading" : undefined };
  const chosen = inside[0] ?? { list: lists[0] as OrderedListShape, heading: headings[0] ?? "" };
  return { ...chosen, declared: undefined };
}

/** Steps that make a list read as a procedure: the checklist's choice, the type rule and the reference-checklist rule all count so. */
export const PROCEDURE_STEPS = 3;

/**
 * How many steps an ordered list (or run of step headings) requires: its
 * items less the placeholders. The type `lint --fix` and `init` choose, the
 * checklist rules of reference skills and knowledge notes, and the compiled
 * checklist all count this way, so none of them sees a step the others do not.
 */
export function stepCount(lines: LineIndex, list: OrderedListShape): number {
  let count = 0;
  for (const item of list.items) if (readStep(lines, item) !== undefined) count++;
  return count;
}

type ReadStep = { step: { title: string; optional: boolean }; markerOptional: boolean } | undefined;

/**
 * Each item's step as read from its lines, for as long as the parse that made the item lives: the body rule
 * and the compiled checklist ask for the same items (a list's step count, then its steps), and reading a
 * step is most of the checklist's cost.
 */
const READ_STEPS = new WeakMap<OrderedListShape["items"][number], { lines: LineIndex; read: ReadStep }>();

/** The step an item starts; undefined for a placeholder: `3. ...` (or a list marker with no text at all) stands for more of the same, as in example output, so there is no step to require. */
function readStep(lines: LineIndex, item: OrderedListShape["items"][number]): ReadStep {
  const known = READ_STEPS.get(item);
  if (known?.lines === lines) return known.read;
  const read = readStepOnce(lines, item);
  READ_STEPS.set(item, { lines, read });
  return read;
}

function readStepOnce(lines: LineIndex, item: OrderedListShape["items"][number]): ReadStep {
  // A step heading (`## Step 3`) is a step with or without a title: its title is what the heading reader found after the number.
  if (item.heading !== undefined) {
    let step = describeStep(item.heading);
    if (step.title === "") {
      // A bare `## Step 3` names its step in the text under it: the title is that text's bold lead or first sentence.
      const below = describeStep(textBelowHeading(lines, item.line));
      step = { title: below.title, optional: step.optional || below.optional };
    }
    return ELLIPSIS.test(step.title) ? undefined : { step, markerOptional: step.optional };
  }
  const onMarkerLine = describeStep(lines.lineText(item.line).replace(MARKER, "").replace(TASK_MARKER, ""));
  // A list marker alone on its line starts its text on the next, indented line.
  const step = onMarkerLine.title === "" ? describeStep(continuationOf(lines, item.line).replace(MARKER, "").replace(TASK_MARKER, "")) : onMarkerLine;
  if (ELLIPSIS.test(step.title) || step.title === "") return undefined;
  return { step, markerOptional: onMarkerLine.optional };
}

/**
 * The first line of text under a heading whose text is on `headingLine` (a setext heading's underline is
 * passed over), without a list marker or a quote's `>`; "" when the next block is a heading or code, or none follows.
 */
function textBelowHeading(lines: LineIndex, headingLine: number): string {
  for (let line = headingLine + 1; line <= lines.lineCount; line++) {
    const text = lines.lineText(line);
    if (text.trim() === "" || (line === headingLine + 1 && /^ {0,3}(?:=+|-+)[ \t]*$/.test(text))) continue;
    if (/^ {0,3}(?:#{1,6}(?:[ \t]|$)|`{3,}|~{3,})/.test(text) || /^(?: {4}|\t)/.test(text)) return "";
    return text.replace(/^[ \t>]*/, "").replace(MARKER, "").replace(TASK_MARKER, "").replace(/^[-*+][ \t]+/, "");
  }
  return "";
}

/** The line after a list marker that carries no text, when it continues the item (indented and not blank); "" otherwise. */
function continuationOf(lines: LineIndex, markerLine: number): string {
  if (markerLine >= lines.lineCount) return "";
  const next = lines.lineText(markerLine + 1);
  return /^[ \t>]+\S/.test(next) ? next.replace(/^[\s>]+/, "") : "";
}

/** A step title that is only an ellipsis. */
const ELLIPSIS = /^(?:\.{2,}|…+)$/;

/** A heading that names the steps under it, so the first list under one is the checklist: English words only. */
const STEPS_HEADING = /\b(?:checklist|steps|step-by-step|procedure)\b/i;
/** A heading that names a procedure: the words above, a process or a workflow. A list under one is declared when it is also the first that reads as a procedure (a "workflow" heading may just as well describe someone else's). */
export const PROCEDURE_HEADING = /\b(?:checklist|steps|step-by-step|procedure|process|workflow)\b/i;
/** A heading about what comes after or outside the procedure (follow-ups, pointers elsewhere, a condition such as when to use the skill): the list under it is not the procedure. */
export const OUTSIDE_HEADING = /\b(?:next[ \t]+steps?|follow[- \t]?ups?|see[ \t]+also|related|further[ \t]+reading|what['\u2019]?s[ \t]+next)\b|^[^\p{L}\d]*(?:when|if)\b/iu;
/**
 * Each alternative of {@link OUTSIDE_HEADING} holds one of these words, matched with the same flags, so a heading
 * with none of them is answered without running, and without compiling, that pattern and its letter class.
 */
const OUTSIDE_HEADING_WORD = /next|follow|see|related|further|what|when|if/iu;
/** {@link OUTSIDE_HEADING}'s answer for a heading. */
export function isOutsideHeading(heading: string): boolean {
  return OUTSIDE_HEADING_WORD.test(heading) && OUTSIDE_HEADING.test(heading);
}
/** The part of {@link OUTSIDE_HEADING} that names a condition (`When to use`, `If the project is linked`): the list under it is one branch. */
export const CONDITION_HEADING = /^[^\p{L}\d]*(?:when|if)\b/iu;
/**
 * A heading numbered as one part of several: a word and the part's number (`Workflow 1: …`, `Phase 4: Post-install
 * steps`, `Phase 1 Steps`, `Phase 2 Exit Checklist`), after a section number if any, whatever follows the number:
 * the list under it is one branch or stage, not the whole procedure. A section number alone (`2. Steps`, `6.3 Steps`)
 * numbers a section of the document, and a count numbers no part either: a number with no word before it
 * (`3 steps to an outline`, `5 Steps`), after an article or a determiner (`The 5 Steps`, `These 3 steps`), joined
 * to the word step by a hyphen (`The 10-Step Process`, `Simple 4-step release`), or followed by the word steps
 * after a word that names no part (`In 4 steps`, `Only 3 steps`; see {@link numbersPart}).
 */
export const NUMBERED_PART = /^[^\p{L}\d]*(?:\d{1,3}(?:\.\d{1,3})*[.):]?[ \t]+)?(?!(?:a|an|another|the|this|these|those|my|our|your|their|its|all|top|first|last)[ \t])\p{L}+[ \t]+\d{1,3}(?:\.\d{1,3})*(?![\d\p{L}])(?!-steps?\b)/iu;
/**
 * A word, a number and then the word steps (`In 4 steps`, `Only 3 steps`, `Phase 1 Steps`): a count of the steps
 * unless the word names a part of several, as {@link PART_WORDS} do.
 */
const WORD_COUNT_OF_STEPS = /^[^\p{L}\d]*(?:\d{1,3}(?:\.\d{1,3})*[.):]?[ \t]+)?(\p{L}+)[ \t]+\d{1,3}(?:\.\d{1,3})*[ \t]+steps?\b/iu;
/** The words that name one part of several before its number (`Phase 1 Steps`, `Option 2 steps`). */
const PART_WORDS = new Set(
  "phase part stage option workflow section chapter module level round day week month track method approach scenario case example mode path tier pass wave sprint milestone lesson unit task flow pattern strategy recipe version variant route lane group block batch sequence procedure process playbook runbook tutorial exercise lab plan iteration cycle checkpoint gate layer".split(" "),
);

/**
 * Every heading {@link NUMBERED_PART} matches has a digit 0-9 (its `\d`, which
 * case-insensitive matching extends to no other character), so a heading
 * without one is answered without running, and without compiling, that
 * pattern, whose letter classes cost more to compile than most headings cost
 * to read.
 */
const ASCII_DIGIT = /[0-9]/;

/** Whether a heading numbers one part of several ({@link NUMBERED_PART}), a count of steps after a word that names no part excepted. */
function numbersPart(heading: string): boolean {
  if (!ASCII_DIGIT.test(heading) || !NUMBERED_PART.test(heading)) return false;
  const counted = WORD_COUNT_OF_STEPS.exec(heading);
  return counted === null || PART_WORDS.has((counted[1] as string).toLowerCase());
}

/** A step heading's number written with the word (`Step 3`), which declares the procedure; a bare `### 3.` may number the sections of a reference. */
const STEP_WORD = /\bstep[ \t]+\d/i;
/** A list marker after any container markers (`>` quotes, list indentation). */
const MARKER = /^[\s>]*(\d{1,9})[.)](?:[ \t]+|$)/;
/** A GFM task-list box at the start of an item's text (`1. [ ] Run the tests`, `[x]` when ticked): a checkbox, not part of the step's title. */
const TASK_MARKER = /^[ \t]*\[[ xX]\](?:[ \t]+|$)/;
const OPTIONAL = /^\(\s*optional\s*\)\s*|^optional\s*:\s*/i;
const TITLE_LIMIT = 120;

/**
 * The text of the nearest heading above `line`, down to the body's first line
 * `bodyStartLine` ("" when none): an ATX heading (`## Checklist`) or a setext
 * one (`Checklist` underlined with `===` or `---`), as CommonMark reads them.
 * A `# comment` in fenced code or in an HTML comment is no heading.
 */
export function headingBefore(lines: LineIndex, line: number, bodyStartLine: number): string {
  const code = hiddenLines(lines, bodyStartLine);
  for (let before = line - 1; before >= bodyStartLine; before--) {
    if (code?.has(before)) continue;
    const text = lines.lineText(before);
    const heading = ATX_HEADING.exec(text);
    if (heading) return heading[1] ?? "";
    if (SETEXT_UNDERLINE.test(text)) {
      const setext = setextText(lines, before, bodyStartLine);
      if (setext !== undefined) return setext;
    }
  }
  return "";
}

/** Each body's lines inside fenced code or an HTML comment, found once: a body's lists each ask for the heading above them. */
const hidden = new WeakMap<LineIndex, Map<number, ReadonlySet<number> | null>>();
/** Where a fence or an HTML comment may open: a body without one hides no line. */
const MAY_HIDE = /^ {0,3}(?:`{3,}|~{3,}|<!--)/m;
const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * The lines (1-based) of fenced code blocks, their fences included, and of HTML comments, as CommonMark
 * opens and closes them at the margin (a fence indented four columns or more is code already, and no `#`
 * line there reads as a heading); null when there are none.
 */
function hiddenLines(lines: LineIndex, bodyStartLine: number): ReadonlySet<number> | null {
  let byStart = hidden.get(lines);
  if (byStart === undefined) hidden.set(lines, (byStart = new Map()));
  const known = byStart.get(bodyStartLine);
  if (known !== undefined) return known;
  let found: Set<number> | null = null;
  if (MAY_HIDE.test(lines.text)) {
    found = new Set();
    let fence: { char: string; length: number } | undefined;
    let comment = false;
    for (let line = bodyStartLine; line <= lines.lineCount; line++) {
      const text = lines.lineText(line);
      if (fence !== undefined) {
        found.add(line);
        const closing = FENCE_LINE.exec(text);
        if (closing?.[1] && closing[1][0] === fence.char && closing[1].length >= fence.length && (closing[2] ?? "").trim() === "") fence = undefined;
        continue;
      }
      if (comment) {
        found.add(line);
        if (text.includes("-->")) comment = false;
        continue;
      }
      const opening = FENCE_LINE.exec(text);
      // A backtick fence's info string holds no backtick.
      if (opening?.[1] && !(opening[1][0] === "`" && (opening[2] ?? "").includes("`"))) {
        found.add(line);
        fence = { char: opening[1][0] ?? "`", length: opening[1].length };
        continue;
      }
      if (/^ {0,3}<!--/.test(text) && !text.slice(text.indexOf("<!--") + 4).includes("-->")) {
        found.add(line);
        comment = true;
      }
    }
  }
  byStart.set(bodyStartLine, found);
  return found;
}

const ATX_HEADING = /^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
/** A line that starts a block of its own, which no paragraph line can be: an ATX heading, a fence, a quote, a list item, a thematic break or an underline. */
const BLOCK_START = /^ {0,3}(?:#{1,6}(?:[ \t]|$)|`{3,}|~{3,}|>|[-*+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,}|=+[ \t]*)$)/;

/**
 * The text of the setext heading `underline` closes (its paragraph's lines
 * joined by a space); undefined when no paragraph of its own stands right
 * above it: after a blank line `---` is a thematic break and `===` text, and
 * after a list item or a quote the lines above continue that item lazily,
 * which an underline cannot.
 */
function setextText(lines: LineIndex, underline: number, bodyStartLine: number): string | undefined {
  const paragraph: string[] = [];
  let above = underline - 1;
  for (; above >= bodyStartLine; above--) {
    const text = lines.lineText(above);
    if (text.trim() === "" || BLOCK_START.test(text)) break;
    paragraph.unshift(text.trim());
  }
  if (paragraph.length === 0) return undefined;
  // What ends the paragraph above: only a blank line, the body's start or a heading leaves it a paragraph of its own.
  const before = above >= bodyStartLine ? lines.lineText(above) : "";
  if (before.trim() !== "" && !ATX_HEADING.test(before) && !/^ {0,3}#{1,6}$/.test(before)) return undefined;
  // Indented four columns after a blank line, the first line is code.
  if (/^(?: {4}|\t)/.test(lines.lineText(above + 1))) return undefined;
  return paragraph.join(" ").replace(/[ \t]+$/, "");
}

/** `text` is the step's text without its list marker or step number. */
function describeStep(text: string): { title: string; optional: boolean } {
  let rest = text.trim();
  let optional = false;
  const strip = (): void => {
    const match = OPTIONAL.exec(rest);
    if (match) {
      optional = true;
      rest = rest.slice(match[0].length);
    }
  };
  strip();
  let title: string;
  const bold = /^(\*\*|__)(.+?)\1/.exec(rest);
  if (bold) {
    rest = bold[2] ?? "";
    strip();
    title = rest;
  } else {
    title = /^(.+?[.!?])(?:\s|$)/.exec(rest)?.[1] ?? rest;
  }
  title = plain(title).replace(/[.:;]+$/, "").trim();
  if (title.length > TITLE_LIMIT) title = `${title.slice(0, TITLE_LIMIT - 1).trimEnd()}…`;
  return { title, optional };
}

/** Inline Markdown reduced to its text: code spans keep their content, emphasis markers and link targets go. */
function plain(markdown: string): string {
  // Each replacement only removes text, so a title without these characters has nothing for the first three.
  if (!/[[`*_]/.test(markdown)) return markdown.replace(/\s+/g, " ");
  return withoutEmphasis(linkTexts(markdown).replace(/`+([^`]*)`+/g, "$1")).replace(/\s+/g, " ");
}

/**
 * `[text](target)` and `![text](target)` reduced to their text: what
 * replacing `/!?\[([^\]]*)\]\([^)]*\)/g` with its group gives, in one pass
 * (every `[` before a `]` reaches that same `]`, so the first of them decides).
 */
function linkTexts(markdown: string): string {
  let result = "";
  let from = 0;
  for (let open = markdown.indexOf("["); open !== -1; ) {
    const close = markdown.indexOf("]", open + 1);
    if (close === -1) break;
    if (markdown[close + 1] !== "(") {
      open = markdown.indexOf("[", close + 1);
      continue;
    }
    const end = markdown.indexOf(")", close + 2);
    // No `)` after this `](`, so none after a later one either.
    if (end === -1) break;
    result += markdown.slice(from, open > from && markdown[open - 1] === "!" ? open - 1 : open) + markdown.slice(open + 1, close);
    from = end + 1;
    open = markdown.indexOf("[", from);
  }
  return result + markdown.slice(from);
}

const EMPHASIS = ["**", "__", "*", "_"] as const;
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/**
 * Emphasis markers removed: what replacing `/(\*\*|__|\*|_)(\S(?:.*?\S)?)\1/g`
 * with its second group gives (the longest-first marker, then the first
 * closing marker after at least two characters, else after one), with
 * where each closing marker can be found looked up in a table made once,
 * so a line of markers that never close is read once, not once per marker.
 */
function withoutEmphasis(text: string): string {
  if (!text.includes("*") && !text.includes("_")) return text;
  const length = text.length;
  const space = (at: number): boolean => /\s/.test(text[at] ?? " ");
  /** Per marker: the first position at or after each index where the marker starts right after a non-space character. */
  const closers = EMPHASIS.map((marker) => {
    const table = new Int32Array(length + 2).fill(-1);
    for (let at = length - 1; at >= 1; at--) table[at] = text.startsWith(marker, at) && !space(at - 1) ? at : (table[at + 1] ?? -1);
    return table;
  });
  const terminators = new Int32Array(length + 1).fill(-1);
  for (let at = length - 1; at >= 0; at--) terminators[at] = LINE_TERMINATOR.test(text[at] ?? "") ? at : (terminators[at + 1] ?? -1);
  let result = "";
  let from = 0;
  let at = 0;
  while (at < length) {
    let matched = false;
    for (const [kind, marker] of EMPHASIS.entries()) {
      if (!text.startsWith(marker, at)) continue;
      const content = at + marker.length;
      if (content >= length || space(content)) continue;
      const longer = content + 2 <= length ? (closers[kind]?.[content + 2] ?? -1) : -1;
      const lineEnd = terminators[content] ?? -1;
      const end = longer !== -1 && (lineEnd === -1 || lineEnd >= longer) ? longer : text.startsWith(marker, content + 1) ? content + 1 : -1;
      if (end === -1) continue;
      result += text.slice(from, at) + text.slice(content, end);
      at = from = end + marker.length;
      matched = true;
      break;
    }
    if (!matched) at++;
  }
  return result + text.slice(from);
}
