/**
 * The completion audit's findings: permanent rule ids with fixed severities,
 * shared by the runtime (which audits live sessions) and the compiler's rule
 * registry (which prints `gamma-prompt audit` findings). Constants only.
 */
/** Permanent ids of the audit's findings, with their fixed severities. */
export const AUDIT_RULES = {
  "audit/required-step": { severity: "error", description: "At a completion yield, every required step of each active workflow skill is complete (or failed as a recorded deviation)." },
  "audit/verification-step": { severity: "error", description: "At a completion yield, every required verification step of each active workflow skill is complete." },
  "audit/skip-without-reason": { severity: "error", description: "At a completion yield, every optional step not done was skipped with a reason (its task complete with a note)." },
  "audit/skill-after-action": { severity: "error", description: "A workflow skill is loaded before the first task action (todo, bash, write, edit, subagent, show_gamma, show_file)." },
  "audit/deviation": { severity: "warning", description: "A step failed with an unrecoverable error (a blocked task with deviation: true); the final message must report it." },
  "audit/knowledge-not-fetched": { severity: "warning", description: "When knowledge hints reached the model, it fetched at least one of the hinted knowledge bodies." },
  "audit/required-skill": { severity: "error", description: "No task action runs while a skill the host requires for the request is not loaded (the runtime refuses such calls a bounded number of times, then records the call that went ahead)." },
} as const satisfies Record<string, { severity: "error" | "warning"; description: string }>;

export type AuditRuleId = keyof typeof AUDIT_RULES;
