/**
 * When the completion audit runs and what a failure does: `off` (no audit),
 * `report` (an `audit` protocol event, recorded in the session log; the yield
 * goes ahead), `block` (a yield with steps still to do is refused with a tool
 * error naming them, at most `maxBlocks` times per run, then it goes ahead
 * with the audit attached; a finding about a past call never refuses it). A setting for a skill wins over one for the variant,
 * which wins over `mode`; with several active workflows the strictest wins.
 */
import { expectInteger, expectObject, shownValue } from "../../protocol/arguments.js";
import { didYouMean } from "../../protocol/suggest.js";

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

/** A policy naming a skill or a variant the loaded artifacts do not define: its setting would never apply. */
export class AuditPolicyError extends Error {
  override readonly name = "AuditPolicyError";
}

/**
 * Refuses a policy a plain-JavaScript host got wrong, naming the option, before
 * any session uses it: a mode that is not "off", "report" or "block" (a TypeError:
 * a misspelt "block" would otherwise mean "report"), a `maxBlocks` that is no
 * whole number from 0 (a RangeError), and a skill or variant the artifacts do
 * not define (AuditPolicyError).
 */
export function checkAuditPolicy(policy: AuditPolicy | undefined, defined: { skills: Iterable<string>; variants: Iterable<string> }): void {
  if (policy === undefined) return;
  expectObject(policy, "audit", 'an object such as { mode: "block", maxBlocks: 2 }');
  if (policy.mode !== undefined) expectMode(policy.mode, "audit.mode");
  for (const key of ["variants", "skills"] as const) {
    const settings = policy[key];
    if (settings === undefined) continue;
    expectObject(settings, `audit.${key}`, `an object of modes by ${key === "skills" ? "skill" : "variant"} name, such as { ${key === "skills" ? '"deck-generation"' : "import"}: "block" }`);
    const names = [...(key === "skills" ? defined.skills : defined.variants)];
    for (const [name, mode] of Object.entries(settings)) {
      expectMode(mode, `audit.${key}.${name}`);
      if (!names.includes(name)) {
        const kind = key === "skills" ? "skill" : "variant";
        throw new AuditPolicyError(`Unexpected ${kind} ${JSON.stringify(name)} in audit.${key}, expected a ${kind} of dist/ (${namedFew(names)})${didYouMean(name, names)}`);
      }
    }
  }
  if (policy.maxBlocks !== undefined) expectInteger(policy.maxBlocks, "audit.maxBlocks", 0);
}

/** How many names a refusal lists: a dist/ of a thousand skills would make the message a page long. */
const NAMES_LISTED = 20;

function namedFew(names: readonly string[]): string {
  return names.length <= NAMES_LISTED ? names.join(", ") : `${names.slice(0, NAMES_LISTED).join(", ")}, and ${names.length - NAMES_LISTED} more`;
}

function expectMode(mode: unknown, name: string): void {
  if (!AUDIT_MODES.includes(mode as AuditMode)) throw new TypeError(`Unexpected ${name} ${shownValue(mode)}, expected ${AUDIT_MODES.map((choice) => JSON.stringify(choice)).join(", ")}`);
}

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
