import { statSync } from "node:fs";
import { join, posix } from "node:path";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";

/**
 * `skill/broken-link`: every relative link in a skill's body names a file
 * inside the skill's folder that exists. A skill is installed, copied and
 * compiled as its folder; a link that leaves it or names nothing breaks
 * wherever the skill goes.
 *
 * What counts as a link:
 * - Markdown links and images, `[x](references/y.md)`, and reference
 *   definitions, `[x]: references/y.md`, outside code;
 * - a path written on its own, in text or in inline code, that starts with
 *   one of the specification's folders (`scripts/`, `references/`,
 *   `assets/`) or with a folder the skill has, and names a file with an
 *   extension (`scripts/extract.py`). Paths that start elsewhere
 *   (`src/app.tsx`) are the user's project, not the skill's.
 * Fenced code is skipped: it shows commands and examples, often for other
 * projects. URLs, anchors, absolute paths, globs and placeholders are not
 * files to check.
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
    const seen = new Set<number>();
    const check = (target: string, column: number, explicit: boolean): void => {
      if (seen.has(column)) return;
      seen.add(column);
      const problem = linkProblem(target, skillDir, exists, explicit);
      if (problem) diagnostics.push(createDiagnostic("skill/broken-link", input.path, { start: { line, column }, end: { line, column: column + target.length } }, problem));
    };
    const withoutCode = maskInlineCode(text);
    for (const match of withoutCode.matchAll(MARKDOWN_LINK)) {
      const raw = match[1] ?? "";
      const start = (match.index ?? 0) + match[0].indexOf(raw, match[0].indexOf("]("));
      check(raw.startsWith("<") ? raw.slice(1, -1) : raw, start + (raw.startsWith("<") ? 2 : 1), true);
    }
    const definition = DEFINITION.exec(withoutCode);
    if (definition?.[1]) check(definition[1].replace(/^<|>$/g, ""), text.indexOf(definition[1]) + 1, true);
    // Bare paths: in text and in inline code, but not inside a Markdown link's parentheses (checked above),
    // and not where the text shows examples of what a skill could hold ("Example: `scripts/rotate.py`").
    if (isExampleContext(lines, index)) continue;
    const withoutLinks = text.replace(MARKDOWN_LINK, (whole) => " ".repeat(whole.length));
    for (const match of withoutLinks.matchAll(BARE_PATH)) {
      const candidate = match[1] ?? "";
      // `./scripts/deploy.sh` written alone is a command run in the user's working folder.
      if (candidate.startsWith("./") || EXAMPLE_WORDS.test(text.slice(0, match.index ?? 0))) continue;
      const first = candidate.split("/")[0] ?? "";
      if (!topFolders(first)) continue;
      check(candidate, (match.index ?? 0) + 1, false);
    }
  }
  return diagnostics;
}

const EXAMPLE_WORDS = /\bexamples?\b|\be\.g\.|\bfor instance\b|\bsuch as\b/i;

/** One of the three lines before this one, in the same block, introduces examples. */
function isExampleContext(lines: readonly string[], index: number): boolean {
  for (let back = index - 1; back >= Math.max(0, index - 3); back--) {
    const text = lines[back] ?? "";
    if (/^\s*#/.test(text) || /^\s*(?:```|~~~)/.test(text)) return false;
    if (EXAMPLE_WORDS.test(text)) return true;
  }
  return false;
}

type Existence = "file" | "directory" | undefined;

function existenceCache(root: string): (relative: string) => Existence {
  const known = new Map<string, Existence>();
  return (relative) => {
    if (known.has(relative)) return known.get(relative);
    const stats = statSync(join(root, relative), { throwIfNoEntry: false });
    const result: Existence = stats?.isFile() ? "file" : stats?.isDirectory() ? "directory" : undefined;
    known.set(relative, result);
    return result;
  };
}

/** Why a link target is broken, or undefined when it is fine or not a local file at all. */
function linkProblem(rawTarget: string, skillDir: string, exists: (relative: string) => Existence, explicit: boolean): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(rawTarget) || rawTarget.startsWith("#") || rawTarget.startsWith("//")) return undefined;
  const target = safeDecode(rawTarget.replace(/[?#].*$/, ""));
  if (target === "" || /[*?<>{}$]|\[|\]/.test(target) || target.startsWith("~")) return undefined;
  if (target.startsWith("/")) {
    return explicit ? `Unexpected absolute link "${rawTarget}", expected a path relative to the skill's folder (${skillDir}/)` : undefined;
  }
  if (target.includes("\\")) return `Unexpected backslash in link "${rawTarget}", expected forward slashes`;
  const resolved = posix.normalize(`${skillDir}/${target}`);
  if (resolved !== skillDir && !resolved.startsWith(`${skillDir}/`)) {
    return `Unexpected link "${rawTarget}" outside the skill's folder, expected a file inside ${skillDir}/ (a skill is installed and compiled as its folder, so the link would break)`;
  }
  const found = exists(resolved);
  if (found === "file" || (found === "directory" && explicit)) return undefined;
  if (found === "directory") return undefined;
  return `Unexpected link to "${target}", which does not exist, expected a file at ${resolved}`;
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
