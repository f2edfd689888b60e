/**
 * The data that flows between pipeline stages. Every path is relative to the
 * project root and uses forward slashes; nothing here holds an absolute path.
 */

import type { ChecklistStep } from "./protocol/checklist.js";
import type { Range } from "./diagnostics/diagnostic.js";

export type SkillType = "workflow" | "reference";

/** A source file as read from disk, line endings normalised to LF and any BOM removed. */
export interface SourceFile {
  /** Root-relative POSIX path, e.g. `skills/import/SKILL.md`. */
  path: string;
  /** Text with LF line endings and no BOM. */
  text: string;
  /** sha256 (hex) of the raw bytes as read, before normalisation. */
  contentHash: string;
  /** The raw bytes began with a UTF-8 byte order mark (not part of `text`); absent otherwise. */
  byteOrderMark?: true;
}

/** A skill whose manifest passed every error-level rule; what `build` renders. */
export interface ValidSkill {
  name: string;
  type: SkillType;
  description: string;
  requiresSkills: string[];
  conflictsWith: string[];
  /** Root-relative path of SKILL.md, e.g. `skills/import/SKILL.md`. */
  path: string;
  /** Markdown after the frontmatter, LF line endings, exactly one trailing newline. */
  body: string;
  /** 1-based line in SKILL.md where `body` starts (for mapping positions back). */
  bodyStartLine: number;
  /**
   * `disable-model-invocation: true`: kept out of the catalog and the skill
   * tool's names; a variant may still preload it and the host activate it.
   */
  disableModelInvocation?: true;
  /** A workflow skill's checklist (dist/skills/<name>.steps.json). */
  checklist?: ChecklistStep[];
  /** `toolNamespaces`: the tool namespaces the skill needs, each with where it is written; absent when none. */
  toolNamespaces?: Array<{ name: string; range: Range }>;
}
