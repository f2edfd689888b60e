import { join } from "node:path";
import { readRegularFile } from "../../protocol/regular-file.js";
import type { CachePlan } from "../../protocol/cache-plan.js";
import type { DistManifest, ToolSchemaArtifact } from "../../protocol/dist-manifest.js";
import { sha256Hex } from "../discover/read-source.js";
import { compactTools } from "../render/cache-plan.js";
import { SKILL_TOOL } from "../validate/tools.js";
import type { RecordedTokenCounts, RecordedVariant } from "../render/measure.js";
import { isRecord } from "../../protocol/records.js";

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

/** Larger artifacts are not worth reading for a count. */
const MAX_RECORD_BYTES = 16 * 1024 * 1024;

export function readRecordedBuild(outDir: string, tokenizerVersion: string): RecordedBuild | undefined {
  const manifest = parseJson(readRegular(join(outDir, "manifest.json"))) as Partial<DistManifest> | undefined;
  if (!isRecord(manifest)) return undefined;
  const artifacts = isRecord(manifest.artifacts) ? manifest.artifacts : {};
  const verified = (file: unknown): Buffer | undefined => {
    if (typeof file !== "string" || !Object.prototype.hasOwnProperty.call(artifacts, file)) return undefined;
    const entry = artifacts[file];
    const bytes = readRegular(join(outDir, file));
    return bytes && isRecord(entry) && entry.sha256 === sha256Hex(bytes) ? bytes : undefined;
  };
  const accepted = new Map<string, string>();
  const tools = isRecord(manifest.tools) ? parseJson(verified(manifest.tools.file)) : undefined;
  // Tool names are unique across the stable set and the namespaces (a build with a duplicate writes nothing).
  const namespaceFiles = Object.values(isRecord(manifest.namespaces) ? manifest.namespaces : {}).map((info) => (isRecord(info) ? parseJson(verified(info.file)) : undefined));
  const namespaceTools = namespaceFiles.flatMap((namespace) => (isRecord(namespace) && Array.isArray(namespace.tools) ? (namespace.tools as unknown[]) : []));
  for (const tool of [...(Array.isArray(tools) ? (tools as unknown[]) : []), ...namespaceTools]) {
    if (isRecord(tool) && typeof tool.name === "string" && isRecord(tool.parameters)) accepted.set(tool.name, JSON.stringify(sourceParameters(tool.name, tool.parameters)));
  }
  const acceptedToolParameters = (tool: ToolSchemaArtifact): boolean => {
    const recorded = accepted.get(tool.name);
    if (recorded === undefined) return false;
    // The skill tool's name enum is the build's own addition; an author's enum there is checked, never assumed.
    if (tool.name === SKILL_TOOL && isRecord(nameProperty(tool.parameters)) && "enum" in (nameProperty(tool.parameters) as Record<string, unknown>)) return false;
    return JSON.stringify(tool.parameters) === recorded;
  };
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
  for (const [index, info] of Object.values(isRecord(manifest.namespaces) ? manifest.namespaces : {}).entries()) {
    const namespace = namespaceFiles[index];
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

/** The parameters as the author wrote them: the skill tool's name enum, which the build adds, taken out again. */
function sourceParameters(name: string, parameters: Record<string, unknown>): Record<string, unknown> {
  const property = nameProperty(parameters);
  if (name !== SKILL_TOOL || !isRecord(property) || !("enum" in property)) return parameters;
  const { enum: _added, ...authored } = property;
  return { ...parameters, properties: { ...(parameters.properties as Record<string, unknown>), name: authored } };
}

function nameProperty(parameters: Record<string, unknown>): unknown {
  return isRecord(parameters.properties) ? parameters.properties.name : undefined;
}

/** The file's bytes when it is a regular file of sensible size; never blocks on a FIFO or device. */
function readRegular(path: string): Buffer | undefined {
  const read = readRegularFile(path, { maxBytes: MAX_RECORD_BYTES });
  return read.kind === "file" ? read.bytes : undefined;
}

function parseJson(bytes: Buffer | undefined): unknown {
  if (!bytes) return undefined;
  try {
    return JSON.parse(bytes.toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}

