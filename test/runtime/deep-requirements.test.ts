import { describe, expect, it } from "vitest";
import type { LoadedSkill } from "../../src/runtime/artifacts.js";
import type { ActiveSkill } from "../../src/runtime/execution-state.js";
import { planActivation, SkillToolError } from "../../src/runtime/skills.js";

// The `skill` tool on requirement graphs far deeper than a real project's:
// the activation closure and its conflict check stay exact and do not
// overflow the call stack.

function loaded(name: string, requiresSkills: readonly string[] = [], conflictsWith: readonly string[] = []): LoadedSkill {
  return { name, type: "reference", description: `Use for ${name}.`, body: `# ${name}`, requiresSkills, conflictsWith, baseDir: `skills/${name}`, files: new Map(), modelInvocable: true, toolNamespaces: [] };
}

const step = (index: number): string => `step-${String(index).padStart(5, "0")}`;

/** `top` requires step-00001, which requires step-00002, … down to step-<depth>. */
function deepChain(depth: number, bottomConflicts: readonly string[] = []): Map<string, LoadedSkill> {
  const skills = new Map<string, LoadedSkill>([["top", loaded("top", [step(1)])]]);
  for (let index = 1; index <= depth; index++) {
    skills.set(step(index), loaded(step(index), index < depth ? [step(index + 1)] : [], index === depth ? bottomConflicts : []));
  }
  return skills;
}

describe("the skill tool on a deep requirement chain", () => {
  it("activates a 20,000-deep chain in order, each skill required by the one above", () => {
    const plan = planActivation({ name: "top", skills: deepChain(20_000), active: [], source: "tool" });
    expect(plan.newlyActive).toHaveLength(20_001);
    expect(plan.newlyActive[0]).toEqual({ name: "top", type: "reference", activatedBy: "tool" });
    expect(plan.newlyActive[20_000]).toEqual({ name: step(20_000), type: "reference", activatedBy: "requires", requiredBy: step(19_999) });
  });

  it("refuses the chain when its bottom conflicts with an active skill, naming both", () => {
    const skills = deepChain(10_000, ["theme"]);
    skills.set("theme", loaded("theme"));
    const active: ActiveSkill[] = [{ name: "theme", type: "reference", activatedBy: "tool" }];
    expect(() => planActivation({ name: "top", skills, active, source: "tool" })).toThrow(
      new SkillToolError(
        `Skill "${step(10_000)}" (required by "top") conflicts with the active skill "theme", so "top" was not loaded. Continue with "theme", or ask the user which workflow to follow.`,
      ),
    );
  });

  it("refuses the chain when a conflict declared on the active side meets its bottom", () => {
    const skills = deepChain(10_000);
    skills.set("theme", loaded("theme", [], [step(10_000)]));
    const active: ActiveSkill[] = [{ name: "theme", type: "reference", activatedBy: "tool" }];
    expect(() => planActivation({ name: "top", skills, active, source: "tool" })).toThrow(/Skill "step-10000" \(required by "top"\) conflicts with the active skill "theme"/);
  });

  it("names the skill whose requirement is missing at the bottom of the chain", () => {
    const skills = deepChain(10_000);
    skills.set(step(10_000), loaded(step(10_000), ["absent"]));
    expect(() => planActivation({ name: "top", skills, active: [], source: "tool" })).toThrow(
      new SkillToolError(`Skill "${step(10_000)}" requires "absent", which does not exist; "top" was not loaded.`),
    );
  });
});
