import { join } from "node:path";
import type { BuildResult } from "../build.js";
import { invalidationCost, type InvalidationCost } from "../cost/invalidation.js";
import { CACHE_PLAN_FILE, type CachePlan } from "../protocol/cache-plan.js";
import { readRegularFile } from "../protocol/regular-file.js";

/**
 * Remembers the cache plan dist/ holds and, when a build replaces it, prices
 * the blocks the edit invalidated (read from disk only when the plan's hash
 * changed, so an ordinary save costs nothing).
 */
export function createPlanTracker(outDir: string): (result: BuildResult) => InvalidationCost[] | undefined {
  let plan = readPlan(join(outDir, CACHE_PLAN_FILE));
  let sha: string | undefined;
  return (result) => {
    const entry = result.ok ? result.manifest?.cachePlan : undefined;
    if (entry === undefined || entry.sha256 === sha) return undefined;
    const next = readPlan(join(outDir, entry.file));
    const costs = plan !== undefined && next !== undefined ? invalidationCost(plan, next) : [];
    plan = next;
    sha = entry.sha256;
    return costs.length > 0 ? costs : undefined;
  };
}

function readPlan(path: string): CachePlan | undefined {
  // Never a blocking read: a FIFO left in dist/ must not hang watch at start.
  const read = readRegularFile(path);
  if (read.kind !== "file") return undefined;
  try {
    return JSON.parse(read.bytes.toString("utf8")) as CachePlan;
  } catch {
    return undefined;
  }
}
