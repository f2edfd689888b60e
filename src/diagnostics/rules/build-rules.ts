import type { RuleDefinition } from "./rule.js";

/**
 * Rules about prompt templates, variants, tool schemas, budgets and dist/.
 * Rule ids are permanent: never rename or reuse one.
 */
export const buildRules = {
  "template/parse-error": { severity: "error", description: "A Handlebars template parses." },
} as const satisfies Record<string, RuleDefinition>;
