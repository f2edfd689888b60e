import { countDiagnostics, type Diagnostic } from "./diagnostics/diagnostic.js";
import type { ValidSkill } from "./stage-data.js";
import { lintSkills } from "./pipeline/lint-skills/lint-skills.js";
import { BuildSession } from "./pipeline/session/build-session.js";

export { ProjectRootError } from "./pipeline/discover/discover.js";

export interface LintOptions {
  /** Project root: the folder that holds skills/. */
  root: string;
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
  const { diagnostics, skills } = await lintSkills(options.root, new BuildSession());
  return { diagnostics, ...countDiagnostics(diagnostics), skills };
}
