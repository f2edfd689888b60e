/**
 * How much a finding weighs: errors fail a run, warnings fail it only past
 * --max-warnings, notes never do (worth knowing, nothing to fix by force).
 */
export type Severity = "error" | "warning" | "note";

export interface RuleDefinition {
  severity: Severity;
  /** One line for the README's rule table: what the rule checks. */
  description: string;
}
