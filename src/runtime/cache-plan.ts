/**
 * The compiled cache plan at load time: checked against the verified bytes
 * of dist/ (a plan that does not describe the artifacts is refused), and cut
 * into the system blocks a provider request carries.
 */
import { createHash } from "node:crypto";
import { CACHE_PLAN_VERSION, type CacheBlockName, type CachePlan, type CachePlanBlock } from "../protocol/cache-plan.js";
import type { DistManifest } from "../protocol/dist-manifest.js";
import { isRecord } from "../protocol/records.js";

/** One block of the system prompt as the plan cuts it. */
export interface SystemBlock {
  name: CacheBlockName;
  text: string;
  /** A cache breakpoint belongs at its end. */
  breakpoint: boolean;
}

/** Provider limit on cache breakpoints in one Anthropic request. */
export const MAX_BREAKPOINTS = 4;

export function verifyCachePlan(
  parsed: unknown,
  manifest: DistManifest,
  bytesOf: (file: string) => Buffer | undefined,
): { plan: CachePlan } | { problems: string[] } {
  const problems: string[] = [];
  if (!isRecord(parsed) || parsed["planVersion"] !== CACHE_PLAN_VERSION || !isRecord(parsed["variants"])) {
    return { problems: [`Unexpected cache plan shape, expected {planVersion: ${CACHE_PLAN_VERSION}, variants: {...}}`] };
  }
  const variants = parsed["variants"];
  for (const name of Object.keys(manifest.variants).sort()) {
    const entry = variants[name];
    const variantFile = manifest.variants[name]?.file;
    const variantBytes = variantFile === undefined ? undefined : bytesOf(variantFile);
    if (!isRecord(entry) || !Array.isArray(entry["blocks"]) || variantBytes === undefined) {
      problems.push(`Unexpected missing plan for variant "${name}", expected its blocks`);
      continue;
    }
    problems.push(...blockProblems(name, entry["blocks"] as unknown[], manifest, variantBytes));
  }
  for (const name of Object.keys(variants)) {
    if (!Object.hasOwn(manifest.variants, name)) problems.push(`Unexpected plan for unknown variant "${name}", expected only the manifest's variants`);
  }
  return problems.length > 0 ? { problems } : { plan: parsed as unknown as CachePlan };
}

function blockProblems(variant: string, blocks: unknown[], manifest: DistManifest, variantBytes: Buffer): string[] {
  const problems: string[] = [];
  const where = `variant "${variant}"`;
  const [tools, ...afterTools] = blocks as Array<Partial<CachePlanBlock> | undefined>;
  if (tools?.name !== "tools" || tools.sha256 !== manifest.tools.sha256) {
    problems.push(`Unexpected first block of ${where}, expected the tools block with the sha256 of ${manifest.tools.file}`);
  }
  // The namespaces the variant sends from session start, in the manifest's order, each with its artifact's hash.
  const atStart = manifest.variants[variant]?.namespaces ?? [];
  atStart.forEach((namespace, index) => {
    const block = afterTools[index];
    const info = manifest.namespaces !== undefined && Object.hasOwn(manifest.namespaces, namespace) ? manifest.namespaces[namespace] : undefined;
    if (block?.name !== "namespace-tools" || info === undefined || block.source !== info.file || block.sha256 !== info.sha256) {
      problems.push(`Unexpected block ${index + 2} of ${where}, expected the tools of namespace "${namespace}" with the sha256 of its artifact`);
    }
  });
  const [prefix, tail, ...rest] = afterTools.slice(atStart.length);
  if (prefix?.name !== "static-prefix" || prefix.sha256 !== manifest.staticPrefix.sha256 || prefix.system?.start !== 0 || prefix.system.end !== manifest.staticPrefix.bytes) {
    problems.push(`Unexpected second block of ${where}, expected the static prefix covering bytes 0-${manifest.staticPrefix.bytes}`);
  }
  let covered = manifest.staticPrefix.bytes;
  if (tail !== undefined) {
    const range = tail.system;
    if (tail.name !== "variant-tail" || range?.start !== covered || range.end !== variantBytes.length) {
      problems.push(`Unexpected third block of ${where}, expected the variant tail covering bytes ${covered}-${variantBytes.length}`);
    } else if (sha256(variantBytes.subarray(range.start, range.end)) !== tail.sha256) {
      problems.push(`Unexpected sha256 of the variant tail of ${where}, expected the hash of those bytes of the variant`);
    } else covered = range.end;
  }
  if (covered !== variantBytes.length) problems.push(`Unexpected plan of ${where} covering ${covered} of ${variantBytes.length} bytes, expected the whole system prompt`);
  if (rest.length > 0) problems.push(`Unexpected ${rest.length} extra block(s) in ${where}, expected tools, static prefix and at most a variant tail`);
  const breakpoints = blocks.filter((block) => isRecord(block) && block["breakpoint"] === true).length;
  if (breakpoints > MAX_BREAKPOINTS - 1) problems.push(`Unexpected ${breakpoints} breakpoints in ${where}, expected at most ${MAX_BREAKPOINTS - 1} (one stays for the newest message)`);
  return problems;
}

/** The variant's system prompt cut at the plan's boundaries (byte ranges of its UTF-8 text). */
export function systemBlocks(plan: CachePlan, variant: string, systemPrompt: string): SystemBlock[] {
  const entry = plan.variants[variant];
  if (entry === undefined) return [{ name: "static-prefix", text: systemPrompt, breakpoint: true }];
  const bytes = Buffer.from(systemPrompt, "utf8");
  return entry.blocks.flatMap((block) =>
    block.system === undefined ? [] : [{ name: block.name, text: bytes.subarray(block.system.start, block.system.end).toString("utf8"), breakpoint: block.breakpoint }],
  );
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

