/**
 * When the completion audit runs and what a failure does: `off` (no audit),
 * `report` (an `audit` protocol event, recorded in the session log; the yield
 * goes ahead), `block` (a yield with steps still to do is refused with a tool
 * error naming them, at most `maxBlocks` times per run, then it goes ahead
 * with the audit attached; a finding about a past call never refuses it). A setting for a skill wins over one for the variant,
 * which wins over `mode`; with several active workflows the strictest wins.
 */
export type AuditMode = "off" | "report" | "block";

export const AUDIT_MODES: readonly AuditMode[] = ["off", "report", "block"];

export interface AuditPolicy {
  /** Default for every variant and skill: "report". */
  mode?: AuditMode;
  variants?: Readonly<Record<string, AuditMode>>;
  skills?: Readonly<Record<string, AuditMode>>;
  /** Refused yields per run under `block` before the yield goes ahead anyway (default 2). */
  maxBlocks?: number;
}

export const DEFAULT_AUDIT_MODE: AuditMode = "report";
export const DEFAULT_MAX_BLOCKS = 2;

export function resolveAuditMode(policy: AuditPolicy | undefined, variant: string, workflows: readonly string[]): AuditMode {
  const bySkill = workflows.map((name) => own(policy?.skills, name)).filter((mode): mode is AuditMode => mode !== undefined);
  if (bySkill.length > 0) return strictest(bySkill);
  return own(policy?.variants, variant) ?? policy?.mode ?? DEFAULT_AUDIT_MODE;
}

function own(record: Readonly<Record<string, AuditMode>> | undefined, key: string): AuditMode | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

function strictest(modes: readonly AuditMode[]): AuditMode {
  return modes.reduce((a, b) => (AUDIT_MODES.indexOf(b) > AUDIT_MODES.indexOf(a) ? b : a));
}
