import type { RuleDefinition } from "./rule.js";

/**
 * Rules about skill manifests and their cross-references.
 * Rule ids are permanent: never rename or reuse one.
 */
export const skillRules = {
  "skill/name-mismatch": { severity: "error", description: "`name` equals the name of the skill's folder." },
} as const satisfies Record<string, RuleDefinition>;
