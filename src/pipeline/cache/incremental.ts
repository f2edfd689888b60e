import type { ArtifactEntry, DistManifest } from "../../protocol/manifest.js";
import type { EmittedFile } from "../emit/emit.js";
import type { JoinMeasure } from "../render/measure.js";
import { Memo } from "./memo.js";
import type { PreparedTemplates } from "../render/render.js";
import type { SkillSourceRecord } from "../discover/skill-sources.js";
import type { ToolFileResult } from "../validate/tools.js";
import type { SupportingFile } from "../discover/supporting-files.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";

/**
 * What a watch session keeps between builds besides parse results, source
 * texts and token counts. Every entry is keyed by the exact inputs it was
 * computed from (content, or content hash), so a hit gives the same result
 * as computing again; the build is faster, never different. Only types are
 * imported here, so creating the state loads none of the compiler.
 */
export interface IncrementalState {
  /** Tool file results by path and content hash. */
  readonly tools: Memo<string, ToolFileResult>;
  /** Parsed templates by the paths and content hashes of every template source. */
  templates?: { key: string; prepared: PreparedTemplates };
  /** Results that depend on one source file only, by its path and content hash (injection kinds, config). */
  readonly perSource: Map<string, unknown>;
  /** Token figures of the prefix's tail joined with each variant suffix. */
  readonly tokenJoins: Map<string, JoinMeasure>;
  /**
   * Piecewise counting of the prefix and catalog: undefined until the first
   * build checked it against a full count, false if that check ever failed.
   */
  piecewiseCounting?: boolean;
  /** Catalog entries by skill name, with the type and raw description each was rendered from. */
  readonly catalogEntries: Memo<string, { type: string; description: string; entry: string }>;
  /** dist/skills/<name>.md text and hash by the skill's raw body. */
  readonly skillBodies: Memo<string, { text: string; entry: ArtifactEntry }>;
  /** What the last emit wrote or verified in dist/, with the file stamps seen then. */
  readonly emitted: Map<string, EmittedFile>;
  /** SKILL.md files as last read, with their stamps. */
  readonly skillSources: Map<string, SkillSourceRecord>;
  /** Each valid skill folder's supporting files (with the size limit they were read under) and findings. */
  readonly supportingFiles: Map<string, { maxBytes: number; files: SupportingFile[]; diagnostics: Diagnostic[] }>;
  /** The manifest the last build wrote, with its stamp. */
  manifest?: { file: EmittedFile; manifest: DistManifest };
}

export function createIncrementalState(): IncrementalState {
  return { tools: new Memo(), perSource: new Map(), tokenJoins: new Map(), catalogEntries: new Memo(), skillBodies: new Memo(), emitted: new Map(), skillSources: new Map(), supportingFiles: new Map() };
}

/** Drops what the latest build did not use. */
export function sweep(state: IncrementalState): void {
  state.tools.sweep();
  state.catalogEntries.sweep();
  state.skillBodies.sweep();
}
