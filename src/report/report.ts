/**
 * `report`: gathers what a reviewer needs about a build (layout and cache
 * plan per variant, the `cost` table, the skills graph with lint findings,
 * evaluation results, and what changed against a base) into one
 * {@link ReportData}, from the same library calls the other commands make.
 */
import { join, resolve } from "node:path";
import { cost, type CostResult } from "../cost/cost.js";
import { expectBoolean, expectObject, expectString } from "../protocol/arguments.js";
import { ProfileError, profileForBuild } from "../cost/profile.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { compareWithBaseline, resultsProblem, type EvalResults } from "../evals/results.js";
import type { DistManifest } from "../protocol/dist-manifest.js";
import { ArtifactVerificationError, loadArtifacts, type LoadedArtifacts } from "../runtime/artifacts.js";
import { requirementClosure, symmetricConflicts } from "../protocol/skill-graph.js";
import { compareWithBase, ReportUsageError, resolveBaseDist } from "./base.js";
import type { ReportData, SharedPrefix, SkillsView, VariantLayout } from "./model.js";

export { ReportUsageError } from "./base.js";
export type * from "./model.js";

export interface ReportOptions {
  /** Project root (default: the working folder). */
  root?: string;
  /** Output folder relative to the root (default dist). */
  outDir?: string;
  /** A dist/ folder, a project holding one, or a git ref whose committed dist/ to compare with. */
  base?: string;
  /** A traffic profile for `cost` (parsed JSON). */
  profile?: unknown;
  /** An `eval --format json` results document. */
  evals?: EvalResults;
  /** An earlier results document to find regressions against. */
  evalBaseline?: EvalResults;
  /** Run lint on the skill sources for findings beside each skill (default true; skipped without a skills/ folder). */
  lint?: boolean;
}

export async function collectReport(options: ReportOptions = {}): Promise<ReportData> {
  const given: unknown = options;
  expectObject(given, "collectReport options", 'an object such as { root: "." }');
  for (const key of ["root", "outDir", "base"]) {
    if (given[key] !== undefined) expectString(given[key], key, "a string", true);
  }
  for (const key of ["evals", "evalBaseline"]) {
    if (given[key] === undefined) continue;
    expectObject(given[key], key, "an eval --format json results document (parsed)");
    const problem = resultsProblem(given[key]);
    if (problem !== undefined) throw new TypeError(`Unexpected ${key} document, ${problem} (an eval --format json results document, parsed)`);
  }
  if (given["lint"] !== undefined) expectBoolean(given["lint"], "lint");
  const root = resolve(options.root ?? ".");
  const outDir = options.outDir ?? "dist";
  const artifacts = loadArtifacts({ distDir: resolve(root, outDir) });
  const priced = cost({ root, outDir, profile: options.profile });
  const manifest = artifacts.manifest;
  const layout = variantLayouts(artifacts);
  const data: ReportData = {
    generator: `${manifest.generator.name} ${manifest.generator.version}`,
    tokenizer: `${manifest.tokenizer.name} ${manifest.tokenizer.version} (${manifest.tokenizer.encoding})`,
    cacheKey: manifest.staticPrefix.cacheKey,
    layout,
    cost: priced,
    skills: await skillsView(root, manifest, options.lint !== false),
  };
  const shared = sharedPrefix(layout);
  if (shared !== undefined) data.sharedPrefix = shared;
  if (options.base !== undefined) {
    const base = resolveBaseDist(root, outDir, options.base);
    try {
      let before: LoadedArtifacts;
      try {
        before = loadArtifacts({ distDir: base.dir });
      } catch (error) {
        if (!(error instanceof ArtifactVerificationError)) throw error;
        throw new ReportUsageError(`Unexpected --base ${options.base}: its ${error.message}`);
      }
      let costs: { before: CostResult; after: CostResult } | { problem: string };
      try {
        // The profile is this build's: the base is priced with the entries that fit it (not the namespaces and variants it lacks).
        const fitted = profileForBuild(options.profile, Object.keys(before.cachePlan.variants), Object.keys(before.manifest.namespaces ?? {}));
        costs = { before: cost({ root: base.dir, outDir: ".", profile: fitted, artifacts: before }), after: priced };
      } catch (error) {
        if (!(error instanceof ProfileError)) throw error;
        costs = { problem: `the traffic profile does not fit the base (${error.message})` };
      }
      data.base = compareWithBase(options.base, before, artifacts, costs);
    } finally {
      base.dispose();
    }
  }
  if (options.evals !== undefined) {
    const comparison = options.evalBaseline !== undefined ? compareWithBaseline(options.evalBaseline, options.evals.scenarios) : options.evals.baseline;
    const resultsCacheKey = options.evals.cacheKey;
    data.evals = {
      results: options.evals,
      ...(comparison === undefined ? {} : { comparison }),
      ...(resultsCacheKey === data.cacheKey ? {} : { otherBuild: { resultsCacheKey, buildCacheKey: data.cacheKey } }),
    };
  }
  return data;
}

function variantLayouts(artifacts: LoadedArtifacts): VariantLayout[] {
  return Object.entries(artifacts.cachePlan.variants).map(([name, plan]) => ({
    name,
    tokens: plan.blocks.at(-1)?.cumulativeTokens ?? 0,
    blocks: plan.blocks,
    preloadedSkills: artifacts.manifest.variants[name]?.preloadedSkills ?? [],
  }));
}

/** The leading blocks whose bytes (sha256) are the same in every variant. */
function sharedPrefix(layout: readonly VariantLayout[]): SharedPrefix | undefined {
  const [first, ...others] = layout;
  if (first === undefined || others.length === 0) return undefined;
  let count = 0;
  while (count < first.blocks.length && others.every((variant) => variant.blocks[count]?.sha256 === first.blocks[count]?.sha256)) count++;
  return { blockCount: count, blocks: first.blocks.slice(0, count).map((block) => block.name), tokens: count === 0 ? 0 : (first.blocks[count - 1]?.cumulativeTokens ?? 0), variants: layout.map((variant) => variant.name) };
}

async function skillsView(root: string, manifest: DistManifest, runLint: boolean): Promise<SkillsView> {
  const names = Object.keys(manifest.skills).sort();
  const requires = new Map(names.map((name) => [name, manifest.skills[name]?.requiresSkills ?? []]));
  const conflicts = symmetricConflicts(new Map(names.map((name) => [name, manifest.skills[name]?.conflictsWith ?? []])));
  const variants = Object.entries(manifest.variants).map(([name, info]) => {
    // Drawn as preloads: the skills no other preloaded skill brings in through its requirements.
    const brought = new Set(info.preloadedSkills.flatMap((skill) => requirementClosure(requires, [skill]).filter((other) => other !== skill)));
    return { name, tokens: info.tokens, preloads: info.preloadedSkills.filter((skill) => !brought.has(skill)) };
  });
  let findings: Diagnostic[] = [];
  let lintSkipped: string | undefined = runLint ? undefined : "lint was not asked for";
  let skillFilesLinted = 0;
  const linted = new Set<string>();
  const owner = (finding: Diagnostic): string | undefined => {
    const parts = finding.file.split("/");
    return names.find((name) => parts.slice(0, -1).includes(name));
  };
  if (runLint) {
    const { lint, ProjectRootError } = await import("../lint.js");
    try {
      const result = await lint({ root, checklists: false });
      findings = result.diagnostics;
      skillFilesLinted = result.skillFileCount;
      // The skills whose SKILL.md lint read: the valid ones and those with findings in their own SKILL.md.
      for (const skill of result.skills) linted.add(skill.name);
      for (const finding of findings) {
        const name = owner(finding);
        if (name !== undefined && finding.file.endsWith("/SKILL.md")) linted.add(name);
      }
    } catch (error) {
      if (!(error instanceof ProjectRootError)) throw error;
      // The page never holds the absolute root: the message names it only as "the project".
      lintSkipped = `no skill sources to lint (${error.message.split(`project root "${root}"`).join("the project")})`;
    }
  }
  const skills = names.map((name) => {
    const info = manifest.skills[name];
    const view = {
      name,
      type: info?.type ?? "reference",
      tokens: info?.tokens ?? 0,
      requires: [...(info?.requiresSkills ?? [])],
      conflicts: [...(conflicts.get(name) ?? [])].sort(),
      preloadedBy: Object.entries(manifest.variants)
        .filter(([, variant]) => variant.preloadedSkills.includes(name))
        .map(([variant]) => variant),
      findings: findings.filter((finding) => owner(finding) === name),
      linted: linted.has(name),
    };
    return info?.checklist === undefined ? view : { ...view, checklistSteps: info.checklist.steps };
  });
  const view: SkillsView = { skills, variants, otherFindings: findings.filter((finding) => owner(finding) === undefined) };
  if (lintSkipped !== undefined) view.lintSkipped = lintSkipped;
  else view.skillFilesLinted = skillFilesLinted;
  return view;
}
