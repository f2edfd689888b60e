import { createHash } from "node:crypto";
import type {
  ArtifactEntry,
  DistManifest,
  InjectionKindArtifact,
  PrefixInfo,
  SkillInfo,
  ToolNamespaceArtifact,
  ToolNamespaceInfo,
  ToolSchemaArtifact,
  VariantInfo,
  VariantName,
} from "../../protocol/dist-manifest.js";
import { MANIFEST_FILE, MANIFEST_VERSION, namespaceFile } from "../../protocol/dist-manifest.js";
import { CACHE_PLAN_FILE, type CachePlan } from "../../protocol/cache-plan.js";
import { stepsFile, type ChecklistStep, type SkillChecklist } from "../../protocol/checklist.js";
import { KNOWLEDGE_INDEX_FILE } from "../../protocol/knowledge.js";
import { packageVersion } from "../../version.js";
import { TOKENIZER_NAME } from "../../tokens.js";
import { canonicalJson } from "./canonical-json.js";
import { sha256Hex } from "../discover/read-source.js";

export const PREFIX_FILE = "prefix.md";
export const CATALOG_FILE = "catalog.xml";
export const TOOLS_FILE = "tools.json";
export const INJECTIONS_ARTIFACT = "injections.json";
export { CACHE_PLAN_FILE };

export function variantFile(name: string): string {
  return `variants/${name}.md`;
}

export function skillFile(name: string): string {
  return `skills/${name}.md`;
}

/** A supporting file's artifact: the skill's folder in dist/ mirrors its source folder. */
export function supportingFile(skill: string, path: string): string {
  return `skills/${skill}/${path}`;
}

/** What an artifact holds: rendered text, or the bytes of a supporting file copied unchanged. */
export type ArtifactContent = string | Uint8Array;

/**
 * Identifies the cacheable prefix: the provider caches tools and system
 * prompt together, so a tool change invalidates it as surely as a text change.
 */
export function prefixCacheKey(prefixSha256: string, toolsSha256: string): string {
  return sha256Hex(`gamma-prompt/prefix-cache-key/v1\n${prefixSha256}\n${toolsSha256}\n`);
}

export interface ManifestInput {
  artifacts: ReadonlyMap<string, ArtifactContent>;
  prefix: { tokens: number };
  catalog: { tokens: number };
  tools: readonly ToolSchemaArtifact[];
  variants: ReadonlyArray<Omit<VariantInfo, "file" | "sha256" | "bytes"> & { name: string }>;
  skills: ReadonlyArray<Omit<SkillInfo, "file" | "sha256" | "checklist"> & { name: string; checklistSteps?: number }>;
  versions: { handlebars: string; tokenizer: string };
  /** Present when the project has knowledge notes (knowledge.json is then among the artifacts). */
  knowledge?: { inlineBytes: number; notes: number };
  /** The tool namespaces (each `namespaces/<name>.json` among the artifacts), sorted by name; absent or empty for none. */
  namespaces?: ReadonlyArray<{ name: string; description: string; tools: string[]; tokens: number }>;
  /** Hashes already known for some artifacts (they must match the texts); the rest are computed. */
  hashes?: ReadonlyMap<string, ArtifactEntry>;
}

export function createManifest(input: ManifestInput): DistManifest {
  const artifacts: Record<string, ArtifactEntry> = {};
  for (const path of [...input.artifacts.keys()].sort()) {
    const known = input.hashes?.get(path);
    const { sha256, bytes } = known ?? artifactEntry(input.artifacts.get(path) as ArtifactContent);
    // Keys in sorted order, as in every entry below: the canonical form then keeps the object instead of copying it.
    artifacts[path] = { bytes, sha256 };
  }
  const entry = (path: string): ArtifactEntry => artifacts[path] ?? { sha256: "", bytes: 0 };
  const toolsSha256 = entry(TOOLS_FILE).sha256;
  const prefix = entry(PREFIX_FILE);
  const staticPrefix: PrefixInfo = {
    file: PREFIX_FILE,
    sha256: prefix.sha256,
    bytes: prefix.bytes,
    tokens: input.prefix.tokens,
    toolsSha256,
    cacheKey: prefixCacheKey(prefix.sha256, toolsSha256),
  };
  const variants: Record<VariantName, VariantInfo> = {};
  for (const variant of input.variants) {
    const { name, ...rest } = variant;
    const file = variantFile(name);
    variants[name] = { file, sha256: entry(file).sha256, bytes: entry(file).bytes, ...rest };
  }
  const skills: Record<string, SkillInfo> = {};
  for (const skill of input.skills) {
    const file = skillFile(skill.name);
    const { conflictsWith, description, disableModelInvocation, files, requiresSkills, tokens, toolNamespaces, type } = skill;
    skills[skill.name] = {
      conflictsWith,
      description,
      ...(disableModelInvocation ? { disableModelInvocation } : {}),
      file,
      ...(files && files.length > 0 ? { files } : {}),
      requiresSkills,
      sha256: entry(file).sha256,
      tokens,
      ...(toolNamespaces && toolNamespaces.length > 0 ? { toolNamespaces } : {}),
      type,
    };
    if (skill.checklistSteps !== undefined) {
      const steps = stepsFile(skill.name);
      skills[skill.name] = { checklist: { file: steps, sha256: entry(steps).sha256, steps: skill.checklistSteps }, ...skills[skill.name] } as SkillInfo;
    }
  }
  const manifest: DistManifest = {
    manifestVersion: MANIFEST_VERSION,
    generator: { name: "gamma-prompt", version: packageVersion },
    templateEngine: { name: "handlebars", version: input.versions.handlebars },
    tokenizer: { name: TOKENIZER_NAME, version: input.versions.tokenizer, encoding: "o200k_base" },
    artifacts,
    staticPrefix,
    catalog: { file: CATALOG_FILE, sha256: entry(CATALOG_FILE).sha256, tokens: input.catalog.tokens },
    tools: { file: TOOLS_FILE, sha256: toolsSha256, order: input.tools.map((tool) => tool.name) },
    ...(input.artifacts.has(INJECTIONS_ARTIFACT) ? { injections: { file: INJECTIONS_ARTIFACT, sha256: entry(INJECTIONS_ARTIFACT).sha256 } } : {}),
    cachePlan: { file: CACHE_PLAN_FILE, sha256: entry(CACHE_PLAN_FILE).sha256 },
    variants,
    skills,
  };
  if (input.namespaces && input.namespaces.length > 0) {
    const namespaces: Record<string, ToolNamespaceInfo> = {};
    for (const namespace of input.namespaces) {
      const file = namespaceFile(namespace.name);
      namespaces[namespace.name] = { description: namespace.description, file, sha256: entry(file).sha256, tokens: namespace.tokens, tools: namespace.tools };
    }
    manifest.namespaces = namespaces;
  }
  if (input.knowledge) {
    const index = entry(KNOWLEDGE_INDEX_FILE);
    manifest.knowledge = { file: KNOWLEDGE_INDEX_FILE, inlineBytes: input.knowledge.inlineBytes, notes: input.knowledge.notes, sha256: index.sha256 };
  }
  return manifest;
}

/**
 * Hashes of prefix.md and of every variant file (prefix + suffix). The
 * prefix is hashed once; each variant continues from a copy of that state
 * instead of hashing the shared prefix again.
 */
export function prefixFamilyHashes(prefix: string, suffixes: ReadonlyMap<string, string>): Map<string, ArtifactEntry> {
  const hashes = new Map<string, ArtifactEntry>();
  const last = prefix.charCodeAt(prefix.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) {
    // A pair split across the join would encode differently apart than together.
    hashes.set(PREFIX_FILE, artifactEntry(prefix));
    for (const [name, suffix] of suffixes) hashes.set(variantFile(name), artifactEntry(prefix + suffix));
    return hashes;
  }
  const prefixBytes = Buffer.byteLength(prefix);
  const state = createHash("sha256").update(prefix);
  hashes.set(PREFIX_FILE, { sha256: state.copy().digest("hex"), bytes: prefixBytes });
  for (const [name, suffix] of suffixes) {
    hashes.set(variantFile(name), { sha256: state.copy().update(suffix).digest("hex"), bytes: prefixBytes + Buffer.byteLength(suffix) });
  }
  return hashes;
}

export function artifactEntry(content: ArtifactContent): ArtifactEntry {
  return { sha256: sha256Hex(content), bytes: typeof content === "string" ? Buffer.byteLength(content) : content.byteLength };
}

export function serializeManifest(manifest: DistManifest): string {
  return canonicalJson(manifest);
}

export function toolsJson(tools: readonly ToolSchemaArtifact[]): string {
  return canonicalJson(
    tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
    { sortKeys: false },
  );
}

/** `namespaces/<name>.json`: the namespace's name, description and tools, each key order fixed like tools.json's. */
export function namespaceJson(namespace: ToolNamespaceArtifact): string {
  return canonicalJson(
    {
      name: namespace.name,
      description: namespace.description,
      tools: namespace.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
    },
    { sortKeys: false },
  );
}

export { namespaceFile };

/**
 * A workflow skill's checklist artifact; keys sorted like every other JSON artifact. The objects are built
 * with their keys already in sorted order, so the canonical form keeps them instead of sorting a copy of
 * every step (a thousand workflows hold tens of thousands of steps).
 */
export function stepsJson(checklist: SkillChecklist): string {
  const sorted: Required<SkillChecklist> = { skill: checklist.skill, source: checklist.source, steps: checklist.steps.map(sortedStep) };
  return canonicalJson(sorted);
}

/** A step with its keys in sorted order; `Required` makes a field added to ChecklistStep fail to compile here until it is listed (so none is left out of the artifact). */
function sortedStep(step: ChecklistStep): Required<ChecklistStep> {
  return { line: step.line, number: step.number, optional: step.optional, title: step.title, verifies: step.verifies };
}

export { stepsFile };

export function injectionsJson(injections: readonly InjectionKindArtifact[]): string {
  return canonicalJson(
    injections.map((entry) => ({ kind: entry.kind, tag: entry.tag, meaning: entry.meaning, action: entry.action, delivery: entry.delivery })),
    { sortKeys: false },
  );
}

/** The cache plan keeps the order of its blocks (the order providers cache them); other keys are sorted. */
export function cachePlanJson(plan: CachePlan): string {
  return canonicalJson(plan);
}

export { MANIFEST_FILE };
