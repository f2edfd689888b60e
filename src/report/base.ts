/**
 * The base a report compares with: a dist/ folder (or a project holding one),
 * or a git ref whose committed dist/ is read out of the repository into a
 * temporary folder, so that it is verified and priced like any other.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { statIfPossible } from "../protocol/regular-file.js";
import { tmpdir } from "node:os";
import { dirname, join, posix, relative, resolve, sep } from "node:path";
import { invalidationCost } from "../cost/invalidation.js";
import type { CostResult } from "../cost/cost.js";
import type { LoadedArtifacts } from "../runtime/artifacts.js";
import { MANIFEST_FILE } from "../protocol/dist-manifest.js";
import type { CachePlanBlock } from "../protocol/cache-plan.js";
import type { ArtifactChange, BaseComparison, BlockState, CostDelta } from "./model.js";

/** A `--base` that is neither a dist/ folder nor a git ref, or a ref without a committed dist/. */
export class ReportUsageError extends Error {
  override readonly name = "ReportUsageError";
}

export interface BaseDist {
  /** The folder holding the base's manifest.json. */
  dir: string;
  /** Removes what was read out of git (nothing for a folder). */
  dispose(): void;
}

/**
 * Finds the base's dist/: `base` as a folder relative to the working folder
 * (itself or its `outDir`), else as a git ref of the repository holding `root`.
 */
export function resolveBaseDist(root: string, outDir: string, base: string): BaseDist {
  // resolve("") is the working folder: an empty base (a CI variable that is not set) would compare the build with itself.
  if (base === "") throw new ReportUsageError("--base names no folder or git ref (an empty name); pass the dist/ folder, the project or the git ref to compare with, or leave --base out");
  const folder = resolve(base);
  if (isDirectory(folder)) {
    for (const candidate of [folder, join(folder, outDir)]) if (existsSync(join(candidate, MANIFEST_FILE))) return { dir: candidate, dispose: () => {} };
    throw new ReportUsageError(`Unexpected --base ${base}: a folder without ${MANIFEST_FILE} (nor ${posix.join(outDir, MANIFEST_FILE)}), expected a built dist/ or a git ref`);
  }
  return readDistAtRef(root, outDir, base);
}

function readDistAtRef(root: string, outDir: string, ref: string): BaseDist {
  // A ref is never an option to git.
  if (ref.startsWith("-")) throw new ReportUsageError(`Unexpected --base "${ref}", expected a dist/ folder or a git ref`);
  const git = (args: string[], input?: string): Buffer => execFileSync("git", args, { cwd: root, input, maxBuffer: 1 << 30, stdio: ["pipe", "pipe", "pipe"] });
  let top: string;
  try {
    git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
    top = git(["rev-parse", "--show-toplevel"]).toString("utf8").trim();
  } catch {
    throw new ReportUsageError(`Unexpected --base ${ref}: neither a folder nor a git ref of the repository at ${root}`);
  }
  const distPath = relative(top, resolve(root, outDir)).split(sep).join("/");
  // Each file's blob by its object id: `cat-file --batch` reads one name per line, and a path may hold a line feed.
  let listed: Array<{ path: string; object: string }>;
  let batch: Buffer;
  try {
    listed = git(["ls-tree", "-r", "-z", "--full-tree", ref, "--", distPath])
      .toString("utf8")
      .split("\0")
      .flatMap((entry) => {
        const match = /^\d+ blob ([0-9a-f]+)\t([^]*)$/.exec(entry);
        return match === null ? [] : [{ object: match[1] as string, path: match[2] as string }];
      });
    batch = listed.some((entry) => entry.path === `${distPath}/${MANIFEST_FILE}`) ? git(["cat-file", "--batch"], listed.map((entry) => `${entry.object}\n`).join("")) : Buffer.alloc(0);
  } catch (error) {
    throw new ReportUsageError(`Unexpected --base ${ref}: git cannot read its ${distPath}/ (${(error as Error).message.split("\n")[0]})`);
  }
  if (!listed.some((entry) => entry.path === `${distPath}/${MANIFEST_FILE}`)) throw new ReportUsageError(`Unexpected --base ${ref}: it has no committed ${distPath}/${MANIFEST_FILE}, expected a ref whose dist/ is built and committed`);
  const dir = mkdtempSync(join(tmpdir(), "gamma-prompt-report-base-"));
  let at = 0;
  for (const { path, object } of listed) {
    const headerEnd = batch.indexOf(10, at);
    const header = batch.subarray(at, headerEnd).toString("utf8").split(" ");
    if (header[0] !== object || header[1] !== "blob") {
      rmSync(dir, { recursive: true, force: true });
      throw new ReportUsageError(`Unexpected --base ${ref}: git cannot read its ${path} (${header.join(" ")})`);
    }
    const size = Number(header[2]);
    const target = join(dir, ...path.slice(distPath.length + 1).split("/"));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, batch.subarray(headerEnd + 1, headerEnd + 1 + size));
    at = headerEnd + 1 + size + 1;
  }
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The parts of a build a comparison reads: a verified dist/ or an in-memory build of the sources. */
export type ComparedBuild = Pick<LoadedArtifacts, "manifest" | "cachePlan" | "variants">;

/** Blocks, files and default-policy costs of the base against this build. */
export function compareWithBase(label: string, before: ComparedBuild, after: ComparedBuild, costs: { before: CostResult; after: CostResult } | { problem: string }): BaseComparison {
  const beforePlan = before.cachePlan.variants;
  const variants = Object.entries(after.cachePlan.variants).map(([name, plan]) => {
    const old = beforePlan[name]?.blocks;
    // A new variant's leading blocks that some variant of the base sent are cached already (tools, static prefix).
    const cachedLead = old === undefined ? Math.max(0, ...Object.values(beforePlan).map((other) => cachedLeadingBlocks(plan.blocks, other.blocks))) : 0;
    let broken = false;
    const blocks = plan.blocks.map((block, index) => {
      let state: BlockState;
      if (old === undefined) state = index < cachedLead ? "intact" : "new";
      else if (old[index]?.sha256 !== block.sha256 || old[index]?.name !== block.name) state = "changed";
      else state = broken ? "invalidated" : "intact";
      if (state !== "intact") broken = true;
      return { name: block.name, tokens: block.tokens, cumulativeTokens: block.cumulativeTokens, state };
    });
    return { name, blocks };
  });
  const removedVariants = Object.keys(beforePlan).filter((name) => after.cachePlan.variants[name] === undefined);
  const changes = artifactChanges(before, after, variants);
  const intact = removedVariants.length === 0 && variants.every((variant) => variant.blocks.every((block) => block.state === "intact")) && variants.every((variant) => (beforePlan[variant.name]?.blocks.length ?? 0) === variant.blocks.length);
  const comparison: BaseComparison = { label, intact, changes, variants, removedVariants, invalidation: invalidationCost(before.cachePlan, after.cachePlan, { before: before.variants, after: after.variants }), costDelta: [] };
  if ("problem" in costs) comparison.costDeltaProblem = costs.problem;
  else {
    comparison.costDelta = costDelta(costs.before, costs.after);
    if (comparison.costDelta.length === 0) comparison.costDeltaProblem = "the traffic profile starts no session of a variant both builds have";
  }
  return comparison;
}

/** Leading blocks byte for byte those of `earlier`, up to the last one that carries a breakpoint. */
function cachedLeadingBlocks(blocks: readonly CachePlanBlock[], earlier: readonly CachePlanBlock[]): number {
  let index = 0;
  while (index < blocks.length && index < earlier.length && blocks[index]?.sha256 === earlier[index]?.sha256 && blocks[index]?.name === earlier[index]?.name) index++;
  while (index > 0 && !(blocks[index - 1]?.breakpoint ?? false)) index--;
  return index;
}

function artifactChanges(before: ComparedBuild, after: ComparedBuild, variants: BaseComparison["variants"]): ArtifactChange[] {
  const old = before.manifest.artifacts;
  const now = after.manifest.artifacts;
  const files = [...new Set([...Object.keys(old), ...Object.keys(now)])].sort();
  const changes: ArtifactChange[] = [];
  for (const file of files) {
    const a = old[file];
    const b = now[file];
    if (a !== undefined && b !== undefined && a.sha256 === b.sha256) continue;
    const change: ArtifactChange = { file, kind: a === undefined ? "added" : b === undefined ? "removed" : "changed", invalidates: [] };
    if (a !== undefined) change.bytesBefore = a.bytes;
    if (b !== undefined) change.bytesAfter = b.bytes;
    for (const variant of variants) {
      const blocks = after.cachePlan.variants[variant.name]?.blocks ?? [];
      // This file's own block changed: it and every block after it must be written again.
      const first = blocks.findIndex((block, index) => block.source === file && variant.blocks[index]?.state === "changed");
      if (first >= 0) change.invalidates.push({ variant: variant.name, blocks: blocks.slice(first).map((block) => block.name) });
    }
    changes.push(change);
  }
  return changes;
}

function costDelta(before: CostResult, after: CostResult): CostDelta[] {
  const out: CostDelta[] = [];
  for (const row of after.rows) {
    if (!row.isDefault) continue;
    const old = before.rows.find((entry) => entry.isDefault && entry.provider === row.provider && entry.model === row.model && entry.variant === row.variant);
    // A variant the profile starts no session of has no price to compare.
    if (old === undefined || row.sessions === 0 || old.sessions === 0) continue;
    out.push({ provider: row.provider, model: row.model, policy: row.policy, variant: row.variant, before: old.inputCostPer1000Sessions, after: row.inputCostPer1000Sessions });
  }
  return out;
}

function isDirectory(path: string): boolean {
  // A name the file system cannot look up (over its length limit) is no folder: the ref check reports it.
  return statIfPossible(path)?.isDirectory() ?? false;
}
