/**
 * What an invalidation comparison reads: each variant's system prompt from an
 * output folder (what is committed or was last built) or from an in-memory
 * build of the sources, and the output folder's cache plan. A prompt that
 * cannot be read is left out, and the comparison prices that variant from its
 * first changed block.
 */
import { join } from "node:path";
import { CACHE_PLAN_FILE, type CachePlan } from "../protocol/cache-plan.js";
import { VARIANT_NAME_PATTERN } from "../protocol/dist-manifest.js";
import { readRegularFile } from "../protocol/regular-file.js";
import { variantFile, type ArtifactContent } from "../pipeline/emit/artifacts.js";
import { invalidationCost, type InvalidationCost } from "./invalidation.js";

/**
 * An in-memory build of the sources against the output folder: what the edit
 * costs per affected variant (empty when the two plans are the same bytes);
 * undefined when either side has no readable cache plan.
 */
export function invalidationAgainstOutput(outDir: string, artifacts: ReadonlyMap<string, ArtifactContent>): InvalidationCost[] | undefined {
  const built = artifacts.get(CACHE_PLAN_FILE);
  // Never a blocking read: a FIFO in the output folder is reported by check, not waited on here.
  const read = readRegularFile(join(outDir, CACHE_PLAN_FILE));
  if (built === undefined || read.kind !== "file") return undefined;
  const planText = typeof built === "string" ? built : Buffer.from(built).toString("utf8");
  const committedText = read.bytes.toString("utf8");
  if (committedText === planText) return [];
  try {
    const plan = JSON.parse(planText) as CachePlan;
    const names = Object.keys(plan.variants);
    return invalidationCost(JSON.parse(committedText) as CachePlan, plan, { before: readVariantPrompts(outDir, names), after: builtVariantPrompts(artifacts, names) });
  } catch {
    // An output folder's plan that is no JSON is reported by check as drift; there is nothing to price.
    return undefined;
  }
}

/** By variant name, the prompts the output folder holds for `names`. */
export function readVariantPrompts(outDir: string, names: Iterable<string>): Record<string, string> {
  const prompts: Record<string, string> = {};
  for (const name of names) {
    // A name from a plan on disk is never a path out of the folder.
    if (!VARIANT_NAME_PATTERN.test(name)) continue;
    // Never a blocking read: a FIFO in the output folder is reported by check, not waited on here.
    const read = readRegularFile(join(outDir, variantFile(name)));
    if (read.kind === "file") prompts[name] = read.bytes.toString("utf8");
  }
  return prompts;
}

/** By variant name, the prompts an in-memory build holds for `names`. */
export function builtVariantPrompts(artifacts: ReadonlyMap<string, ArtifactContent>, names: Iterable<string>): Record<string, string> {
  const prompts: Record<string, string> = {};
  for (const name of names) {
    const content = artifacts.get(variantFile(name));
    if (content !== undefined) prompts[name] = typeof content === "string" ? content : Buffer.from(content).toString("utf8");
  }
  return prompts;
}
