import type { Severity } from "../diagnostic.js";

export interface RuleDefinition {
  severity: Severity;
  /** One line for the README's rule table: what the rule checks. */
  description: string;
}
