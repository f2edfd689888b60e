/** gamma-prompt's library API. The CLI is a thin layer over these exports. */
export type { Diagnostic, Severity, Position, Range, DiagnosticCounts } from "./diagnostics/diagnostic.js";
export type { RuleId } from "./diagnostics/rules/index.js";
export { ruleRegistry } from "./diagnostics/rules/index.js";
export type { SkillType, ValidSkill } from "./model.js";
export type * from "./protocol/manifest.js";
