import type { CachePlan } from "../../protocol/cache-plan.js";
import type { ToolSchemaArtifact } from "../../protocol/dist-manifest.js";
import { sha256Hex } from "../discover/read-source.js";
import { compactTools } from "../render/cache-plan.js";
import type { RecordedTokenCounts, RecordedVariant } from "../render/measure.js";
import { isRecord } from "../../protocol/records.js";
import { acceptedToolParametersOf, parseJson, readVerifiedDist } from "./verified-dist.js";

/**
 * What the last build recorded in dist/ about exact bytes, for `check` to
 * take instead of working it out again: token counts (keyed by the sha256 of
 * the exact text that was counted) and the tool parameter schemas it accepted
 * (a build never writes dist/ with an invalid one). Every fact is re-derived
 * from dist/ files whose sha256 the manifest lists, so it is only ever reused
 * for the bytes it was made from. Any doubt (another tokenizer version, a
 * missing or unreadable file, a hash that does not match) drops that fact,
 * never the check: it is worked out again.
 */

export interface RecordedBuild {
  /** Absent when dist/ was counted by another tokenizer version. */
  tokenCounts?: RecordedTokenCounts;
  /** True when dist/tools.json holds this tool with exactly these parameters, as the build accepted them. */
  acceptedToolParameters(tool: ToolSchemaArtifact): boolean;
}

export function readRecordedBuild(outDir: string, tokenizerVersion: string): RecordedBuild | undefined {
  const dist = readVerifiedDist(outDir);
  if (!dist) return undefined;
  const { manifest, verified } = dist;
  const acceptedToolParameters = acceptedToolParametersOf(dist);
  if (!isRecord(manifest.tokenizer) || manifest.tokenizer.version !== tokenizerVersion || manifest.tokenizer.encoding !== "o200k_base") return { acceptedToolParameters };

  const counts = new Map<string, number>();
  const record = (text: string | Buffer | undefined, tokens: unknown): void => {
    if (text !== undefined && Number.isSafeInteger(tokens) && (tokens as number) >= 0) counts.set(sha256Hex(text), tokens as number);
  };

  if (isRecord(manifest.staticPrefix)) record(verified(manifest.staticPrefix.file), manifest.staticPrefix.tokens);
  if (isRecord(manifest.catalog)) {
    // catalog.xml is the counted catalog plus one closing newline.
    const catalog = verified(manifest.catalog.file);
    if (catalog && catalog.at(-1) === 0x0a) record(catalog.subarray(0, -1), manifest.catalog.tokens);
  }
  for (const skill of Object.values(isRecord(manifest.skills) ? manifest.skills : {})) {
    if (isRecord(skill)) record(verified(skill.file), skill.tokens);
  }
  // Namespaces: the manifest records the count of each one's tools as compact JSON, like the tools block's.
  for (const info of Object.values(isRecord(manifest.namespaces) ? manifest.namespaces : {})) {
    const namespace = isRecord(info) ? parseJson(verified(info.file)) : undefined;
    if (isRecord(info) && isRecord(namespace) && Array.isArray(namespace.tools)) record(compactTools(namespace.tools as ToolSchemaArtifact[]), info.tokens);
  }
  // Knowledge notes: knowledge.json records each body's count.
  const knowledge = isRecord(manifest.knowledge) ? parseJson(verified(manifest.knowledge.file)) : undefined;
  for (const note of Array.isArray(knowledge) ? (knowledge as unknown[]) : []) {
    if (isRecord(note)) record(verified(note.file), note.tokens);
  }
  const variants = new Map<string, RecordedVariant>();
  for (const variant of Object.values(isRecord(manifest.variants) ? manifest.variants : {})) {
    if (!isRecord(variant) || !Number.isSafeInteger(variant.tokens) || !Number.isSafeInteger(variant.sharedPrefixTokens)) continue;
    const bytes = verified(variant.file);
    if (bytes) variants.set(sha256Hex(bytes), { tokens: variant.tokens as number, sharedPrefixTokens: variant.sharedPrefixTokens as number });
  }
  const plan = isRecord(manifest.cachePlan) ? (parseJson(verified(manifest.cachePlan.file)) as Partial<CachePlan> | undefined) : undefined;
  for (const variantPlan of Object.values(isRecord(plan) && isRecord(plan.variants) ? plan.variants : {})) {
    for (const block of isRecord(variantPlan) && Array.isArray(variantPlan.blocks) ? (variantPlan.blocks as unknown[]) : []) {
      if (!isRecord(block)) continue;
      const source = verified(block.source);
      if (!source) continue;
      if (block.name === "tools") {
        // Counted as the compact JSON of tools.json's schemas.
        const tools = parseJson(source);
        if (Array.isArray(tools)) record(compactTools(tools as ToolSchemaArtifact[]), block.tokens);
      } else if (isRecord(block.system) && Number.isSafeInteger(block.system.start) && Number.isSafeInteger(block.system.end)) {
        record(source.subarray(block.system.start as number, block.system.end as number), block.tokens);
      }
    }
  }
  return { acceptedToolParameters, tokenCounts: { count: (text) => counts.get(sha256Hex(text)), variant: (text) => variants.get(sha256Hex(text)) } };
}
