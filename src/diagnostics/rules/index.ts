import { auditRules } from "./audit-rules.js";
import { buildRules } from "./build-rules.js";
import { evalRules } from "./eval-rules.js";
import { knowledgeRules } from "./knowledge-rules.js";
import type { RuleDefinition } from "./rule.js";
import { skillRules } from "./skill-rules.js";

export type { RuleDefinition } from "./rule.js";

export const ruleRegistry = { ...skillRules, ...buildRules, ...knowledgeRules, ...auditRules, ...evalRules } as const satisfies Record<string, RuleDefinition>;

export type RuleId = keyof typeof ruleRegistry;

/** Where the rules are documented: the README's rule table, one anchor per rule. */
export const RULES_DOC_URL = "https://www.npmjs.com/package/gamma-prompt#rules";

/** The README anchor of one rule's row, e.g. `rule-skill-name-mismatch`. */
export function ruleAnchor(ruleId: RuleId): string {
  return `rule-${ruleId.replace(/\//g, "-")}`;
}

/** The URL of one rule's documentation. */
export function ruleDocUrl(ruleId: RuleId): string {
  return `${RULES_DOC_URL.slice(0, RULES_DOC_URL.indexOf("#"))}#${ruleAnchor(ruleId)}`;
}
