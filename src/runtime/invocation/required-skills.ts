/**
 * Invocation enforcement: the design's "additional harness rule" for critical
 * product workflows. The transcript cannot prove that the model identified
 * every matching skill, so a host that knows what a request needs (the user
 * pressed "new deck") declares the skills it requires, per turn or per
 * session, and a project can require skills for a variant. Until each is
 * active, task actions are refused with a tool error naming the skill to
 * load; loading skills, progress messages and reads stay allowed. The
 * refusal is bounded like the audit's `block` mode: after `maxRefusals` in a
 * turn the call goes ahead and the violation is recorded for the audit.
 *
 * Pi-free. The controller owns the durable list; this module decides, per
 * tool call, through one narrow hook (`checkToolCall`).
 */
import { expectInteger, expectObject, expectStringArray } from "../../protocol/arguments.js";
import { conflictingPairs, requirementClosure, symmetricConflicts } from "../../protocol/skill-graph.js";
import type { LoadedSkill } from "../artifacts.js";
import type { ActiveSkill, RequiredSkill, RequirementScope } from "../execution-state.js";
import { TASK_ACTION_TOOLS, type TranscriptEvent } from "../audit/transcript.js";

export type { RequiredSkill, RequirementScope };

export const REQUIREMENT_SCOPES: readonly RequirementScope[] = ["turn", "session"];

/** The host's standing rules; a per-turn requirement comes with the turn (`buildTurnMessages({ requiredSkills })` or `requireSkills`). */
export interface InvocationPolicy {
  /** Skills every session requires. */
  session?: readonly string[];
  /** Skills the sessions of a variant require, by variant name (the host's rule; a project's own is `require` in prompts/variants.yaml). */
  variants?: Readonly<Record<string, readonly string[]>>;
  /** Refused calls per turn before a call goes ahead with the violation recorded (default 2, as the audit's `maxBlocks`). */
  maxRefusals?: number;
}

export const DEFAULT_MAX_REFUSALS = 2;

/** Refuses a policy a plain-JavaScript host got wrong, naming the option, before any session uses it. */
function checkPolicy(policy: InvocationPolicy | undefined): void {
  if (policy === undefined) return;
  expectObject(policy, "invocation", "an object such as { session: [\"deck-generation\"], maxRefusals: 2 }");
  if (policy.session !== undefined) expectStringArray(policy.session, "invocation.session", "an array of skill names");
  if (policy.variants !== undefined) {
    expectObject(policy.variants, "invocation.variants", "an object of skill-name arrays by variant name");
    for (const [variant, names] of Object.entries(policy.variants)) expectStringArray(names, `invocation.variants.${variant}`, "an array of skill names");
  }
  if (policy.maxRefusals !== undefined) expectInteger(policy.maxRefusals, "invocation.maxRefusals", 0);
}

/** A skill the host asked to require that the model could not load. */
export class RequiredSkillError extends Error {
  override readonly name = "RequiredSkillError";
}

/** What the enforcement needs from the session it guards. */
export interface EnforcementHost {
  readonly skills: ReadonlyMap<string, LoadedSkill>;
  activeSkills(): readonly ActiveSkill[];
  /** The durable list (the execution state's `requiredSkills`). */
  stored(): readonly RequiredSkill[];
  /** Stores the whole list after a change (one journal record). */
  save(required: RequiredSkill[]): void;
  /** Appends a transcript event to the audit's record; returns its position. */
  record(event: TranscriptEvent): number;
  emit(event: RequiredSkillsEvent): void;
}

/** The protocol event: a call refused, or let through after the bound with the violation recorded. */
export interface RequiredSkillsEvent {
  type: "required_skills";
  action: "refused" | "violated";
  tool: string;
  /** The required skills not active when the call came. */
  missing: string[];
  toolCallId: string;
  /** Refusals in this turn so far, and the bound. */
  refusals: number;
  maxRefusals: number;
}

export class InvocationEnforcer {
  private readonly standing: readonly string[];
  private readonly maxRefusals: number;
  private refusals = 0;

  /** `projectRule`: the skills the project requires for the variant (`require` in prompts/variants.yaml, from the manifest). */
  constructor(
    private readonly host: EnforcementHost,
    variant: string,
    policy: InvocationPolicy | undefined,
    projectRule: readonly string[] = [],
    /** The variant's preloaded skills: active in every session of it, so a standing rule must agree with them. */
    preloaded: readonly string[] = [],
  ) {
    checkPolicy(policy);
    const byVariant = policy?.variants !== undefined && Object.hasOwn(policy.variants, variant) ? (policy.variants[variant] ?? []) : [];
    this.standing = unique([...projectRule, ...(policy?.session ?? []), ...byVariant]);
    for (const name of this.standing) this.checkLoadable(name);
    this.checkCompatible(this.standing, preloaded);
    this.maxRefusals = policy?.maxRefusals ?? DEFAULT_MAX_REFUSALS;
  }

  /**
   * Requires skills for this turn or the whole session. Each must exist and
   * be one the model can load (a skill hidden from the model is activated by
   * the host with `activateSkillForHost` instead); an already required skill
   * keeps the wider scope.
   */
  require(names: readonly string[], scope: RequirementScope): void {
    expectStringArray(names, "required skills", 'an array of skill names, such as ["deck-generation"]');
    if (!REQUIREMENT_SCOPES.includes(scope)) throw new RequiredSkillError(`Unexpected requirement scope ${JSON.stringify(scope)}, expected "turn" or "session"`);
    for (const name of names) this.checkLoadable(name);
    this.checkCompatible(unique([...this.required(), ...names]), this.host.activeSkills().map((skill) => skill.name));
    const current = [...this.host.stored()];
    let changed = false;
    for (const name of unique(names)) {
      const existing = current.findIndex((entry) => entry.name === name);
      if (existing === -1) current.push({ name, scope });
      else if (scope === "session" && current[existing]?.scope === "turn") current[existing] = { name, scope };
      else continue;
      changed = true;
    }
    if (!changed) return;
    this.host.save(current);
    this.host.record({ type: "skills_required", names: unique(names), scope });
  }

  /** Every required skill: the standing rules, then the stored ones. */
  required(): string[] {
    return unique([...this.standing, ...this.host.stored().map((entry) => entry.name)]);
  }

  /** Required skills not active now. */
  missing(): string[] {
    const active = new Set(this.host.activeSkills().map((skill) => skill.name));
    return this.required().filter((name) => !active.has(name));
  }

  /**
   * The hook every tool call passes before its executor runs. A task action
   * (or a yield) while a required skill is missing throws the tool error
   * naming the skills to load, at most `maxRefusals` times per turn; after
   * that the call goes ahead and the violation is recorded.
   */
  checkToolCall(tool: string, params: Readonly<Record<string, unknown>>, toolCallId: string): void {
    if (!isGuarded(tool, params)) return;
    const missing = this.missing();
    if (missing.length === 0) return;
    if (this.refusals < this.maxRefusals) {
      this.refusals += 1;
      this.host.record({ type: "tool_refused", id: toolCallId, name: tool, missing });
      this.host.emit({ type: "required_skills", action: "refused", tool, missing, toolCallId, refusals: this.refusals, maxRefusals: this.maxRefusals });
      throw new RequiredSkillError(refusalMessage(tool, missing));
    }
    this.host.record({ type: "requirement_unmet", id: toolCallId, name: tool, missing });
    this.host.emit({ type: "required_skills", action: "violated", tool, missing, toolCallId, refusals: this.refusals, maxRefusals: this.maxRefusals });
  }

  /** A turn begins: the bound counts afresh (a retry of the turn's model call keeps the count). */
  beginTurn(): void {
    this.refusals = 0;
  }

  /** The turn ended: its requirements end with it. */
  endTurn(): void {
    const stored = this.host.stored();
    if (stored.some((entry) => entry.scope === "turn")) this.host.save(stored.filter((entry) => entry.scope === "session"));
  }

  /**
   * The design's "the harness rejects a conflicting skill set before task
   * execution", for requirements: skills that conflict (with what they
   * require) can never all be active, nor can one that conflicts with an
   * active skill, since a skill stays active for the session. Such a rule
   * would refuse the model's every task action until the bound, so it is the
   * host's error at once.
   */
  private checkCompatible(required: readonly string[], active: readonly string[]): void {
    const requires = new Map([...this.host.skills].map(([name, skill]) => [name, skill.requiresSkills]));
    const wanted = requirementClosure(requires, required);
    const activeNames = new Set(active);
    const members = unique([...wanted, ...active]);
    const conflicts = symmetricConflicts(new Map(members.map((name) => [name, this.host.skills.get(name)?.conflictsWith ?? []])));
    const pair = conflictingPairs(conflicts, members).find(([a, b]) => !(activeNames.has(a) && activeNames.has(b)));
    if (pair === undefined) return;
    const [a, b] = pair;
    const named = required.map((name) => `"${name}"`).join(", ");
    const held = activeNames.has(a) ? a : activeNames.has(b) ? b : undefined;
    const clash = held === undefined ? `"${a}" and "${b}" conflict` : `"${held === a ? b : a}" conflicts with the active skill "${held}"`;
    throw new RequiredSkillError(`Unexpected required skills ${named}: ${clash}, so they can never all be active; expected skills that can be active together`);
  }

  private checkLoadable(name: string): void {
    const skill = this.host.skills.get(name);
    if (skill === undefined) {
      throw new RequiredSkillError(`Unexpected required skill ${JSON.stringify(name)}, expected a skill of dist/ (${[...this.host.skills.keys()].join(", ")})`);
    }
    if (!skill.modelInvocable) {
      throw new RequiredSkillError(`Unexpected required skill ${JSON.stringify(name)} with disable-model-invocation: true, expected a skill the model can load (activate this one with activateSkillForHost)`);
    }
  }
}

/** Task actions, and a yield: what must wait for the required skills. The skill tool, progress messages and reads never wait. */
function isGuarded(tool: string, params: Readonly<Record<string, unknown>>): boolean {
  return TASK_ACTION_TOOLS.has(tool) || (tool === "message_user" && params["blockOnUser"] === true);
}

/** The tool error the model reads: which skills to load, and how. */
export function refusalMessage(tool: string, missing: readonly string[]): string {
  const names = missing.map((name) => `"${name}"`).join(", ");
  const calls = missing.map((name) => `skill({"name": "${name}"})`).join(", ");
  return `Refused: this request requires the skill${missing.length === 1 ? "" : "s"} ${names}, not loaded yet. Load ${missing.length === 1 ? "it" : "them"} first with ${calls}, then call ${tool} again.`;
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}
