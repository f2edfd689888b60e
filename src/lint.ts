import { compareDiagnostics, countDiagnostics, type Diagnostic } from "./diagnostics/diagnostic.js";
import type { ValidSkill } from "./model.js";
import { loadSkillSources, type SkillSources } from "./pipeline/discover/discover.js";
import { parseSkill, type SkillParseCache } from "./pipeline/parse/parse.js";
import { validateSkills, type SkillRecord } from "./pipeline/validate/validate.js";

export { ProjectRootError } from "./pipeline/discover/discover.js";

export interface LintOptions {
  /** Project root: the folder that holds skills/. */
  root: string;
  /** Parse results to reuse across runs, keyed by content hash. */
  cache?: SkillParseCache;
  /** The skill files, already read (an incremental build re-reads only changed ones); lint then reads nothing. */
  sources?: SkillSources;
}

export interface LintResult {
  /** Every finding, sorted by file, position and rule id. */
  diagnostics: Diagnostic[];
  errorCount: number;
  warningCount: number;
  /** Skills whose own file has no error diagnostic, sorted by name. */
  skills: ValidSkill[];
}

/**
 * Checks every skill under `root`/skills. One broken skill never stops the
 * others from being checked: every problem in the files is a diagnostic.
 * Throws {@link ProjectRootError} only when `root` is not a folder or has no
 * skills/ folder, which is a usage problem rather than a finding.
 */
export async function lint(options: LintOptions): Promise<LintResult> {
  const sources = options.sources ?? (await loadSkillSources(options.root));
  const { files } = sources;
  // A copy: the caller's sources (a watch session's cache) must not collect this run's findings.
  const diagnostics = [...sources.diagnostics];
  const records: SkillRecord[] = [];
  for (const file of files) {
    const parsed = await parseSkill(file, options.cache);
    diagnostics.push(...parsed.diagnostics);
    records.push({ path: file.path, folder: file.path.split("/").at(-2) ?? "", parsed });
  }
  diagnostics.push(...validateSkills(records));
  diagnostics.sort(compareDiagnostics);

  const filesWithErrors = new Set(diagnostics.filter((diagnostic) => diagnostic.severity === "error").map((diagnostic) => diagnostic.file));
  const skills: ValidSkill[] = [];
  for (const { path, parsed } of records) {
    const manifest = parsed.manifest;
    if (filesWithErrors.has(path) || !manifest?.name || !manifest.type || manifest.description === undefined) continue;
    skills.push({
      name: manifest.name,
      type: manifest.type,
      description: manifest.description,
      requiresSkills: uniqueNames(manifest.requiresSkills),
      conflictsWith: uniqueNames(manifest.conflictsWith),
      path,
      body: parsed.body,
      bodyStartLine: parsed.bodyStartLine,
    });
  }
  skills.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { diagnostics, ...countDiagnostics(diagnostics), skills };
}

function uniqueNames(references: ReadonlyArray<{ name: string }>): string[] {
  return [...new Set(references.map((reference) => reference.name))];
}
