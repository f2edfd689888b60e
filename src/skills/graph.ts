import { expectObject, expectString, shownValue } from "../protocol/arguments.js";
import { conflictingPairs, requirementOrder, symmetricConflicts } from "../protocol/skill-graph.js";
import type { SkillType } from "../stage-data.js";

/**
 * The skills graph around one skill, as data: what it requires and what
 * requires it, what it conflicts with (declared on either side), and what
 * activating it brings in, in the order the runtime activates it, with the
 * conflicts inside that set (the runtime refuses such a set) and the tool
 * namespaces its workflow skills load.
 */

export interface GraphSkill {
  name: string;
  /** Absent in a collection whose skills name no type (the Agent Skills profile). */
  type?: SkillType | undefined;
  description?: string | undefined;
  /** Root-relative path of its SKILL.md. */
  path: string;
  requiresSkills: readonly string[];
  conflictsWith: readonly string[];
  toolNamespaces?: ReadonlyArray<{ name: string }>;
}

export interface SkillGraphView {
  skill: string;
  type?: SkillType;
  description: string;
  path: string;
  /** As declared, in order. */
  requires: string[];
  /** The skills that list it in requiresSkills, sorted. */
  requiredBy: string[];
  /** Declared on either side, sorted. */
  conflicts: string[];
  /** What activating it brings in besides itself, depth-first in declared order, with the skill whose requirement brought each. */
  activation: Array<{ name: string; requiredBy: string; type?: SkillType; unknown?: true }>;
  /** Pairs inside the activated set that conflict: the runtime refuses to activate such a set. */
  activationConflicts: Array<[string, string]>;
  /** The tool namespaces the activated workflow skills load, sorted. */
  toolNamespaces: string[];
  /** The variants that preload it, sorted. */
  preloadedBy: string[];
}

export function skillGraph(skills: readonly GraphSkill[], name: string, variants: Readonly<Record<string, { preloadedSkills: readonly string[] }>> = {}): SkillGraphView | undefined {
  if (!Array.isArray(skills as unknown)) throw new TypeError(`Unexpected skills ${shownValue(skills)}, expected an array of skills (a lint result's skills)`);
  expectString(name, "name", "a skill's name", true);
  expectObject(variants as unknown, "variants", "an object of variants by name, each with its preloadedSkills (the manifest's variants)");
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  const skill = byName.get(name);
  if (!skill) return undefined;
  const conflicts = symmetricConflicts(new Map(skills.map((entry) => [entry.name, entry.conflictsWith])));
  const order = requirementOrder(name, (other) => byName.get(other)?.requiresSkills, () => false);
  const activation = order.map(({ name: brought, requiredBy }) => {
    const type = byName.get(brought)?.type;
    return type === undefined ? { name: brought, requiredBy, unknown: true as const } : { name: brought, requiredBy, type };
  });
  const activated = [skill, ...order.map((entry) => byName.get(entry.name)).filter((entry): entry is GraphSkill => entry !== undefined)];
  const namespaces = new Set(activated.filter((entry) => entry.type === "workflow").flatMap((entry) => (entry.toolNamespaces ?? []).map((namespace) => namespace.name)));
  return {
    skill: name,
    ...(skill.type === undefined ? {} : { type: skill.type }),
    description: skill.description ?? "",
    path: skill.path,
    requires: [...skill.requiresSkills],
    requiredBy: skills.filter((entry) => entry.requiresSkills.includes(name)).map((entry) => entry.name).sort(),
    conflicts: [...(conflicts.get(name) ?? [])].sort(),
    activation,
    activationConflicts: conflictingPairs(conflicts, [name, ...order.map((entry) => entry.name)]),
    toolNamespaces: [...namespaces].sort(),
    preloadedBy: Object.entries(variants)
      .filter(([, variant]) => variant.preloadedSkills.includes(name))
      .map(([variant]) => variant)
      .sort(),
  };
}
