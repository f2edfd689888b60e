/**
 * A stored session reopened on another build of the agent (a redeploy): the
 * state names the build it was last opened on (the static prefix's cache
 * key). Reopening is never refused, since deploys are frequent; instead
 * what the new build lacks leaves the state, so the session can go on:
 * an active skill the new dist/ does not hold is no longer active (nor
 * required, when the host required it), and a task that names a
 * checklist step the new build does not have (a removed skill, a shortened
 * checklist) keeps its place but loses the step, which the `todo` tool would
 * refuse forever. The variant's preloads are the skills its system prompt
 * holds, so they are active as preloaded, as in a new session on it, when
 * the session moved to another variant (the build dropped its own) or the
 * build changed what the variant preloads: a skill recorded as preloaded
 * that the variant does not preload stays active with its body in the
 * anchor (activated by the host, which named the variant), and an active
 * skill that conflicts with one the variant preloads is no longer active. Pi-free and pure: the controller applies the change and tells the
 * host and the model.
 */
import { parseStepReference } from "../../protocol/checklist.js";
import { requirementOrder, symmetricConflicts } from "../../protocol/skill-graph.js";
import type { LoadedSkill } from "../artifacts.js";
import type { ActiveSkill, Task } from "../execution-state.js";
import type { StateCore } from "./fields.js";
import type { BuildChange } from "./journal.js";
import type { InjectionDelivery } from "../../protocol/dist-manifest.js";
import type { RuntimeInjection } from "../injections/types.js";

export interface BuildReconciliation {
  change: BuildChange;
  /** The build the state was last opened on; undefined for a state saved before sessions recorded it. */
  previousCacheKey: string | undefined;
  /** Active skills no longer active: the new build does not hold them, or they conflict with a skill the variant preloads. */
  droppedSkills: string[];
  /** Of `droppedSkills`, those that conflict with a skill the variant preloads (`by`). */
  displacedSkills: Array<{ skill: string; by: string }>;
  /** Skills recorded as preloaded that the variant does not preload (now): still active, their body in the anchor now. */
  unpreloadedSkills: string[];
  /** Skills the variant preloads that were not active: active now, as in a new session on it. */
  preloadedSkills: string[];
  /** Skills active now because an active skill requires them in the new build (as the skill tool would have activated them), with the skill that requires each. */
  requiredNow: Array<{ skill: string; by: string }>;
  /** Of `droppedSkills`, those that were active only as a requirement no active skill has in the new build. */
  unrequiredSkills: string[];
  /** Requirements the new build adds that stay unmet: the skill conflicts with an active one, which stays. */
  blockedRequirements: Array<{ skill: string; by: string; conflictsWith: string }>;
  /** Tasks whose step the new build does not have: the step was cleared. */
  clearedSteps: Array<{ taskId: string; step: string }>;
  /** Active skills the new build holds with another body or another type (same name): still active, their new text and contract told. */
  changedSkills: string[];
  /** The variant the state ran on, which the new build does not define, and the one it goes on with. */
  variant?: { from: string; to: string };
}

/** The build a stored state is opened on: its skills, cache key, the variant named and what that variant preloads. */
export interface ServingBuild {
  skills: ReadonlyMap<string, LoadedSkill>;
  cacheKey: string;
  variant: string;
  /** The skills the variant preloads (its system prompt holds their bodies). */
  preloaded: readonly string[];
  /** The manifest's sha256 of a skill's body. */
  sha256Of?: (skill: string) => string | undefined;
}

/**
 * What opening `state` on `build` changes; undefined when it changes
 * nothing. The check runs on every reopen: the cache key covers the
 * static prefix only, and two builds that share it can still differ in what
 * the state names (a skill's checklist, a skill the prefix does not list).
 */
export function reconcileBuild(state: Readonly<StateCore> & { readonly variant: string }, build: ServingBuild): BuildReconciliation | undefined {
  const { skills, cacheKey, variant } = build;
  const sha256Of = build.sha256Of ?? (() => undefined);
  const missingSkills = state.activeSkills.filter((skill) => !skills.has(skill.name)).map((skill) => skill.name);
  // Same name, another body (builds can share a cache key): a state that kept no sha256 is not compared.
  const rewritten = (skill: ActiveSkill): boolean => skill.sha256 !== undefined && sha256Of(skill.name) !== undefined && sha256Of(skill.name) !== skill.sha256;
  // Same name, another type (the same body may be a workflow in one build and a reference in the next): the contract the anchor states is the new build's.
  const retyped = (skill: ActiveSkill): boolean => skills.get(skill.name)?.type !== undefined && skills.get(skill.name)?.type !== skill.type;
  const changedSkills = state.activeSkills.filter((skill) => skills.has(skill.name) && (rewritten(skill) || retyped(skill))).map((skill) => skill.name);
  const clearedSteps: BuildReconciliation["clearedSteps"] = [];
  const items = state.tasks.items.map((task): Task => {
    if (task.step === undefined || stepExists(task.step, skills)) return task;
    clearedSteps.push({ taskId: task.id, step: task.step });
    const { step: _cleared, ...rest } = task;
    return rest;
  });
  const movedVariant = state.variant === variant ? undefined : { from: state.variant, to: variant };
  const held = state.activeSkills
    .filter((skill) => skills.has(skill.name))
    .map((skill) => {
      if (!changedSkills.includes(skill.name)) return skill;
      const now = sha256Of(skill.name);
      return { ...skill, type: skills.get(skill.name)?.type ?? skill.type, ...(now === undefined ? {} : { sha256: now }) };
    });
  // The variant's preloads are checked on every reopen too: a build can change what a variant preloads.
  const moved = moveVariant(held, build, sha256Of);
  // What the active skills require is the new build's too: a requirement it adds is met now, one it removed no longer holds a skill.
  const requirements = reconcileRequirements(moved.activeSkills, build, sha256Of);
  const sameSkills = requirements.activeSkills.length === held.length && requirements.activeSkills.every((skill, index) => skill === held[index]);
  const displaced = new Set(moved.displacedSkills.map(({ skill }) => skill));
  const droppedSkills = [...missingSkills, ...displaced, ...requirements.unrequiredSkills];
  const requiredSkills = state.requiredSkills?.filter((required) => skills.has(required.name) && !displaced.has(required.name));
  const lostRequirement = requiredSkills !== undefined && requiredSkills.length !== state.requiredSkills?.length;
  if (
    state.cacheKey === cacheKey &&
    droppedSkills.length === 0 &&
    clearedSteps.length === 0 &&
    !lostRequirement &&
    movedVariant === undefined &&
    changedSkills.length === 0 &&
    // A requirement left unmet for a conflict is told with a change, not on every reopen of the same build.
    sameSkills
  ) {
    return undefined;
  }
  const change: BuildChange = {
    op: "build",
    cacheKey,
    activeSkills: requirements.activeSkills,
    tasks: clearedSteps.length === 0 ? state.tasks : { revision: state.tasks.revision + 1, items },
    ...(requiredSkills === undefined ? {} : { requiredSkills }),
    ...(movedVariant === undefined ? {} : { variant }),
  };
  return {
    change,
    previousCacheKey: state.cacheKey,
    droppedSkills,
    displacedSkills: moved.displacedSkills,
    unpreloadedSkills: moved.unpreloadedSkills,
    preloadedSkills: moved.preloadedSkills,
    requiredNow: requirements.requiredNow,
    unrequiredSkills: requirements.unrequiredSkills,
    blockedRequirements: requirements.blockedRequirements,
    clearedSteps,
    changedSkills,
    ...(movedVariant === undefined ? {} : { variant: movedVariant }),
  };
}

/**
 * The active skills of a session on `build.variant`, whose
 * system prompt holds the bodies of exactly the skills it preloads: what it
 * preloads is active as preloaded; a skill recorded as preloaded that it does
 * not preload stays active as activated by the host (the anchor then
 * carries its body, as for a skill the host activated); a skill that
 * conflicts with one it preloads leaves, since the system prompt keeps the
 * other.
 */
function moveVariant(
  active: readonly ActiveSkill[],
  build: ServingBuild,
  sha256Of: (skill: string) => string | undefined,
): { activeSkills: ActiveSkill[]; displacedSkills: BuildReconciliation["displacedSkills"]; unpreloadedSkills: string[]; preloadedSkills: string[] } {
  const preloads = build.preloaded.filter((name) => build.skills.has(name));
  const preloaded = new Set(preloads);
  const names = new Set([...active.map((skill) => skill.name), ...preloads]);
  const conflicts = symmetricConflicts(new Map([...names].map((name) => [name, build.skills.get(name)?.conflictsWith ?? []])));
  const displacedSkills: BuildReconciliation["displacedSkills"] = [];
  const unpreloadedSkills: string[] = [];
  const kept: ActiveSkill[] = [];
  for (const skill of active) {
    if (preloaded.has(skill.name)) {
      if (skill.activatedBy === "preload") kept.push(skill);
      else {
        const { requiredBy: _requiredBy, ...rest } = skill;
        kept.push({ ...rest, activatedBy: "preload" });
      }
      continue;
    }
    const by = preloads.find((name) => conflicts.get(skill.name)?.has(name) === true);
    if (by !== undefined) {
      displacedSkills.push({ skill: skill.name, by });
      continue;
    }
    if (skill.activatedBy === "preload") {
      unpreloadedSkills.push(skill.name);
      kept.push({ ...skill, activatedBy: "host" });
    } else kept.push(skill);
  }
  const preloadedSkills = preloads.filter((name) => !active.some((skill) => skill.name === name));
  for (const name of preloadedSkills) {
    const sha256 = sha256Of(name);
    kept.push({ name, type: (build.skills.get(name) as LoadedSkill).type, activatedBy: "preload", ...(sha256 === undefined ? {} : { sha256 }) });
  }
  return { activeSkills: kept, displacedSkills, unpreloadedSkills, preloadedSkills };
}

/**
 * The active skills with the new build's requirements: every skill an active
 * skill (one not active as a requirement itself) requires, depth-first in
 * declared order as the skill tool activates them, is active as required by
 * the skill that brings it; a skill that was active only as a requirement no
 * such skill has any more leaves. A required skill that conflicts with an
 * active one is not activated (the active one stays, as the skill tool would
 * have refused the requirement) and is reported.
 */
function reconcileRequirements(
  active: readonly ActiveSkill[],
  build: ServingBuild,
  sha256Of: (skill: string) => string | undefined,
): { activeSkills: ActiveSkill[]; requiredNow: BuildReconciliation["requiredNow"]; unrequiredSkills: string[]; blockedRequirements: BuildReconciliation["blockedRequirements"] } {
  const roots = new Set(active.filter((skill) => skill.activatedBy !== "requires").map((skill) => skill.name));
  const needed = new Map<string, string>();
  for (const root of roots) {
    const requiresOf = (name: string): readonly string[] | undefined => build.skills.get(name)?.requiresSkills;
    for (const { name, requiredBy } of requirementOrder(root, requiresOf, (name) => roots.has(name) || needed.has(name))) needed.set(name, requiredBy);
  }
  const unrequiredSkills: string[] = [];
  const kept: ActiveSkill[] = [];
  for (const skill of active) {
    if (skill.activatedBy !== "requires") kept.push(skill);
    else if (!needed.has(skill.name)) unrequiredSkills.push(skill.name);
    else kept.push(skill.requiredBy === needed.get(skill.name) ? skill : { ...skill, requiredBy: needed.get(skill.name) as string });
  }
  const requiredNow: BuildReconciliation["requiredNow"] = [];
  const blockedRequirements: BuildReconciliation["blockedRequirements"] = [];
  for (const [name, by] of needed) {
    const skill = build.skills.get(name);
    if (skill === undefined || kept.some((candidate) => candidate.name === name)) continue;
    const names = [...kept.map((candidate) => candidate.name), name];
    const conflicts = symmetricConflicts(new Map(names.map((candidate) => [candidate, build.skills.get(candidate)?.conflictsWith ?? []])));
    const conflictsWith = kept.find((candidate) => conflicts.get(name)?.has(candidate.name) === true)?.name;
    if (conflictsWith !== undefined) {
      blockedRequirements.push({ skill: name, by, conflictsWith });
      continue;
    }
    const sha256 = sha256Of(name);
    kept.push({ name, type: skill.type, activatedBy: "requires", requiredBy: by, ...(sha256 === undefined ? {} : { sha256 }) });
    requiredNow.push({ skill: name, by });
  }
  return { activeSkills: kept, requiredNow, unrequiredSkills, blockedRequirements };
}

/** The model's note of what left the state: a workspace_update ("configuration or available resources changed"). */
export function buildChangeUpdate(reconciliation: BuildReconciliation, delivery: InjectionDelivery, revision: number, now: number): RuntimeInjection {
  const cacheKey = reconciliation.change.cacheKey;
  return {
    id: `build.${cacheKey}.${revision}`,
    kind: "workspace_update",
    occurredAt: new Date(now).toISOString(),
    source: "workspace",
    delivery,
    requiresDecision: false,
    summary: buildChangeSummary(reconciliation),
    subject: { ref: `build:${cacheKey}` },
    details: { change: "agent_updated" },
  };
}

/** The note the model gets: what the new build no longer has, and what to do about it. */
function buildChangeSummary(reconciliation: BuildReconciliation): string {
  const lines = ["This session was reopened on another version of the agent."];
  if (reconciliation.variant !== undefined) {
    lines.push(`The agent configuration it ran on (${reconciliation.variant.from}) no longer exists; it goes on with ${reconciliation.variant.to}, whose instructions are the system prompt you have now.`);
  }
  if (reconciliation.unpreloadedSkills.length > 0) {
    lines.push(
      `These skills stay active, though the agent configuration no longer preloads them: ${reconciliation.unpreloadedSkills.join(", ")}. Their instructions are no longer in the system prompt but in the restored session state; go on following them.`,
    );
  }
  if (reconciliation.preloadedSkills.length > 0) {
    lines.push(`These skills are active now, preloaded in the system prompt: ${reconciliation.preloadedSkills.join(", ")}.`);
  }
  if (reconciliation.displacedSkills.length > 0) {
    const displaced = reconciliation.displacedSkills.map(({ skill, by }) => `${skill} (conflicts with ${by})`).join(", ");
    lines.push(`These skills are no longer active, since they conflict with a skill the system prompt preloads: ${displaced}. Do not follow their instructions; follow the preloaded skill.`);
  }
  if (reconciliation.requiredNow.length > 0) {
    const required = reconciliation.requiredNow.map(({ skill, by }) => `${skill} (required by ${by})`).join(", ");
    lines.push(`These skills are active now, since an active skill requires them in this version: ${required}. Their instructions are in the restored session state; follow them with the skill that requires them.`);
  }
  if (reconciliation.unrequiredSkills.length > 0) {
    lines.push(
      `These skills were active only because an active skill required them, which no active skill does in this version: ${reconciliation.unrequiredSkills.join(", ")}. They are no longer active; load one with the skill tool if the task still needs it.`,
    );
  }
  if (reconciliation.blockedRequirements.length > 0) {
    const blocked = reconciliation.blockedRequirements.map(({ skill, by, conflictsWith }) => `${skill} (required by ${by}, conflicts with ${conflictsWith})`).join(", ");
    lines.push(`These skills an active skill requires in this version are not active, since they conflict with an active skill, which stays: ${blocked}. Ask the user which workflow to follow if the task needs both.`);
  }
  const displaced = new Set(reconciliation.displacedSkills.map(({ skill }) => skill));
  const unrequired = new Set(reconciliation.unrequiredSkills);
  const missing = reconciliation.droppedSkills.filter((skill) => !displaced.has(skill) && !unrequired.has(skill));
  if (missing.length > 0) {
    lines.push(`These skills no longer exist and are no longer active: ${missing.join(", ")}. Do not follow their instructions or name their steps.`);
  }
  if (reconciliation.changedSkills.length > 0) {
    lines.push(
      `These active skills changed in this version: ${reconciliation.changedSkills.join(", ")}. Follow their current text (in the restored session state, or in the system prompt for a preloaded skill), not an earlier one, and check their checklists against your tasks.`,
    );
  }
  if (reconciliation.clearedSteps.length > 0) {
    const tasks = reconciliation.clearedSteps.map(({ taskId, step }) => `${taskId} (was ${step})`).join(", ");
    lines.push(`These tasks named checklist steps that no longer exist, and no longer name a step: ${tasks}. Check the active skills' checklists before you plan them again.`);
  }
  return lines.join(" ");
}

function stepExists(reference: string, skills: ReadonlyMap<string, LoadedSkill>): boolean {
  const parsed = parseStepReference(reference);
  if (parsed === undefined) return false;
  return skills.get(parsed.skill)?.steps?.some((step) => step.number === parsed.number) ?? false;
}
