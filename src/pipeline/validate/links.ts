import { statSync } from "node:fs";
import { join, posix } from "node:path";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { QUOTE_LIMIT, quoted } from "../../diagnostics/quote.js";

/**
 * Two rules over the paths a skill's body names.
 *
 * `skill/broken-link` (error): a Markdown link, image or reference definition,
 * outside code, with a relative target names a file inside the skill's folder
 * that exists. A skill is installed, copied and compiled as its folder; a link
 * that leaves it or names nothing breaks wherever the skill goes. A link is
 * written to be followed, so this is sure enough to fail a build.
 *
 * `skill/unresolved-path` (warning): a path written outside a link (in prose
 * or in an inline code span) that starts with one of the specification's
 * folders (`scripts/`, `references/`, `assets/`) or with a folder the skill
 * has, names a file with an extension, and exists neither relative to the
 * skill's folder nor relative to any folder between it and the project root
 * (collections keep shared scripts at a plugin root). Such a mention is often
 * relative to something else (a command's working folder, a file the skill
 * tells the agent to create), so it is a warning at most, and it is not
 * reported at all when it is part of a command line (an inline code span that
 * holds more than the path, or a line that starts with `$ `) or follows a
 * variable (`${ROOT}/scripts/x.py`, `$ROOT/scripts/x.py`).
 *
 * Both: fenced code is skipped (it shows commands and examples, often for
 * other projects); URLs, anchors, globs and placeholders are not files to
 * check; paths introduced as examples ("e.g.", "for example", "such as") are
 * not checked. A target the file system cannot even look at (a NUL byte, a
 * name longer than the system allows) cannot resolve: it is a finding too.
 */

export interface LinkCheckInput {
  /** Project root, absolute or relative to the working folder. */
  root: string;
  /** Root-relative path of SKILL.md. */
  path: string;
  body: string;
  /** 1-based line in SKILL.md where `body` starts. */
  bodyStartLine: number;
}

/** The folders the Agent Skills specification names for supporting files. */
const SPEC_FOLDERS = ["scripts", "references", "assets"];
const MARKDOWN_LINK = /!?\[(?:[^\]\\\n]|\\.)*\]\(\s*(<[^>\n]*>|[^\s()]+(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)/g;
const DEFINITION = /^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)/;
const BARE_PATH = /(?<![\w./@$~:-])((?:\.\/)?[A-Za-z0-9_][\w-]*\/(?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,8})(?![\w/-])/g;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function brokenLinkDiagnostics(input: LinkCheckInput): Diagnostic[] {
  // Fences only decide where links are skipped: a body without "/" or "]" holds no link at all.
  if (!input.body.includes("/") && !input.body.includes("]")) return [];
  const skillDir = posix.dirname(input.path);
  const diagnostics: Diagnostic[] = [];
  const exists = existenceCache(input.root);
  const topFolders = (name: string): boolean => SPEC_FOLDERS.includes(name) || exists(`${skillDir}/${name}`) === "directory";
  const lines = input.body.split("\n");
  let fence: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index] ?? "";
    const marker = FENCE.exec(text)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && text.trim() === marker) fence = undefined;
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      continue;
    }
    // A link needs "](" or "]:", a bare path a "/": most lines have neither and cannot hold one.
    if (!text.includes("/") && !text.includes("]")) continue;
    // Indented code (four spaces outside a list) is rare in skills and mostly lists; it is checked like text.
    const line = input.bodyStartLine + index;
    const report = (ruleId: "skill/broken-link" | "skill/unresolved-path", target: string, column: number, message: string): void => {
      diagnostics.push(createDiagnostic(ruleId, input.path, { start: { line, column }, end: { line, column: column + target.length } }, message));
    };
    const seen = new Set<number>();
    const checkLink = (target: string, column: number): void => {
      if (seen.has(column)) return;
      seen.add(column);
      const problem = linkProblem(target, skillDir, exists);
      if (problem) report("skill/broken-link", target, column, problem);
    };
    const withoutCode = maskInlineCode(text);
    for (const match of withoutCode.matchAll(MARKDOWN_LINK)) {
      const raw = match[1] ?? "";
      const start = (match.index ?? 0) + match[0].indexOf(raw, match[0].indexOf("]("));
      checkLink(raw.startsWith("<") ? raw.slice(1, -1) : raw, start + (raw.startsWith("<") ? 2 : 1));
    }
    const definition = DEFINITION.exec(withoutCode);
    if (definition?.[1]) checkLink(definition[1].replace(/^<|>$/g, ""), text.indexOf(definition[1]) + 1);
    // Path mentions: in text and in inline code, but not inside a Markdown link's parentheses (checked above),
    // not on a command line, and not where the text shows examples of what a skill could hold ("Example: `scripts/rotate.py`").
    if (COMMAND_LINE.test(text) || isExampleContext(lines, index)) continue;
    const spans = inlineCodeSpans(text);
    const withoutLinks = text.replace(MARKDOWN_LINK, (whole) => " ".repeat(whole.length));
    for (const match of withoutLinks.matchAll(BARE_PATH)) {
      const candidate = match[1] ?? "";
      const offset = match.index ?? 0;
      // `./scripts/deploy.sh` written alone is a command run in the user's working folder.
      if (candidate.startsWith("./") || EXAMPLE_WORDS.test(text.slice(0, offset))) continue;
      if (isPartOfCommand(spans, offset, candidate.length)) continue;
      const first = candidate.split("/")[0] ?? "";
      if (!topFolders(first)) continue;
      const problem = mentionProblem(candidate, skillDir, exists);
      if (problem) report("skill/unresolved-path", candidate, offset + 1, problem);
    }
  }
  return diagnostics;
}

const EXAMPLE_WORDS = /\bexamples?\b|\be\.g\.|\bfor instance\b|\bsuch as\b/i;
/** A line written as a shell prompt: what follows is a command, run wherever the reader stands. */
const COMMAND_LINE = /^\s*\$\s/;

/** One of the three lines before this one, in the same block, introduces examples. */
function isExampleContext(lines: readonly string[], index: number): boolean {
  for (let back = index - 1; back >= Math.max(0, index - 3); back--) {
    const text = lines[back] ?? "";
    if (/^\s*#/.test(text) || /^\s*(?:```|~~~)/.test(text)) return false;
    if (EXAMPLE_WORDS.test(text)) return true;
  }
  return false;
}

interface CodeSpan {
  /** Offset of the first character inside the backticks. */
  start: number;
  /** Offset just past the last character inside the backticks. */
  end: number;
  content: string;
}

function inlineCodeSpans(text: string): CodeSpan[] {
  const spans: CodeSpan[] = [];
  for (const match of text.matchAll(/(`+)([^`]*?)\1/g)) {
    const start = (match.index ?? 0) + (match[1]?.length ?? 0);
    const content = match[2] ?? "";
    spans.push({ start, end: start + content.length, content });
  }
  return spans;
}

/** The path sits in a code span that holds more than the path: a command and its arguments (`uv run scripts/check.py`). */
function isPartOfCommand(spans: readonly CodeSpan[], offset: number, length: number): boolean {
  const span = spans.find((candidate) => offset >= candidate.start && offset + length <= candidate.end);
  return span !== undefined && span.content.trim().length > length;
}

type Existence = "file" | "directory" | "unreadable" | undefined;

/**
 * Looks paths up once each. A path the file system refuses to look at (a NUL
 * byte, a name over the system's limit, a folder without permission) is
 * "unreadable": it cannot resolve, and the check says so instead of stopping.
 */
function existenceCache(root: string): (relative: string) => Existence {
  const known = new Map<string, Existence>();
  return (relative) => {
    if (known.has(relative)) return known.get(relative);
    let result: Existence;
    try {
      const stats = statSync(join(root, relative), { throwIfNoEntry: false });
      result = stats?.isFile() ? "file" : stats?.isDirectory() ? "directory" : undefined;
    } catch {
      result = "unreadable";
    }
    known.set(relative, result);
    return result;
  };
}

/** The target is a local relative path worth looking up: not a URL, an anchor, a glob or a placeholder. */
function localTarget(rawTarget: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(rawTarget) || rawTarget.startsWith("#") || rawTarget.startsWith("//")) return undefined;
  const target = safeDecode(rawTarget.replace(/[?#].*$/, ""));
  if (target === "" || /[*?<>{}$]|\[|\]/.test(target) || target.startsWith("~")) return undefined;
  return target;
}

/** Why a Markdown link's target is broken, or undefined when it is fine or not a local file at all. */
function linkProblem(rawTarget: string, skillDir: string, exists: (relative: string) => Existence): string | undefined {
  const target = localTarget(rawTarget);
  if (target === undefined) return undefined;
  const shown = quoted(rawTarget);
  if (target.startsWith("/")) return `Unexpected absolute link ${shown}, expected a path relative to the skill's folder (${skillDir}/)`;
  if (target.includes("\\")) return `Unexpected backslash in link ${shown}, expected forward slashes`;
  const resolved = posix.normalize(`${skillDir}/${target}`);
  if (resolved !== skillDir && !resolved.startsWith(`${skillDir}/`)) {
    return `Unexpected link ${shown} outside the skill's folder, expected a file inside ${skillDir}/ (a skill is installed and compiled as its folder, so the link would break)`;
  }
  const found = exists(resolved);
  if (found === "file" || found === "directory") return undefined;
  if (found === "unreadable") return `Unexpected link ${shown}, which no file system can look up (a NUL byte, or a name longer than the system allows), expected a file inside ${skillDir}/`;
  return `Unexpected link to ${quoted(target)}, which does not exist, expected a file at ${resolved.length > QUOTE_LIMIT ? quoted(resolved) : resolved}`;
}

/**
 * Why a path mentioned outside a link resolves nowhere, or undefined when it
 * names a file relative to the skill's folder or to a folder above it up to
 * the project root.
 */
function mentionProblem(mention: string, skillDir: string, exists: (relative: string) => Existence): string | undefined {
  if (localTarget(mention) === undefined || mention.includes("\\")) return undefined;
  let unreadable = false;
  for (let folder = skillDir; ; folder = posix.dirname(folder)) {
    const found = exists(folder === "." ? posix.normalize(mention) : posix.normalize(`${folder}/${mention}`));
    if (found === "file" || found === "directory") return undefined;
    if (found === "unreadable") unreadable = true;
    if (folder === "." || folder === "/" || folder === "") break;
  }
  if (unreadable) return `Unexpected path ${quoted(mention)}, which no file system can look up (a NUL byte, or a name longer than the system allows), expected a file in the skill's folder`;
  return `Unexpected path ${quoted(mention)}, which names no file in ${skillDir}/ or a folder above it, expected an existing file, or a Markdown link when the skill ships the file`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Blanks inline code spans (keeping columns), so a link shown as code is not checked as a link. */
function maskInlineCode(text: string): string {
  return text.replace(/(`+)[^`]*?\1/g, (span) => " ".repeat(span.length));
}
