import { posix } from "node:path";
import { createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { PlainFolders } from "../discover/read-inside-root.js";
import { readBytes } from "../discover/read-source.js";
import { listSupportingEntries } from "../discover/supporting-files.js";
import { bracketed, linkTail } from "../parse/body-links.js";
import { WordLines } from "./word-lines.js";
import { tokensHolding } from "./word-tokens.js";

/**
 * `skill/unreferenced-file` (a note): every supporting file beside a
 * SKILL.md is named somewhere the model reads. The model only learns of a
 * file it is told about; a file nothing names ships with the skill and is
 * never used, which usually means a link was forgotten or the file is left
 * over.
 *
 * A file counts as referenced when any of these names it:
 * - the body of SKILL.md, anywhere (fenced code too: `python scripts/fill.py`
 *   in a command block is how many skills say which script to run), as a
 *   Markdown link (its target read as skill/broken-link reads it), a path (`scripts/fill.py`, also at the end of a longer
 *   path such as `${SKILL_DIR}/scripts/fill.py`), its bare file name
 *   (`fill.py`, `FORMS.md`), or its name without the extension when that
 *   name is an identifier (`advanced-init-once` for
 *   `rules/advanced-init-once.md`: an index of rules by name);
 * - a folder above it, named with a trailing slash (`references/`,
 *   `see scripts/ for helpers`), as a path of its own (`./canvas-fonts`),
 *   alone in inline code (`` `templates` ``), followed by "folder" or
 *   "directory", or linked (`[refs](references)`): the body hands the model
 *   the whole folder;
 * - for a Python file, its module name (`core.gif_builder` for
 *   `core/gif_builder.py`, as an import names it);
 * - a Markdown supporting file that is itself referenced (followed
 *   transitively, paths taken relative to that file's folder or to the
 *   skill's): `references/index.md` may list the other references;
 * - a script that is itself referenced (followed the same way): a helper the
 *   script runs or imports (`node server.cjs`, `from github_utils import …`,
 *   `require("./render.cjs")`, an import of `./types` for `types.ts`) is used by the skill even though the model
 *   never opens it, so it is neither reported nor advised for removal.
 *
 * At most one note per folder, so a large collection of references is one
 * finding, not fifty: a folder whose files are all unreferenced is one note,
 * and so are two or more unreferenced files in one folder below the skill's;
 * a single unreferenced file, or one at the top of the skill, is a note of
 * its own. Files for people or for a host rather than for the model are
 * never reported: README, LICENSE, NOTICE, COPYING and CHANGELOG at the top
 * of the skill, licence and notice files anywhere (`references/licenses/`,
 * `vendor/LICENSE.txt`: they travel with the code they cover), and
 * `agents/openai.yaml` (a host's display metadata).
 */

export interface UnreferencedFileInput {
  /** Project root, absolute. */
  root: string;
  /** Root-relative path of SKILL.md. */
  path: string;
  body: string;
  /** The skill folder's entries, when the caller has listed them already (root-relative, as listSupportingEntries gives them). */
  entries?: ReadonlyArray<{ path: string; regular: boolean }>;
  /**
   * The run's folders known to be no link (read-inside-root.ts): a followed file below them is read without
   * resolving its path and the root's; default: every followed file's path is resolved.
   */
  plain?: PlainFolders;
}

/** Markdown files and scripts whose references count too; larger ones are not read (the body limit is the same). */
const FOLLOWED = /\.(?:md|markdown|mdx|sh|bash|zsh|py|js|cjs|mjs|ts|cts|mts|rb|pl|ps1)$/i;
const MAX_FOLLOWED_BYTES = 1024 * 1024;
const CODE_FOLDER = /`\.?\/?([^`\s/]+)\/?`/g;
/** "the layouts folder", "`templates/` directory": the word before "folder" or "directory" (found from those words, not tried at every position). */
const FOLDER_WORD = /\s(?:folder|directory)\b/g;
/** A link's target up to its first `)` or space, for a link the shared reading leaves out (its text begun on a line not read). */
const MARKDOWN_TARGET = /\]\(\s*<?([^)\s>]+)>?/g;
const NOT_FOR_THE_MODEL = /^(?:(?:readme|licen[cs]e|notice|copying|changelog)(?:[.-][\w.-]*)?|agents\/openai\.yaml)$|(?:^|\/)(?:licen[cs]es?|notices?|copying)(?:\/|(?:-[\w.-]*)?(?:\.(?:txt|md|markdown|rst|html?))?$)/i;
/** What a JavaScript or TypeScript module resolver adds to a relative import written without its extension. */
const MODULE_COMPLETIONS = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", "/index.ts", "/index.tsx", "/index.js", "/index.mjs", "/index.cjs"];
/** A file name without its extension that is specific enough to count as a mention: `advanced-init-once`, `fill_form`. */
const IDENTIFIER_STEM = /^[\w]+(?:[-_][\w]+)+$/;

export function unreferencedFileDiagnostics(input: UnreferencedFileInput): Diagnostic[] {
  const skillDir = posix.dirname(input.path);
  const files = (input.entries ?? listSupportingEntries(input.root, skillDir))
    .filter((entry) => entry.regular)
    .map((entry) => entry.path.slice(skillDir.length + 1));
  const candidates = files.filter((file) => !NOT_FOR_THE_MODEL.test(file));
  if (candidates.length === 0) return [];
  const referenced = findReferences(input, skillDir, files, candidates);
  const unreferenced = candidates.filter((file) => !referenced.has(file));
  const misspelled = namedOtherwise(input.body, unreferenced);
  return groupByFolder(unreferenced, files).map((item) => {
    const shown = item.files.slice(0, LISTED).join(", ") + (item.files.length > LISTED ? `, … (${item.files.length - LISTED} more)` : "");
    const [what, names, expected] =
      item.kind === "file"
        ? [`supporting file "${item.path}"`, "names it", item.path]
        : item.kind === "folder"
          ? [`folder "${item.path}/" (${item.files.length} files)`, "names it or a file in it", `${item.path}/`]
          : [`supporting files in "${item.path}/" (${item.files.length} of ${item.total}: ${shown})`, "names them", `${item.path}/ or each file`];
    const otherwise = item.files.filter((file) => misspelled.has(file));
    const spelling =
      otherwise.length === 0
        ? ""
        : `; the body names ${item.kind === "file" ? "it" : otherwise.length === item.files.length ? "them" : otherwise.slice(0, LISTED).join(", ")} only with other letter case or in another Unicode form, and names must match exactly, letter case and Unicode form included`;
    return createDiagnostic(
      "skill/unreferenced-file",
      input.path,
      FILE_START,
      `Unreferenced ${what}: neither the body nor a file it references ${names}${spelling}, expected a link or path such as ${expected} where the skill uses ${item.kind === "file" ? "it" : "them"} (or remove ${item.kind === "file" ? "it" : "them"})`,
      { file: `${skillDir}/${item.path}`, range: FILE_START, message: item.kind === "file" ? "the file" : "the folder" },
    );
  });
}

/**
 * The unreferenced files whose skill-relative path the body writes with
 * other letter case or in another Unicode form (`references/tone.md` for
 * `references/Tone.md`): a file system that ignores the difference opens
 * them, but the names differ, so they do not count as named; the finding
 * says why.
 */
function namedOtherwise(body: string, unreferenced: readonly string[]): Set<string> {
  const found = new Set<string>();
  if (unreferenced.length === 0) return found;
  const folded = foldName(body);
  for (const file of unreferenced) if (!body.includes(file) && folded.includes(foldName(file))) found.add(file);
  return found;
}

/** The same letters whatever their case or Unicode form. */
function foldName(text: string): string {
  return text.normalize("NFC").toLowerCase().normalize("NFC");
}

/** Skill-relative paths of every file something the model reads names. */
function findReferences(input: UnreferencedFileInput, skillDir: string, files: readonly string[], candidates: readonly string[]): Set<string> {
  const fileSet = new Set(files);
  const folders = new Set(files.flatMap((file) => ancestors(file)));
  const byBaseName = new Map<string, string[]>();
  for (const file of files) {
    const name = posix.basename(file);
    byBaseName.set(name, [...(byBaseName.get(name) ?? []), file]);
  }
  const byStem = new Map<string, string[]>();
  for (const file of files) {
    const name = posix.basename(file);
    const stem = name.includes(".") ? name.slice(0, name.lastIndexOf(".")) : "";
    if (IDENTIFIER_STEM.test(stem)) byStem.set(stem, [...(byStem.get(stem) ?? []), file]);
  }
  const referenced = new Set<string>();
  // Once every file that could be reported is named, there is nothing left to look for.
  const unnamed = new Set(candidates);
  // Markdown files not yet named (README.md too, which is never reported): naming one leads to what it names.
  const unread = new Set(files.filter((file) => FOLLOWED.test(file)));
  const followed = new Set<string>();
  // Markdown files to read, in the order they were found named; read only while some file is still unnamed.
  const toFollow: string[] = [];
  const mark = (file: string): void => {
    if (referenced.has(file)) return;
    referenced.add(file);
    unnamed.delete(file);
    unread.delete(file);
    if (FOLLOWED.test(file) && !followed.has(file)) {
      followed.add(file);
      toFollow.push(file);
    }
  };
  // Each folder once: a body that names one folder thousands of times must not walk the file list each time.
  const markedFolders = new Set<string>();
  const markFolder = (folder: string): void => {
    if (markedFolders.has(folder)) return;
    markedFolders.add(folder);
    for (const file of files) if (file.startsWith(`${folder}/`)) mark(file);
  };
  // A mention marks the same files every time (marking is idempotent), so each is resolved once per document folder.
  const resolvedMentions = new Set<string>();
  /** A path as written, resolved against the document's folder and the skill's. */
  const resolveMention = (written: string, dir: string, explicit: boolean): void => {
    const key = `${explicit ? "!" : "?"}${dir}\0${written}`;
    if (resolvedMentions.has(key)) return;
    resolvedMentions.add(key);
    // `scripts/fill.py:42` and `scripts/fill.py:42:7`: a file at a line, as compilers and editors write it, also at
    // the end of a sentence (`scripts/fill.py:42.`).
    const trimmed = withoutLineSuffix(written.replace(/[?#].*$/, "").replace(/[.:!?]+$/, "")).replace(/[.:!?]+$/, "");
    if (trimmed === "" || /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) return;
    const namesFolder = trimmed.endsWith("/");
    const segments = trimmed.split("/").filter((segment) => segment !== "" && segment !== ".");
    if (segments.length === 0) return;
    if (/^\.\.?\//.test(trimmed) && !namesFolder) {
      // An import of `./types` or `./providers/google`: a module named without its extension, as Node's and
      // the bundlers' resolvers complete it (the file, or the folder's index), relative to the importing file.
      const module = posix.normalize(dir === "" ? segments.join("/") : `${dir}/${segments.join("/")}`);
      for (const completion of MODULE_COMPLETIONS) if (fileSet.has(`${module}${completion}`)) mark(`${module}${completion}`);
    }
    if (segments.length === 1 && !namesFolder && !explicit) {
      const word = segments[0] ?? "";
      for (const file of byBaseName.get(word) ?? []) mark(file);
      for (const file of byStem.get(word) ?? []) mark(file);
      // `./canvas-fonts`: a folder named as a path of its own.
      if (written.startsWith("./") && folders.has(word)) markFolder(word);
      // `core.gif_builder`: a Python module, as `from core.gif_builder import …` names it (with its packages' __init__.py).
      const parts = word.split(".");
      if (parts.length > 1 && fileSet.has(`${parts.join("/")}.py`)) {
        mark(`${parts.join("/")}.py`);
        for (let depth = 1; depth < parts.length; depth++) if (fileSet.has(`${parts.slice(0, depth).join("/")}/__init__.py`)) mark(`${parts.slice(0, depth).join("/")}/__init__.py`);
      }
      return;
    }
    const bases = dir === "" ? [""] : [dir, ""];
    for (const base of bases) {
      const resolved = posix.normalize(base === "" ? segments.join("/") : `${base}/${segments.join("/")}`);
      if (fileSet.has(resolved) && !namesFolder) mark(resolved);
      else if (folders.has(resolved) && (namesFolder || explicit || segments.length > 1)) markFolder(resolved);
    }
    // `${SKILL_DIR}/scripts/fill.py`, `~/.claude/skills/pdf/scripts/fill.py`: the skill's path at the end of a longer one.
    for (let start = 1; start < segments.length; start++) {
      const tail = segments.slice(start).join("/");
      if (fileSet.has(tail) && !namesFolder) mark(tail);
      else if (folders.has(tail) && (namesFolder || segments.length - start > 1)) markFolder(tail);
    }
  };
  /**
   * The parts of a text that can name a file still unnamed: every way of
   * naming one (a path, its file name, its stem, a module name, a folder above
   * it) writes its stem or one of its folders, so only the lines that hold one
   * of those words (and the line before each, where a link's `](` or a name
   * before "folder" may sit) are read. The words are those of the unnamed
   * candidates and of the Markdown files not named yet (README.md too, which
   * is never reported but may name others).
   */
  // The words to look for, rebuilt only when a file was named since the last text.
  let words: WordLines | undefined;
  let wordList: string[] = [];
  let wordsFor = -1;
  const namingWords = (): WordLines => {
    if (words === undefined || unnamed.size + unread.size !== wordsFor) {
      wordsFor = unnamed.size + unread.size;
      const found = new Set<string>();
      for (const file of [...unnamed, ...unread]) {
        const segments = file.split("/");
        const name = segments.pop() ?? "";
        const stem = name.includes(".") ? name.slice(0, name.lastIndexOf(".")) : name;
        found.add(stem === "" ? name : stem);
        for (const segment of segments) found.add(segment);
      }
      // A link may write a name percent-encoded (`logo%20big.png`).
      for (const word of [...found]) if (encodeURIComponent(word) !== word) found.add(encodeURIComponent(word));
      wordList = [...found];
      words = new WordLines(wordList);
    }
    return words;
  };
  /** The parts of one text (lines holding a word, with the line before each), all read against the text's folder. */
  const scanParts = (dir: string, parts: readonly string[]): void => {
    for (const text of parts) {
      for (const target of linkTargets(text)) resolveMention(safeDecode(target), dir, true);
      // `` `templates` `` in code, or "the templates folder": a folder named by its bare name.
      for (const match of text.matchAll(CODE_FOLDER)) resolveMention(`${match[1] ?? ""}/`, dir, true);
      for (const name of namedFolders(text)) resolveMention(`${name}/`, dir, true);
    }
    // Tokens are what lies between white space, quotes, brackets and `,;|*=` (`*` cuts `references/*.md` into the
    // folder it names); only those holding a word can name a file still unnamed (word-tokens.ts). No token spans
    // a line, so the parts are searched at once, joined by line feeds.
    for (const token of tokensHolding(parts.join("\n"), wordList)) {
      if (unnamed.size === 0) return;
      // Most tokens are words: a word names a file only by its file name or stem, two map lookups.
      if (!/[/.?#]/.test(token)) {
        // `Dockerfile:12`, `Makefile:3:1`: a file named at a line.
        const word = token.includes(":") || token.endsWith("!") ? withoutLineSuffix(token.replace(/[:!]+$/, "")).replace(/[:!]+$/, "") : token;
        const byName = byBaseName.get(word);
        if (byName !== undefined) for (const file of byName) mark(file);
        const byWordStem = byStem.get(word);
        if (byWordStem !== undefined) for (const file of byWordStem) mark(file);
        continue;
      }
      resolveMention(token, dir, false);
    }
  };
  scanParts("", namingWords().parts(input.body));
  for (let file = toFollow.shift(); file !== undefined && unnamed.size > 0; file = toFollow.shift()) {
    const read = readBytes(input.root, `${skillDir}/${file}`, MAX_FOLLOWED_BYTES, input.plain);
    if (!("raw" in read)) continue;
    // The file's words are searched in its bytes: only the parts that hold one are decoded.
    scanParts(posix.dirname(file) === "." ? "" : posix.dirname(file), namingWords().partsOfBytes(read.raw));
  }
  return referenced;
}

/**
 * The targets of a text's Markdown links, read as skill/broken-link reads
 * them (parse/body-links.ts): `[a](references/x(1).md)` names
 * `references/x(1).md`, `[a](<references/my file.md>)` names
 * `references/my file.md`. A `](` outside every link so read (a link whose
 * text starts on a line that is not read) still gives its target up to the
 * first `)` or space.
 */
function linkTargets(text: string): string[] {
  if (!text.includes("](")) return [];
  const links = bracketed(text, linkTail(text));
  const targets = links.map((link) => (link.groups[0] ?? "").replace(/^<(.*)>$/s, "$1"));
  let next = 0;
  for (const match of text.matchAll(MARKDOWN_TARGET)) {
    const at = match.index ?? 0;
    while (next < links.length && (links[next]?.index ?? 0) + (links[next]?.whole.length ?? 0) <= at) next++;
    const link = links[next];
    if (link !== undefined && link.index <= at) continue;
    targets.push(match[1] ?? "");
  }
  return targets;
}

/** The names written before "folder" or "directory": a run of word characters, then an optional `/` and backtick, then spaces. */
function namedFolders(text: string): string[] {
  const names: string[] = [];
  if (!text.includes("folder") && !text.includes("directory")) return names;
  for (const match of text.matchAll(FOLDER_WORD)) {
    let end = match.index ?? 0;
    while (end > 0 && /\s/.test(text[end - 1] ?? "")) end--;
    if (text[end - 1] === "`") end--;
    if (text[end - 1] === "/") end--;
    let start = end;
    while (start > 0 && /[\w.-]/.test(text[start - 1] ?? "")) start--;
    if (start < end) names.push(text.slice(start, end));
  }
  return names;
}

/** Files named in one note, before "… (n more)". */
const LISTED = 3;

interface Finding {
  /** `file`: one file; `folder`: every file of a folder; `some`: two or more files of a folder that has others. */
  kind: "file" | "folder" | "some";
  /** Skill-relative path of the file or folder. */
  path: string;
  files: string[];
  /** How many files the folder holds (for `some`). */
  total: number;
}

/**
 * At most one finding per folder: the highest folder whose files are all
 * unreferenced (and more than one) is one finding; what remains is grouped
 * by the folder that holds it, one finding for two or more files, and a
 * file alone or at the top of the skill is a finding of its own.
 */
function groupByFolder(unreferenced: readonly string[], files: readonly string[]): Finding[] {
  const missing = new Set(unreferenced);
  const inFolder = (folder: string): string[] => files.filter((file) => file.startsWith(`${folder}/`));
  const findings: Finding[] = [];
  const covered = new Set<string>();
  for (const file of unreferenced) {
    if (covered.has(file)) continue;
    for (const folder of ancestors(file)) {
      const members = inFolder(folder);
      if (members.length > 1 && members.every((member) => missing.has(member))) {
        for (const member of members) covered.add(member);
        findings.push({ kind: "folder", path: folder, files: members, total: members.length });
        break;
      }
    }
  }
  const byParent = new Map<string, string[]>();
  for (const file of unreferenced) {
    if (covered.has(file)) continue;
    const parent = posix.dirname(file);
    byParent.set(parent, [...(byParent.get(parent) ?? []), file]);
  }
  for (const [parent, group] of byParent) {
    if (parent === "." || group.length === 1) findings.push(...group.map((file): Finding => ({ kind: "file", path: file, files: [file], total: 1 })));
    else findings.push({ kind: "some", path: parent, files: group, total: files.filter((file) => posix.dirname(file) === parent).length });
  }
  return findings.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** `a/b/c.md` → `a`, `a/b`: the folders above a skill-relative file, highest first. */
function ancestors(file: string): string[] {
  const segments = file.split("/").slice(0, -1);
  return segments.map((_, index) => segments.slice(0, index + 1).join("/"));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A path without the `:line` or `:line:column` after it. */
function withoutLineSuffix(path: string): string {
  return path.replace(/(?::\d+){1,2}$/, "");
}
