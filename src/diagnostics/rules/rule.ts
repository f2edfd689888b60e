/** How much a finding weighs: errors fail a run, warnings fail it only past --max-warnings. */
export type Severity = "error" | "warning";

export interface RuleDefinition {
  severity: Severity;
  /** One line for the README's rule table: what the rule checks. */
  description: string;
}
