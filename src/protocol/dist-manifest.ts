/**
 * The shape of `dist/manifest.json`: a public contract shared by the compiler
 * (which writes it) and the runtime (which verifies and loads it). Types and
 * constants only, so the runtime can import it without pulling in any compiler
 * dependency.
 *
 * All paths are relative to the dist folder with forward slashes.
 */

export const MANIFEST_FILE = "manifest.json";
export const MANIFEST_VERSION = 1;

/**
 * A variant's name, as the project declares it in prompts/variants.yaml
 * (lowercase words joined by hyphens). The compiler knows no fixed names.
 */
export type VariantName = string;

/** The form every variant name has; the runtime refuses a manifest that lists another. */
export const VARIANT_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export interface ArtifactEntry {
  sha256: string;
  bytes: number;
}

export interface VersionInfo {
  name: string;
  version: string;
}

export interface PrefixInfo {
  file: string;
  sha256: string;
  bytes: number;
  /** o200k_base token count. */
  tokens: number;
  /** sha256 of `tools.json`: the tool schemas are part of the provider's cached prefix. */
  toolsSha256: string;
  /** sha256 over the prefix hash and the tool schemas hash: identifies the cacheable prefix. */
  cacheKey: string;
}

export interface VariantInfo {
  file: string;
  sha256: string;
  bytes: number;
  tokens: number;
  /** Skills whose bodies the variant preloads, in order (workflow skills first, then required references). */
  preloadedSkills: string[];
  /** Skills every request in the variant requires before any task action (`require` in variants.yaml; invocation enforcement). */
  requiredSkills?: string[];
  /** Tokens shared with the static prefix (equal to the prefix's token count when the join is stable). */
  sharedPrefixTokens: number;
  /**
   * Tool namespaces whose schemas the variant sends from session start, after
   * the stable tool set, in name order; every other namespace loads on demand.
   * Absent when the variant loads none at start.
   */
  namespaces?: string[];
  /** Shared-prefix tokens an OpenAI exact-prefix cache can serve: 0 below 1,024, then steps of 128. */
  cacheableTokens: number;
}

export interface SkillInfo {
  /** The body the `skill` tool returns, e.g. `skills/import.md`. */
  file: string;
  sha256: string;
  type: "workflow" | "reference";
  description: string;
  requiresSkills: string[];
  conflictsWith: string[];
  tokens: number;
  /**
   * The skill's supporting files, relative to its folder and sorted, e.g.
   * `references/api.md`; each is the artifact `skills/<name>/<path>`. Absent
   * when the skill has none.
   */
  files?: string[];
  /**
   * `disable-model-invocation: true` in its SKILL.md: absent from the catalog
   * and the skill tool's names; only a preload or the host activates it.
   */
  disableModelInvocation?: true;
  /** A workflow skill's compiled checklist, `skills/<name>.steps.json` (see protocol/checklist.ts). */
  checklist?: { file: string; sha256: string; steps: number };
  /** A workflow skill's `toolNamespaces`: the namespaces that load when it becomes active. Absent when it needs none. */
  toolNamespaces?: string[];
}

export interface DistManifest {
  manifestVersion: typeof MANIFEST_VERSION;
  generator: VersionInfo;
  templateEngine: VersionInfo;
  tokenizer: VersionInfo & { encoding: "o200k_base" };
  /** Every file in dist/ except manifest.json itself. */
  artifacts: Record<string, ArtifactEntry>;
  staticPrefix: PrefixInfo;
  catalog: { file: string; sha256: string; tokens: number };
  tools: { file: string; sha256: string; order: string[] };
  /**
   * `injections.json`: the runtime injection kinds as the static prefix
   * defines them. Absent when the project has no prompts/injections.yaml.
   */
  injections?: { file: string; sha256: string };
  /** `cache-plan.json`: each variant's cacheable blocks and breakpoints (see protocol/cache-plan.ts). */
  cachePlan: { file: string; sha256: string };
  /** Every variant prompts/variants.yaml declares, by name. */
  variants: Record<VariantName, VariantInfo>;
  skills: Record<string, SkillInfo>;
  /** `knowledge.json` and the inline limit; present when the project has a knowledge/ folder. */
  knowledge?: KnowledgeManifestInfo;
  /** The tool namespaces by name (`namespaces/<name>.json` each); absent when the project declares none. */
  namespaces?: Record<string, ToolNamespaceInfo>;
}

/** One tool namespace in the manifest. */
export interface ToolNamespaceInfo {
  /** `namespaces/<name>.json`: `{name, description, tools}` with the tools in declared order. */
  file: string;
  sha256: string;
  /** The trigger description the namespace catalog shows (whitespace collapsed). */
  description: string;
  /** The tools' names in declared order. */
  tools: string[];
  /** o200k tokens of the tools' compact JSON, measured like the tools block of the cache plan. */
  tokens: number;
}

/** What `namespaces/<name>.json` holds. */
export interface ToolNamespaceArtifact {
  name: string;
  description: string;
  tools: ToolSchemaArtifact[];
}

/** The form of a namespace name; a namespace's tools are named `<namespace>_<what>`. */
export const NAMESPACE_NAME_PATTERN = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

export function namespaceFile(name: string): string {
  return `namespaces/${name}.json`;
}

/** Scoped knowledge in the manifest: the index file (each entry names its body file) and the inline limit. */
export interface KnowledgeManifestInfo {
  file: string;
  sha256: string;
  /** Bodies over this many UTF-8 bytes are returned as a path, not inline. */
  inlineBytes: number;
  notes: number;
}

/** One entry of `tools.json` (an array, in the declared tool order). */
export interface ToolSchemaArtifact {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export type InjectionKind =
  | "system_note"
  | "system_guidance"
  | "system_update"
  | "client_view"
  | "artifact_update"
  | "workspace_update"
  | "background_result";

/** The design's kinds in the design's order; the static prefix defines each exactly once. */
export const INJECTION_KINDS: readonly InjectionKind[] = [
  "system_note",
  "system_guidance",
  "system_update",
  "client_view",
  "artifact_update",
  "workspace_update",
  "background_result",
];

export type InjectionDelivery = "next_turn" | "steer" | "follow_up";

/** One entry of `injections.json` (an array, in the design's order of kinds). */
export interface InjectionKindArtifact {
  kind: InjectionKind;
  /** The XML tag the model sees, equal to the kind. */
  tag: InjectionKind;
  /** The one meaning the static prefix gives this kind. */
  meaning: string;
  /** What the agent does on receiving it. */
  action: string;
  /** The default Pi delivery path. */
  delivery: InjectionDelivery;
}
