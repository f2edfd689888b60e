import { buildRules } from "./build-rules.js";
import type { RuleDefinition } from "./rule.js";
import { skillRules } from "./skill-rules.js";

export type { RuleDefinition } from "./rule.js";

export const ruleRegistry = { ...skillRules, ...buildRules } as const satisfies Record<string, RuleDefinition>;

export type RuleId = keyof typeof ruleRegistry;
