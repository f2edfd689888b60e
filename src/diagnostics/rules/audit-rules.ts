import { AUDIT_RULES } from "../../protocol/audit-rules.js";
import type { RuleDefinition } from "./rule.js";

/**
 * Findings of `gamma-prompt audit` over recorded transcripts. The step rules
 * are the runtime's own (one definition for the live and the offline audit);
 * rule ids are permanent.
 */
export const auditRules = {
  ...AUDIT_RULES,
  "audit/transcript-format": { severity: "error", description: "A file given to `gamma-prompt audit` is a runtime session log or a Pi session file (JSONL) that can be read, every line of it: a JSON object the format has." },
  "audit/transcript-torn-line": { severity: "warning", description: "A transcript's last line, without a final newline, is a complete JSON object (a torn last line is a log still being written, or a copy cut short)." },
  "audit/dist-mismatch": { severity: "error", description: "A transcript is audited against the dist/ it ran on: the build its session log records (the static prefix's cache key) and a variant that dist/ defines." },
  "audit/unknown-skill": { severity: "error", description: "Every skill a transcript activated (preloaded, loaded or required) is a skill of the dist/ it is audited against." },
} as const satisfies Record<string, RuleDefinition>;
