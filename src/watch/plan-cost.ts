import { join } from "node:path";
import type { BuildResult } from "../build.js";
import { invalidationCost, type InvalidationCost } from "../cost/invalidation.js";
import { readVariantPrompts } from "../cost/variant-prompts.js";
import { CACHE_PLAN_FILE, type CachePlan } from "../protocol/cache-plan.js";
import { readRegularFile } from "../protocol/regular-file.js";

/**
 * Remembers the cache plan and the variants' prompts dist/ holds and, when a
 * build replaces them, prices the cached part the edit invalidated (read from
 * disk only when the plan's hash changed, so an ordinary save costs nothing).
 * The prompts are kept in memory: by the time the tracker sees a build, the
 * old ones on disk are gone.
 */
export function createPlanTracker(outDir: string): (result: BuildResult) => InvalidationCost[] | undefined {
  let plan = readPlan(join(outDir, CACHE_PLAN_FILE));
  let prompts = plan === undefined ? {} : readVariantPrompts(outDir, Object.keys(plan.variants));
  let sha: string | undefined;
  return (result) => {
    const entry = result.ok ? result.manifest?.cachePlan : undefined;
    if (entry === undefined || entry.sha256 === sha) return undefined;
    const next = readPlan(join(outDir, entry.file));
    const nextPrompts = next === undefined ? {} : readVariantPrompts(outDir, Object.keys(next.variants));
    const costs = plan !== undefined && next !== undefined ? invalidationCost(plan, next, { before: prompts, after: nextPrompts }) : [];
    plan = next;
    prompts = nextPrompts;
    sha = entry.sha256;
    return costs.length > 0 ? costs : undefined;
  };
}

function readPlan(path: string): CachePlan | undefined {
  // Never a blocking read: a FIFO left in dist/ must not hang watch at start.
  const read = readRegularFile(path);
  if (read.kind !== "file") return undefined;
  try {
    const plan = JSON.parse(read.bytes.toString("utf8")) as CachePlan | null;
    // A plan edited by hand into something else prices nothing rather than ending the session.
    return typeof plan?.variants === "object" && plan.variants !== null ? plan : undefined;
  } catch {
    return undefined;
  }
}
