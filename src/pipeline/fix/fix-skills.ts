import { lstatSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic, FixRecord } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../stage-data.js";
import { decodeSource, MAX_SOURCE_BYTES, readBytes, sha256Hex } from "../discover/read-source.js";
import { parseSkillFile } from "../parse/parse.js";
import type { Profile } from "../validate/lint-config.js";
import { applyFixes } from "./apply-fixes.js";
import { FIXABLE_RULES, planFixes, type DeclinedFix, type PlannedFix } from "./fix-plan.js";

/** One change `lint --fix` made (or, with --fix-dry-run, would make): where the fixed finding was, its rule, what changed. */
export type SkillFix = FixRecord;

/** A SKILL.md with findings `--fix` could fix that it leaves as they are, and why. */
export interface SkippedFix {
  /** Root-relative POSIX path. */
  file: string;
  reason: string;
}

/** A finding of one SKILL.md (root-relative `file`) that --fix leaves for a person, and why. */
export type FileDeclinedFix = DeclinedFix & { file: string };

/** One SKILL.md with its fixes applied in memory. */
export interface FixedSkillFile {
  /** Root-relative POSIX path. */
  file: string;
  fixes: SkillFix[];
  /** The file's decoded content before and after, BOM and line endings included. */
  before: string;
  after: string;
  /** The fixed file as lint reads it, for checking the result before anything is written. */
  source: SourceFile;
}

const keepBom = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Plans and applies, in memory, the fixes for the findings a lint run
 * reported (after suppressions and the config's severities: what is not
 * reported is not fixed). Files are read again, as bytes: the fix keeps
 * what normalisation hides (BOM, CRLF). Sorted by file.
 */
export async function fixSkillFiles(root: string, diagnostics: readonly Diagnostic[], profile: Profile, skipped?: SkippedFix[], declined?: FileDeclinedFix[]): Promise<FixedSkillFile[]> {
  const byFile = new Map<string, Diagnostic[]>();
  for (const diagnostic of diagnostics) {
    if (!FIXABLE_RULES.has(diagnostic.ruleId) || !diagnostic.file.endsWith("/SKILL.md")) continue;
    byFile.set(diagnostic.file, [...(byFile.get(diagnostic.file) ?? []), diagnostic]);
  }
  const fixed: FixedSkillFile[] = [];
  for (const [file, findings] of [...byFile].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const linked = lstatSync(join(root, file), { throwIfNoEntry: false });
    if (linked === undefined) continue;
    const read = readBytes(root, file);
    if (!("raw" in read)) continue;
    const result = await fixSkillBytes(file, read.raw, findings, profile, declined);
    if (!result) continue;
    if (linked.isSymbolicLink()) {
      // A link is fixed where it points, by whoever owns that file: replacing it here would turn it into a copy. Said, never silent.
      skipped?.push({ file, reason: `it is a symbolic link (to ${linkTarget(join(root, file))}) and --fix never writes through a link, which would replace it with a copy: fix the file it points to` });
      continue;
    }
    if (linked.nlink > 1) {
      // Replacing the file would leave its other names with the old text; writing it in place would change a
      // file the project shares with another place. As for a symbolic link: said, never silent.
      skipped?.push({ file, reason: `it has ${linked.nlink} hard links and --fix never changes a file that has other names, whose text would then differ or change with it: fix it where you mean to, or make it a copy of its own` });
      continue;
    }
    fixed.push(result);
  }
  return fixed;
}

function linkTarget(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "a file that cannot be named";
  }
}

/**
 * The fixes for one SKILL.md's bytes (a file as read, or an editor's buffer),
 * applied in memory; undefined when none of the findings can be fixed safely.
 * `declined`, when given, receives the findings a fix was planned or offered
 * for that are left as they are, and why.
 */
export async function fixSkillBytes(file: string, raw: Uint8Array, findings: readonly Diagnostic[], profile: Profile, declined?: FileDeclinedFix[]): Promise<FixedSkillFile | undefined> {
  const source = decodeSource(file, raw);
  if (!("text" in source)) return undefined;
  const fixable = findings.filter((finding) => FIXABLE_RULES.has(finding.ruleId));
  if (fixable.length === 0) return undefined;
  const before = keepBom.decode(raw);
  const refused: DeclinedFix[] = [];
  const planned = await planFixes(await parseSkillFile(source), fixable, profile, refused);
  const dropped: PlannedFix[] = [];
  const applied = planned.length === 0 ? undefined : applyFixes(source.text, before, planned, dropped);
  for (const fix of dropped) refused.push({ ruleId: fix.ruleId, line: fix.line, column: fix.column, reason: `left as it is: the frontmatter would not read back as the old values with that one change (${fix.message})` });
  declined?.push(...refused.map((entry) => ({ ...entry, file })));
  if (!applied) return undefined;
  const size = Buffer.byteLength(applied.raw, "utf8");
  if (size > MAX_SOURCE_BYTES) {
    // The next lint would refuse the file whole (skill/file-too-large) and drop the skill: a fix may not do that.
    declined?.push(...applied.fixes.map(({ ruleId, line, column }) => ({ file, ruleId, line, column, reason: `left as it is: the fixed file would be ${size} bytes, over the ${MAX_SOURCE_BYTES} a SKILL.md may have (skill/file-too-large), and the next lint would not read it` })));
    return undefined;
  }
  return {
    file,
    // In the order of the file, whichever was planned first.
    fixes: applied.fixes.map(({ ruleId, line, column, message }) => ({ file, line, column, ruleId, message })).sort((a, b) => a.line - b.line || a.column - b.column),
    before,
    after: applied.raw,
    source: { path: file, text: applied.text, contentHash: sha256Hex(Buffer.from(applied.raw, "utf8")), ...(applied.raw.startsWith("\ufeff") ? { byteOrderMark: true as const } : {}) },
  };
}

/**
 * The next pass over a file already fixed in memory: the fixes for the
 * findings its fixed text still has (a fix can make another possible, as a
 * flow-style metadata written in block style lets a field move under it),
 * merged with the earlier passes. Undefined when none applies.
 */
export async function fixSkillAgain(previous: FixedSkillFile, findings: readonly Diagnostic[], profile: Profile, declined?: FileDeclinedFix[]): Promise<FixedSkillFile | undefined> {
  const next = await fixSkillBytes(previous.file, Buffer.from(previous.after, "utf8"), findings, profile, declined);
  if (next === undefined || next.after === previous.after) return undefined;
  return { ...next, before: previous.before, fixes: [...previous.fixes, ...next.fixes] };
}
