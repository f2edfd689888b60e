import { compareDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { ValidSkill } from "../../stage-data.js";
import type { ChecklistStep } from "../../protocol/checklist.js";
import { SKILLS_DIR } from "../discover/discover.js";
import { loadSkillSourcesReusing, type SkillSourceRecord } from "../discover/skill-sources.js";
import { skillSetDiagnostics, type SkillRecord } from "../validate/skill-set-rules.js";
import { defineSlot, type BuildSession } from "../session/build-session.js";
import { checkSkillFile, SkillParseCache } from "./checked-skill.js";

/**
 * The skills half of a build, and all of `lint`: discover every
 * skills/<folder>/SKILL.md, parse it, apply the per-file rules, then the rules
 * across files. One broken skill never stops the others from being checked.
 */

/** Checked files by content hash, kept by the session across builds. */
export const CHECKED_SKILLS = defineSlot<SkillParseCache>("checked skill files");
/** SKILL.md files as last read, with their stamps. */
const SKILL_SOURCES = defineSlot<Map<string, SkillSourceRecord>>("skill sources");

/** How one skill folder fared: `unread` (no readable SKILL.md), `invalid` (an error in its file) or `valid`. */
export interface SkillStatus {
  folder: string;
  status: "valid" | "invalid" | "unread";
}

export interface LintedSkills {
  /** Every finding about skills, sorted by file, position and rule id. */
  diagnostics: Diagnostic[];
  /** One entry per folder in skills/, sorted by folder. */
  statuses: SkillStatus[];
  /** Skills whose own file has no error diagnostic, sorted by name. */
  skills: ValidSkill[];
}

/**
 * Throws ProjectRootError when `root` has no skills/ folder. With
 * `changedPaths` (watch), SKILL.md files the session read before and not
 * named there are taken unread.
 */
export async function lintSkills(root: string, session: BuildSession, changedPaths?: readonly string[]): Promise<LintedSkills> {
  const sources = await loadSkillSourcesReusing(root, session.keep(SKILL_SOURCES, () => new Map()), changedPaths);
  const parseCache = session.keep(CHECKED_SKILLS, () => new SkillParseCache());
  const diagnostics = [...sources.diagnostics];
  const records: Array<SkillRecord & { body: string; bodyStartLine: number; checklist?: ChecklistStep[] }> = [];
  for (const file of sources.files) {
    const checked = await checkSkillFile(file, parseCache);
    diagnostics.push(...checked.diagnostics);
    records.push({ path: file.path, folder: folderOf(file.path), manifest: checked.manifest, opening: checked.opening, body: checked.body, bodyStartLine: checked.bodyStartLine, ...(checked.checklist ? { checklist: checked.checklist } : {}) });
  }
  diagnostics.push(...skillSetDiagnostics(records));
  diagnostics.sort(compareDiagnostics);

  const filesWithErrors = new Set(diagnostics.filter((diagnostic) => diagnostic.severity === "error").map((diagnostic) => diagnostic.file));
  const statuses: SkillStatus[] = sources.unreadFolders.map((folder) => ({ folder, status: "unread" }));
  const skills: ValidSkill[] = [];
  for (const record of records) {
    const { manifest } = record;
    const valid = !filesWithErrors.has(record.path) && manifest?.name !== undefined && manifest.type !== undefined && manifest.description !== undefined;
    statuses.push({ folder: record.folder, status: valid ? "valid" : "invalid" });
    if (!valid || !manifest?.name || !manifest.type || manifest.description === undefined) continue;
    skills.push({
      name: manifest.name,
      type: manifest.type,
      description: manifest.description,
      requiresSkills: uniqueNames(manifest.requiresSkills),
      conflictsWith: uniqueNames(manifest.conflictsWith),
      path: record.path,
      body: record.body,
      bodyStartLine: record.bodyStartLine,
      ...(manifest.disableModelInvocation ? { disableModelInvocation: true as const } : {}),
      ...(record.checklist ? { checklist: record.checklist } : {}),
    });
  }
  statuses.sort((a, b) => compareCodeUnits(a.folder, b.folder));
  skills.sort((a, b) => compareCodeUnits(a.name, b.name));
  return { diagnostics, statuses, skills };
}

function folderOf(path: string): string {
  // Paths come from discover as skills/<folder>/SKILL.md.
  return path.slice(SKILLS_DIR.length + 1, path.lastIndexOf("/"));
}

function uniqueNames(references: ReadonlyArray<{ name: string }>): string[] {
  return [...new Set(references.map((reference) => reference.name))];
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
