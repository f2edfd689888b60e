import { posix, resolve, sep } from "node:path";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { quoted, quotedPath, shownPath } from "../../diagnostics/quote.js";
import { bracketed, linkTail, scanBodyLinks, stickyTail, type BracketMatch } from "../parse/body-links.js";
import { PathProbes, type Existence } from "../discover/path-probes.js";

/**
 * Three rules over the paths a skill's body names, read as GFM reads the
 * body (parse/body-links.ts: code, HTML, tables and footnotes are not links).
 *
 * `skill/broken-link` (error): a Markdown link, image or reference definition
 * with a relative target names a file that exists. Inside the skill's folder
 * and anywhere else in the project the answer is certain, so it is sure
 * enough to fail a build. An absolute path is judged so only where it lies
 * inside the project's own folder on this machine.
 *
 * `skill/link-outside-skill` (warning): a link that leaves the skill's folder
 * to a file that exists in this tree (a sibling skill, the plugin's README),
 * or to a place beyond the project root, which cannot be judged: a relative
 * path out of the root, or an absolute one (`/mnt/skills/user/x/SKILL.md`,
 * where Claude.ai mounts skills; `/docs/x.md`, read from a repository's root
 * on its page). It works while the skill sits in this tree (or on the host
 * whose file system it names) and breaks for a skill installed on its own,
 * so whether it is a problem depends on how the skill travels.
 *
 * `skill/unresolved-path` (note): a path written outside a link (in prose
 * or in an inline code span) that starts with one of the specification's
 * folders (`scripts/`, `references/`, `assets/`) or with a folder the skill
 * has, names a file with an extension, and exists neither relative to the
 * skill's folder nor relative to any folder between it and the project root
 * (collections keep shared scripts at a plugin root), nor in another skill of
 * the project (a body may name a sibling skill's `references/x.md`). Such a
 * mention is often relative to something else (a command's working folder, a
 * file the skill tells the agent to create, a file of another repository or of
 * the user's project), so it is a note by default, and
 * it is not reported at all when it is part of a command line (an inline code
 * span that holds more than the path, or a line that starts with `$ `) or
 * follows a variable (`${ROOT}/scripts/x.py`, `$ROOT/scripts/x.py`).
 *
 * All: code is skipped (it shows commands and examples, often for other
 * projects); URLs, anchors, globs, placeholders, paths into dot-folders (a
 * skill never ships one: `.repo-wiki/x.md` is the user's workspace), paths in
 * a home folder (`~/x.md`) and slash commands (`/plugin:skill`) are not files
 * to check; paths introduced as
 * examples ("e.g.", "for example", "such as") are not checked. A target the
 * file system cannot even look at (a NUL byte, a name longer than the system
 * allows) cannot resolve: it is a finding too.
 */

export interface LinkCheckInput {
  /** Project root, absolute or relative to the working folder. */
  root: string;
  /** Root-relative path of SKILL.md. */
  path: string;
  body: string;
  /** 1-based line in SKILL.md where `body` starts. */
  bodyStartLine: number;
  /** Whether another skill of the project holds this skill-relative path (`references/x.md`): a mention may name a file of a skill it names. */
  inOtherSkill?: (skillRelative: string) => boolean;
  /** Where the run's lookups are made and kept (one per run, so a path is looked up once); default: this call's own. */
  probes?: PathProbes;
  /** Whether the skill is built into dist/ (an agent's, the gamma profile): then a link to a dotfile it does not ship is told. */
  built?: boolean;
}

/** The folders the Agent Skills specification names for supporting files. */
const SPEC_FOLDERS = ["scripts", "references", "assets"];
/** BARE_PATH's test, without the global flag's lastIndex. */
const HAS_PATH = /(?<![\w./@$~:-])(?:\.\/)?[A-Za-z0-9_][\w-]*\/(?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,8}(?![\w/-])/;
const BARE_PATH = /(?<![\w./@$~:-])((?:\.\/)?[A-Za-z0-9_][\w-]*\/(?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,8})(?![\w/-])/g;

type LinkRule = "skill/broken-link" | "skill/link-outside-skill" | "skill/unresolved-path" | "skill/supporting-file-skipped";

/**
 * What a body gives the check to look up, found from its text alone: the targets of its Markdown links and the
 * path mentions worth looking up, each with where it is written, in the order the check reports them. A
 * session that checks the same body again (watch) keeps its plan: only the lookups depend on the files around it.
 */
export interface LinkPlan {
  links: ReadonlyArray<{ written: string; line: number; column: number }>;
  mentions: ReadonlyArray<{ candidate: string; line: number; column: number }>;
}

const NOTHING_TO_CHECK: LinkPlan = { links: [], mentions: [] };

export function planLinkCheck(body: string, bodyStartLine: number): LinkPlan {
  // A body without "/" or "]" holds neither a link nor a path.
  if (!body.includes("/") && !body.includes("]")) return NOTHING_TO_CHECK;
  const lines = body.split("\n");
  const { links, prose } = scanBodyLinks(body, bodyStartLine, lines);
  const mentions: Array<LinkPlan["mentions"][number]> = [];
  let labels: Set<string> | undefined;
  const definedLabels = (): Set<string> => (labels ??= referenceLabels(lines));
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index] ?? "";
    // Path mentions: in prose and inline code, not inside a Markdown link's parentheses (checked above),
    // not on a command line, and not where the text shows examples of what a skill could hold ("Example: `scripts/rotate.py`").
    if (!prose[index] || !text.includes("/")) continue;
    if (!HAS_PATH.test(text) || COMMAND_LINE.test(text) || isExampleContext(lines, index)) continue;
    const spans = inlineCodeSpans(text);
    const examplesFrom = exampleWordsEnd(text);
    const withoutInline = blankOut(text, bracketed(text, linkTail(text)));
    const withoutLinks = blankOut(withoutInline, bracketed(withoutInline, stickyTail(withoutInline, REFERENCE_TAIL)).filter((link) => definedLabels().has(normalizeLabel(link.groups[0] || link.label))));
    for (const match of withoutLinks.matchAll(BARE_PATH)) {
      const candidate = match[1] ?? "";
      const offset = match.index ?? 0;
      // `./scripts/deploy.sh` written alone is a command run in the user's working folder.
      if (candidate.startsWith("./") || examplesFrom <= offset) continue;
      if (isPartOfCommand(spans, offset, candidate.length)) continue;
      mentions.push({ candidate, line: bodyStartLine + index, column: offset + 1 });
    }
  }
  // Escaped (`..\..\README.md`, which GFM reads `....\README.md`): a backslash path either way, judged as written.
  return { links: links.map((link) => ({ written: link.written ?? link.target, line: link.line, column: link.column })), mentions };
}

/** `plan`: the body's {@link planLinkCheck}, when the caller kept it from an earlier check of the same body and start line. */
export function brokenLinkDiagnostics(input: LinkCheckInput & { plan?: LinkPlan }): Diagnostic[] {
  const plan = input.plan ?? planLinkCheck(input.body, input.bodyStartLine);
  if (plan.links.length === 0 && plan.mentions.length === 0) return [];
  const skillDir = posix.dirname(input.path);
  const diagnostics: Diagnostic[] = [];
  const probes = input.probes ?? new PathProbes(input.root);
  const exists = (relative: string): Existence => probes.exists(relative);
  const near = (relative: string): string | undefined => probes.nearMatch(relative);
  const report = (ruleId: LinkRule, target: string, line: number, column: number, message: string): void => {
    diagnostics.push(createDiagnostic(ruleId, input.path, { start: { line, column }, end: { line, column: column + target.length } }, message));
  };
  const root = resolve(input.root).split(sep).join("/");
  for (const link of plan.links) {
    const problem = linkProblem(link.written, skillDir, root, exists, near, input.built === true);
    if (problem) report(problem.ruleId, link.written, link.line, link.column, problem.message);
  }
  const topFolders = (name: string): boolean => SPEC_FOLDERS.includes(name) || exists(`${skillDir}/${name}`) === "directory";
  for (const { candidate, line, column } of plan.mentions) {
    if (!topFolders(candidate.split("/")[0] ?? "")) continue;
    const problem = mentionProblem(candidate, skillDir, exists, near, input.inOtherSkill);
    if (problem) report("skill/unresolved-path", candidate, line, column, problem);
  }
  return diagnostics;
}

/** `[text][label]`, `[text][]` and `[text]`, from the text's closing `]`: a reference link when its label (group 1; the text, for the last two) has a definition. */
const REFERENCE_TAIL = /\](?:\[((?:[^\]\\\n]|\\.)*)\])?/y;

/** The text with each match replaced by as many spaces. */
function blankOut(text: string, matches: readonly BracketMatch[]): string {
  let result = "";
  let position = 0;
  for (const match of matches) {
    result += text.slice(position, match.index) + " ".repeat(match.whole.length);
    position = match.index + match.whole.length;
  }
  return result + text.slice(position);
}

const LABEL_DEFINITION = /^ {0,3}(?:>\s*)*\[((?:[^\]\\\n]|\\.)+)\]:/;

/** The labels the body defines (`[up]: https://…`), normalised as CommonMark matches them. */
function referenceLabels(lines: readonly string[]): Set<string> {
  const labels = new Set<string>();
  for (const line of lines) {
    const label = LABEL_DEFINITION.exec(line)?.[1];
    if (label !== undefined && !label.startsWith("^")) labels.add(normalizeLabel(label));
  }
  return labels;
}

function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, " ").toLowerCase();
}

const EXAMPLE_WORDS = /\bexamples?\b|\be\.g\.|\bfor instance\b|\bsuch as\b/i;
/**
 * Where the line's first example word ends (Infinity without one): a path
 * after it is introduced as an example. The words never overlap and a path
 * never starts inside one, so "the text before the path holds an example
 * word" is "the first one ends at or before the path", found in one pass
 * over the line however many paths it names.
 */
function exampleWordsEnd(text: string): number {
  const match = EXAMPLE_WORDS.exec(text);
  return match ? match.index + match[0].length : Number.POSITIVE_INFINITY;
}

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

/**
 * The target is a local relative path worth looking up: not a URL, an
 * anchor, a glob or a placeholder, not a path into a dot-folder (a skill
 * never ships one, so `.repo-wiki/x.md` is the user's workspace) or a home
 * folder (`~/x.md`, `~user/x.md`, as a shell reads a leading `~`), and not a
 * slash command (`/plugin:skill` names another skill). A URL's scheme has
 * two letters or more: `C:` is a Windows drive, not a scheme. Folders are
 * split at backslashes too, so `.\references\x.md` is no dot-folder.
 */
function localTarget(rawTarget: string): string | undefined {
  const target = linkedPath(rawTarget);
  if (target === undefined || target === "" || /[*?<>{}$]|\[|\]/.test(target) || target.startsWith("~") || isPlaceholder(target)) return undefined;
  if (target.split(/[\\/]/).some(isDotSegment)) return undefined;
  if (/^\/[^/]*:/.test(target)) return undefined;
  return target;
}

/** The path a link's target names, decoded, without its query or fragment; undefined for a URL, an anchor or a `//host` link. */
function linkedPath(rawTarget: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]+:/i.test(rawTarget) || rawTarget.startsWith("#") || rawTarget.startsWith("//")) return undefined;
  return safeDecode(rawTarget.replace(/[?#].*$/, ""));
}

/** A dotfile's or dot-folder's name (`.zshrc`, `.repo-wiki`), not `.` or `..`. */
function isDotSegment(segment: string): boolean {
  return segment.startsWith(".") && segment !== "." && segment !== "..";
}

/**
 * A target written as a placeholder for the model to fill in, not as a file:
 * one capitalised word such as `[Open](LINK)` or `(YOUR_URL)` (the files
 * people name that way, LICENSE, README and the like, are still checked), or
 * a name holding `xxx`, `NNN` or a date pattern (`reference/Sxxxxx.md`,
 * `output-NNN.md`, `notes/YYYY-MM-DD.md`).
 */
function isPlaceholder(target: string): boolean {
  if (/^[A-Z][A-Z0-9_-]*$/.test(target)) return !CONVENTIONAL_FILE.test(target);
  const name = target.slice(target.lastIndexOf("/") + 1);
  return /x{3,}|X{3,}|N{3,}|YYYY|(?<![A-Za-z])(?:MM|DD)(?![A-Za-z])/.test(name);
}

/** Files people name in capitals without an extension. */
const CONVENTIONAL_FILE = /^(?:LICEN[CS]E|README|CHANGELOG|CHANGES|NOTICE|COPYING|AUTHORS|CONTRIBUTORS|CONTRIBUTING|CODEOWNERS|VERSION|INSTALL|SECURITY|PATENTS|MAINTAINERS|HISTORY)$/;

/**
 * Why a Markdown link's target is wrong (and which rule says so), or undefined when it is fine or not a local
 * file at all. `root`: the project's folder as an absolute path with forward slashes.
 */
function linkProblem(rawTarget: string, skillDir: string, root: string, exists: (relative: string) => Existence, near: (relative: string) => string | undefined, built: boolean): { ruleId: LinkRule; message: string } | undefined {
  const target = localTarget(rawTarget);
  if (target === undefined) return built ? shippedNot(rawTarget, skillDir, exists) : undefined;
  const shown = quoted(rawTarget);
  const broken = (message: string): { ruleId: LinkRule; message: string } => ({ ruleId: "skill/broken-link", message });
  if (target.startsWith("/")) {
    const absolute = posix.normalize(target);
    const rootPrefix = root.endsWith("/") ? root : `${root}/`;
    if (absolute.startsWith(rootPrefix)) {
      // The project's own folder on this machine, the one absolute place lint sees: a missing file there is missing.
      const inside = absolute.slice(rootPrefix.length);
      const found = exists(inside);
      if (found === "absent") return broken(missingLinkMessage(target, inside, skillDir, near(inside)));
      if (found === "unreadable") return broken(`Unexpected link ${shown}, which no file system can look up (a NUL byte, or a name longer than the system allows), expected a file inside ${skillDir}/`);
      if (found === "denied") return broken(`Unexpected link ${shown}, which lint may not look up (permission denied, EACCES, on a folder of its path), expected a file at ${shownPath(inside)} that can be read`);
      if (found === "special") return broken(`Unexpected link to ${quoted(target)}, which is not a regular file (a FIFO, a socket or a device), expected a file at ${shownPath(inside)}`);
      return {
        ruleId: "skill/link-outside-skill",
        message: `Unexpected absolute link ${shown} into the project's folder on this machine, expected a path relative to the skill's folder (${skillDir}/): a model reading the skill anywhere else, or a skill installed on its own, does not find it`,
      };
    }
    // `/docs/adr.md`: a repository page resolves it from the repository's root, so when the project holds it, it works there and nowhere else.
    const atRoot = posix.normalize(target.slice(1));
    const held = atRoot !== "." && !atRoot.startsWith("../") && exists(atRoot);
    if (held === "file" || held === "directory") {
      return {
        ruleId: "skill/link-outside-skill",
        message: `Unexpected root-relative link ${shown}, expected a path relative to ${skillDir}/ (a repository page resolves it from the project's root, but a model reading the skill's file, or a skill installed on its own, does not find it)`,
      };
    }
    // Any other absolute path names the file system of whatever reads the skill (Claude.ai mounts skills at
    // /mnt/skills/user/<name>/ and /mnt/skills/public/<name>/), which lint cannot see: a warning, also where
    // a repository page, reading it from the project's root, finds nothing.
    const firstFolder = atRoot.split("/")[0] ?? "";
    const pageReading = firstFolder !== "" && firstFolder !== "." && firstFolder !== ".." && exists(firstFolder) === "directory";
    return {
      ruleId: "skill/link-outside-skill",
      message: pageReading
        ? `Unexpected absolute link ${shown}, expected a path relative to the skill's folder (${skillDir}/): read from the project's root, as a repository page reads it, it names no file (${shownPath(atRoot)} does not exist), and on the file system of the host that reads the skill lint cannot look`
        : `Unexpected absolute link ${shown}, expected a path relative to the skill's folder (${skillDir}/): it names a place on the file system of the host that reads the skill (Claude.ai mounts skills at /mnt/skills/), where lint cannot look, and a skill installed on its own may not find it`,
    };
  }
  // `C:\docs\x.md`, `C:/docs/x.md`: a path on one Windows machine's drive, which no other reader has.
  if (/^[a-z]:[\\/]/i.test(target)) return broken(`Unexpected absolute link ${shown} (a Windows drive path), expected a path relative to the skill's folder (${skillDir}/)`);
  // GFM keeps a backslash that escapes nothing: only Windows reads it as a folder separator, every other reader finds no file.
  if (target.includes("\\")) return broken(`Unexpected backslash in link ${shown}, expected forward slashes (${quoted(target.replace(/\\+/g, "/"))}): only Windows reads a backslash as a folder separator`);
  const resolved = posix.normalize(`${skillDir}/${target}`);
  const found = resolved.startsWith("../") || resolved === ".." ? "absent" : exists(resolved);
  if (found === "unreadable") return broken(`Unexpected link ${shown}, which no file system can look up (a NUL byte, or a name longer than the system allows), expected a file inside ${skillDir}/`);
  if (found === "denied") return broken(`Unexpected link ${shown}, which lint may not look up (permission denied, EACCES, on a folder of its path), expected a file at ${shownPath(resolved)} that can be read`);
  if (found === "special") return broken(`Unexpected link to ${quoted(target)}, which is not a regular file (a FIFO, a socket or a device), expected a file at ${shownPath(resolved)}`);
  if (resolved !== skillDir && !resolved.startsWith(`${skillDir}/`)) {
    // Outside the skill's folder: a file there works while the skill sits in this tree, and one beyond the project cannot be judged.
    const beyondRoot = resolved.startsWith("../") || resolved === "..";
    if (found === "absent" && !beyondRoot) return broken(missingLinkMessage(target, resolved, skillDir, near(resolved)));
    return {
      ruleId: "skill/link-outside-skill",
      message: beyondRoot
        ? `Unexpected link ${shown} outside the skill's folder and the project, expected a file inside ${skillDir}/ (lint cannot look beyond the project's root, and a skill installed on its own, as its folder, loses it)`
        : `Unexpected link ${shown} outside the skill's folder, expected a file inside ${skillDir}/ (it resolves in this tree, but a skill installed on its own, as its folder, loses it)`,
    };
  }
  if (found === "file" || found === "directory") return undefined;
  return broken(missingLinkMessage(target, resolved, skillDir, near(resolved)));
}

/**
 * A link to a dotfile, or into a dot-folder, of the skill's own folder that
 * is there: the body hands it to the model, but the build leaves dotfiles out
 * of dist/, so no deployed skill has it (`[template](resources/.zshrc)`). A
 * dot path that is not in the skill is the user's workspace, and not judged;
 * nor is a plain collection's skill, which hosts read from its folder.
 */
function shippedNot(rawTarget: string, skillDir: string, exists: (relative: string) => Existence): { ruleId: LinkRule; message: string } | undefined {
  const target = linkedPath(rawTarget);
  if (target === undefined || /^[/~]/.test(target) || target.includes("\\") || !target.split("/").some(isDotSegment)) return undefined;
  const resolved = posix.normalize(`${skillDir}/${target}`);
  if (!resolved.startsWith(`${skillDir}/`) || exists(resolved) !== "file") return undefined;
  return {
    ruleId: "skill/supporting-file-skipped",
    message: `Unexpected link to ${quoted(rawTarget)}, a dotfile or a file in a dot-folder, which the build leaves out of dist/, expected a name without a leading dot for a file the skill ships (rename it, such as zshrc.template for .zshrc)`,
  };
}

/**
 * A link to nothing; when a file has the same name up to letter case or
 * Unicode form, the message names it as it is spelled on disk: the two names
 * may look the same, and a file system that ignores the difference would
 * hide it on one machine and not on another.
 */
function missingLinkMessage(target: string, resolved: string, skillDir: string, near: string | undefined): string {
  const at = shownPath(resolved);
  if (near === undefined) return `Unexpected link to ${quoted(target)}, which does not exist, expected a file at ${at}`;
  return `Unexpected link to ${quoted(target)}, which names no file as written, expected ${spelledAs(resolved, near, skillDir)}`;
}

/**
 * The name on disk and why it does not count: "references/Tone.md" (the file
 * is named references/Tone.md: names must match exactly, …), shown relative
 * to the skill's folder when it is inside it, with the encodings when the
 * names differ only in them (they print the same).
 */
function spelledAs(written: string, near: string, skillDir: string): string {
  const shown = near.startsWith(`${skillDir}/`) ? near.slice(skillDir.length + 1) : near;
  const encoding = written.normalize("NFC") === near.normalize("NFC") ? `, the same letters in another Unicode form (${normalForm(near)} on disk, ${normalForm(written)} as written)` : "";
  return `${quotedPath(shown)} (the file is named ${shownPath(shown)}${encoding}: names must match exactly, letter case and Unicode form included)`;
}

function normalForm(text: string): string {
  return text === text.normalize("NFC") ? "NFC" : text === text.normalize("NFD") ? "NFD" : "neither NFC nor NFD";
}

/**
 * Why a path mentioned outside a link resolves nowhere, or undefined when it
 * names a file relative to the skill's folder or to a folder above it up to
 * the project root.
 */
function mentionProblem(mention: string, skillDir: string, exists: (relative: string) => Existence, near: (relative: string) => string | undefined, inOtherSkill?: (skillRelative: string) => boolean): string | undefined {
  if (localTarget(mention) === undefined || mention.includes("\\")) return undefined;
  let unreadable = false;
  let denied = false;
  let special = false;
  for (let folder = skillDir; ; folder = posix.dirname(folder)) {
    const found = exists(folder === "." ? posix.normalize(mention) : posix.normalize(`${folder}/${mention}`));
    if (found === "file" || found === "directory") return undefined;
    if (found === "unreadable") unreadable = true;
    if (found === "denied") denied = true;
    if (found === "special") special = true;
    if (folder === "." || folder === "/" || folder === "") break;
  }
  const spelled = inOtherSkill?.(posix.normalize(mention)) ? undefined : misspelledMention(mention, skillDir, near);
  if (spelled !== undefined) return spelled;
  // "design-system's `references/triage.md`": a file of another skill of the project.
  if (inOtherSkill?.(posix.normalize(mention))) return undefined;
  if (denied) return `Unexpected path ${quoted(mention)}, which lint may not look up (permission denied, EACCES, on a folder of its path), expected a file in the skill's folder that can be read`;
  if (special) return `Unexpected path ${quoted(mention)}, which names something that is not a regular file (a FIFO, a socket or a device), expected a file in the skill's folder`;
  if (unreadable) return `Unexpected path ${quoted(mention)}, which no file system can look up (a NUL byte, or a name longer than the system allows), expected a file in the skill's folder`;
  return `Unexpected path ${quoted(mention)}, which names no file in ${skillDir}/ or a folder above it, expected an existing file, or a Markdown link when the skill ships the file`;
}

/** A mention that names a file only up to letter case or Unicode form, in the nearest folder where one does, and why it does not count. */
function misspelledMention(mention: string, skillDir: string, near: (relative: string) => string | undefined): string | undefined {
  for (let folder = skillDir; ; folder = posix.dirname(folder)) {
    const resolved = folder === "." ? posix.normalize(mention) : posix.normalize(`${folder}/${mention}`);
    const spelled = near(resolved);
    if (spelled !== undefined) return `Unexpected path ${quoted(mention)}, which names no file as written, expected ${spelledAs(resolved, spelled, skillDir)}`;
    if (folder === "." || folder === "/" || folder === "") return undefined;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
