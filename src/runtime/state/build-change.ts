/**
 * A stored session reopened on another build of the agent (a redeploy): the
 * state names the build it was last opened on (the static prefix's cache
 * key). Reopening is never refused, since deploys are frequent; instead
 * what the new build lacks leaves the state, so the session can go on:
 * an active skill the new dist/ does not hold is no longer active (nor
 * required, when the host required it), and a task that names a
 * checklist step the new build does not have (a removed skill, a shortened
 * checklist) keeps its place but loses the step, which the `todo` tool would
 * refuse forever. Pi-free and pure: the controller applies the change and
 * tells the host and the model.
 */
import { parseStepReference } from "../../protocol/checklist.js";
import type { LoadedSkill } from "../artifacts.js";
import type { Task } from "../execution-state.js";
import type { StateCore } from "./fields.js";
import type { BuildChange } from "./journal.js";
import type { InjectionDelivery } from "../../protocol/dist-manifest.js";
import type { RuntimeInjection } from "../injections/types.js";

export interface BuildReconciliation {
  change: BuildChange;
  /** The build the state was last opened on; undefined for a state saved before sessions recorded it. */
  previousCacheKey: string | undefined;
  /** Active skills the new build does not hold: no longer active. */
  droppedSkills: string[];
  /** Tasks whose step the new build does not have: the step was cleared. */
  clearedSteps: Array<{ taskId: string; step: string }>;
  /** Active skills the new build holds with another body (same name): still active, their new text told. */
  changedSkills: string[];
  /** The variant the state ran on, which the new build does not define, and the one it goes on with. */
  variant?: { from: string; to: string };
}

/**
 * What opening `state` on the build `cacheKey` changes; undefined when it
 * changes nothing. The check runs on every reopen: the cache key covers the
 * static prefix only, and two builds that share it can still differ in what
 * the state names (a skill's checklist, a skill the prefix does not list).
 */
export function reconcileBuild(
  state: Readonly<StateCore> & { readonly variant: string },
  skills: ReadonlyMap<string, LoadedSkill>,
  cacheKey: string,
  variant: string,
  sha256Of: (skill: string) => string | undefined = () => undefined,
): BuildReconciliation | undefined {
  const droppedSkills = state.activeSkills.filter((skill) => !skills.has(skill.name)).map((skill) => skill.name);
  // Same name, another body (builds can share a cache key): a state that kept no sha256 is not compared.
  const changedSkills = state.activeSkills
    .filter((skill) => skills.has(skill.name) && skill.sha256 !== undefined && sha256Of(skill.name) !== undefined && sha256Of(skill.name) !== skill.sha256)
    .map((skill) => skill.name);
  const clearedSteps: BuildReconciliation["clearedSteps"] = [];
  const items = state.tasks.items.map((task): Task => {
    if (task.step === undefined || stepExists(task.step, skills)) return task;
    clearedSteps.push({ taskId: task.id, step: task.step });
    const { step: _cleared, ...rest } = task;
    return rest;
  });
  const requiredSkills = state.requiredSkills?.filter((required) => skills.has(required.name));
  const lostRequirement = requiredSkills !== undefined && requiredSkills.length !== state.requiredSkills?.length;
  const movedVariant = state.variant === variant ? undefined : { from: state.variant, to: variant };
  if (state.cacheKey === cacheKey && droppedSkills.length === 0 && clearedSteps.length === 0 && !lostRequirement && movedVariant === undefined && changedSkills.length === 0) return undefined;
  const change: BuildChange = {
    op: "build",
    cacheKey,
    activeSkills: state.activeSkills
      .filter((skill) => skills.has(skill.name))
      .map((skill) => (changedSkills.includes(skill.name) ? { ...skill, sha256: sha256Of(skill.name) as string } : skill)),
    tasks: clearedSteps.length === 0 ? state.tasks : { revision: state.tasks.revision + 1, items },
    ...(requiredSkills === undefined ? {} : { requiredSkills }),
    ...(movedVariant === undefined ? {} : { variant }),
  };
  return { change, previousCacheKey: state.cacheKey, droppedSkills, clearedSteps, changedSkills, ...(movedVariant === undefined ? {} : { variant: movedVariant }) };
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
  const lines = ["This session was reopened on a new version of the agent."];
  if (reconciliation.variant !== undefined) {
    lines.push(`The agent configuration it ran on (${reconciliation.variant.from}) no longer exists; it goes on with ${reconciliation.variant.to}, whose instructions are the system prompt you have now.`);
  }
  if (reconciliation.droppedSkills.length > 0) {
    lines.push(`These skills no longer exist and are no longer active: ${reconciliation.droppedSkills.join(", ")}. Do not follow their instructions or name their steps.`);
  }
  if (reconciliation.changedSkills.length > 0) {
    lines.push(
      `These active skills changed in this version: ${reconciliation.changedSkills.join(", ")}. Follow their current text (in the restored session state below, or in the system prompt for a preloaded skill), not an earlier one, and check their checklists against your tasks.`,
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
