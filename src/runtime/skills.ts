/**
 * What `skill({ name })` does to the active skill set, as pure functions over
 * the loaded skills: requirement closure, conflicts, and the tool result text.
 */
import { requirementOrder, symmetricConflicts } from "../protocol/skill-graph.js";
import { baseFolderLine } from "../protocol/skill-folder.js";
import type { LoadedSkill } from "./artifacts.js";
import type { ActiveSkill, SkillActivationSource } from "./execution-state.js";

/** A refusal the model reads as the tool's error result. */
export class SkillToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SkillToolError";
  }
}

export interface ActivationPlan {
  requested: LoadedSkill;
  /** True when the requested skill was already active: nothing new is loaded. */
  alreadyActive: boolean;
  /** Skills that become active now, requested first, then its missing requirements depth-first. */
  newlyActive: ActiveSkill[];
}

export function planActivation(options: {
  name: string;
  skills: ReadonlyMap<string, LoadedSkill>;
  active: readonly ActiveSkill[];
  source: Exclude<SkillActivationSource, "requires">;
}): ActivationPlan {
  const { name, skills, active } = options;
  const requested = skills.get(name);
  if (requested === undefined || (options.source === "tool" && requested.modelInvocable === false)) {
    // A skill kept from the model (disable-model-invocation) is as unknown to the tool as a missing one.
    const offered = [...skills.values()].filter((skill) => skill.modelInvocable !== false).map((skill) => skill.name);
    throw new SkillToolError(`Unknown skill "${name}", expected one of: ${offered.join(", ")}.`);
  }
  const activeNames = new Set(active.map((skill) => skill.name));
  if (activeNames.has(name)) return { requested, alreadyActive: true, newlyActive: [] };

  const newlyActive: ActiveSkill[] = [{ name, type: requested.type, activatedBy: options.source }];
  for (const { name: required, requiredBy } of requirementOrder(name, (skill) => skills.get(skill)?.requiresSkills, (skill) => activeNames.has(skill))) {
    const target = skills.get(required);
    if (target === undefined) {
      throw new SkillToolError(`Skill "${requiredBy}" requires "${required}", which does not exist; "${name}" was not loaded.`);
    }
    newlyActive.push({ name: required, type: target.type, activatedBy: "requires", requiredBy });
  }

  const conflict = findConflict(newlyActive, active, skills);
  if (conflict !== undefined) {
    const via = conflict.candidate === name ? "" : ` (required by "${name}")`;
    throw new SkillToolError(
      `Skill "${conflict.candidate}"${via} conflicts with the active skill "${conflict.active}", so "${name}" was not loaded. ` +
        `Continue with "${conflict.active}", or ask the user which workflow to follow.`,
    );
  }
  return { requested, alreadyActive: false, newlyActive };
}

/** The first candidate that conflicts (declared on either side) with an active skill or another candidate, and the first such skill. */
function findConflict(
  candidates: readonly ActiveSkill[],
  active: readonly ActiveSkill[],
  skills: ReadonlyMap<string, LoadedSkill>,
): { candidate: string; active: string } | undefined {
  const position = new Map<string, number>();
  for (const skill of [...active, ...candidates]) if (!position.has(skill.name)) position.set(skill.name, position.size);
  // A conflict between two of these skills is declared by one of them, so their own declarations are all it takes.
  const conflicts = symmetricConflicts(new Map([...position.keys()].map((name) => [name, skills.get(name)?.conflictsWith ?? []])));
  for (const candidate of candidates) {
    let first: string | undefined;
    for (const other of conflicts.get(candidate.name) ?? []) {
      const at = position.get(other);
      if (at !== undefined && (first === undefined || at < (position.get(first) as number))) first = other;
    }
    if (first !== undefined) return { candidate: candidate.name, active: first };
  }
  return undefined;
}

/**
 * The tool result: the requested body exactly as dist/skills/<name>.md holds
 * it, then each newly required reference body once, in its own text part.
 */
export function activationResultText(plan: ActivationPlan, skills: ReadonlyMap<string, LoadedSkill>, active: readonly ActiveSkill[]): string[] {
  if (plan.alreadyActive) {
    const where = active.find((skill) => skill.name === plan.requested.name)?.activatedBy === "preload"
      ? "preloaded in the system prompt"
      : "loaded earlier in this session";
    // Its files stay readable: the base folder comes again, so a context that lost it can still find them.
    const folder = baseFolderNote(plan.requested);
    return [
      `Skill "${plan.requested.name}" is already active (${where}); its instructions are already in your context. Continue following them.`,
      ...(folder === undefined ? [] : [folder]),
    ];
  }
  const parts = [plan.requested.body];
  const folder = baseFolderNote(plan.requested);
  if (folder !== undefined) parts.push(folder);
  for (const skill of plan.newlyActive.slice(1)) {
    const loaded = skills.get(skill.name);
    const note = loaded === undefined ? undefined : baseFolderNote(loaded);
    parts.push(
      `Required ${skill.type} skill "${skill.name}", loaded with "${skill.requiredBy ?? plan.requested.name}" and now active:\n\n${loaded?.body ?? ""}${note === undefined ? "" : `\n${note}`}`,
    );
  }
  return parts;
}

/**
 * The body of a host activation's trusted message: the requested skill's
 * contract line and the activation's text inside one `<skill>` element (a
 * short confirmation when it was active already).
 */
export function hostActivationContent(plan: ActivationPlan, parts: readonly string[]): string {
  if (plan.alreadyActive) return parts.join("\n\n");
  const contract =
    plan.requested.type === "workflow"
      ? "This workflow skill is active because the current task matches it. Follow every required step and complete its verification."
      : "This reference skill is lookup material. Apply only the parts relevant to the task; it creates no checklist unless it declares one.";
  const opening = `<skill name="${plan.requested.name}" type="${plan.requested.type}" activated_by="host">`;
  return `${opening}\n${contract}\n\n${parts.join("\n\n").replace(/\n$/, "")}\n</skill>`;
}

/** Where a skill's supporting files are (see protocol/skill-folder.ts); undefined when it ships none. */
export function baseFolderNote(skill: LoadedSkill): string | undefined {
  return baseFolderLine(skill.name, [...skill.files.keys()]);
}
