import type { RuleDefinition } from "./rule.js";

/**
 * Findings about evaluation scenarios (evals/*.yaml) and their cassettes.
 * Rule ids are permanent: never rename or reuse one.
 */
export const evalRules = {
  "eval/invalid-scenario": { severity: "error", description: "An evaluation scenario parses as YAML and matches schemas/eval-scenario.schema.json." },
  "eval/unknown-reference": { severity: "error", description: "A scenario names only variants, skills, checklist steps and tools that the dist/ it runs on defines." },
  "eval/duplicate-id": { severity: "error", description: "Scenario names are unique across the files of one run, and expectation ids are unique within a scenario." },
  "eval/invalid-event": { severity: "error", description: "An injected event is a runtime injection envelope the runtime accepts (schemas/runtime-injection.schema.json) at a point the scenario reaches." },
} as const satisfies Record<string, RuleDefinition>;
