/**
 * What `report` shows, as data: gathered once from the library (the verified
 * dist/, its cache plan, `cost`, `lint`, the evaluation statistics) and then
 * rendered as HTML or Markdown. Renderers compute nothing but layout.
 */
import type { CostResult } from "../cost/cost.js";
import type { InvalidationCost } from "../cost/invalidation.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { BaselineComparison, EvalResults } from "../evals/results.js";
import type { CacheBlockName, CachePlanBlock } from "../protocol/cache-plan.js";
import type { SkillInfo } from "../protocol/dist-manifest.js";

export interface ReportData {
  /** generator name and version, tokenizer encoding, from the manifest. */
  generator: string;
  tokenizer: string;
  /** The static prefix's cache key (tools + prefix). */
  cacheKey: string;
  layout: VariantLayout[];
  /** The leading blocks every variant has byte for byte (absent with fewer than two variants). */
  sharedPrefix?: SharedPrefix;
  cost: CostResult;
  base?: BaseComparison;
  skills: SkillsView;
  evals?: EvalsView;
}

export interface VariantLayout {
  name: string;
  /** Tokens of tools and the whole system prompt (the last block's running total). */
  tokens: number;
  blocks: CachePlanBlock[];
  preloadedSkills: string[];
}

export interface SharedPrefix {
  /** How many leading blocks (in cache order) are identical in every variant. */
  blockCount: number;
  blocks: CacheBlockName[];
  tokens: number;
  variants: string[];
}

/** A block's state against the base: cached bytes kept, bytes changed, or bytes kept but after a change (so not served). */
export type BlockState = "intact" | "changed" | "invalidated" | "new";

export interface BaseComparison {
  /** The `--base` as given (a folder or a git ref). */
  label: string;
  /** Every cached block of every variant is served from the base's cache entries. */
  intact: boolean;
  changes: ArtifactChange[];
  variants: Array<{ name: string; blocks: Array<{ name: CacheBlockName; tokens: number; cumulativeTokens: number; state: BlockState }> }>;
  /** Variants the base has and this build does not. */
  removedVariants: string[];
  /** Per affected variant, from `invalidationCost` (the figures `check` and `watch` print). */
  invalidation: InvalidationCost[];
  /** The runtime's default policies, base against now, under the same traffic profile. */
  costDelta: CostDelta[];
  /** Why there is no cost delta, when there is none (the profile does not fit the base, naming what did not fit, or starts no session of a variant both builds have). */
  costDeltaProblem?: string;
}

export interface ArtifactChange {
  file: string;
  kind: "added" | "removed" | "changed";
  bytesBefore?: number;
  bytesAfter?: number;
  /** Per variant, the blocks this file's change leaves uncached (its own changed block and every block after it). */
  invalidates: Array<{ variant: string; blocks: CacheBlockName[] }>;
}

export interface CostDelta {
  provider: string;
  model: string;
  policy: string;
  variant: string;
  before: number;
  after: number;
}

export interface SkillsView {
  skills: SkillView[];
  variants: Array<{ name: string; tokens: number; preloads: string[] }>;
  /** Lint findings no skill owns (configuration, project layout). */
  otherFindings: Diagnostic[];
  /** Why lint did not run (no skills/ sources under the root); absent when it ran. */
  lintSkipped?: string;
  /** When lint ran: how many SKILL.md files it read (not the skills of dist/manifest.json). */
  skillFilesLinted?: number;
}

export interface SkillView {
  name: string;
  type: SkillInfo["type"];
  tokens: number;
  /** Steps of a workflow's compiled checklist. */
  checklistSteps?: number;
  requires: string[];
  /** Declared on either side. */
  conflicts: string[];
  preloadedBy: string[];
  /** Lint read this skill's SKILL.md (false for a skill of dist/ without a source under the root). */
  linted: boolean;
  findings: Diagnostic[];
}

export interface EvalsView {
  results: EvalResults;
  /**
   * The results were measured on another build than the one reported (their
   * cache key differs from dist/'s): a warning on the page, never an error,
   * since reporting an earlier build's results can be on purpose.
   */
  otherBuild?: { resultsCacheKey: string; buildCacheKey: string };
  /** Against `--baseline`, else the comparison the results document carries. */
  comparison?: BaselineComparison;
}
