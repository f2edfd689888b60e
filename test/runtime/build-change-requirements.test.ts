/**
 * reconcileBuild and the requirements a build gives the active skills, as a
 * pure function: what the skill tool would activate on the new build is
 * active, what no active skill requires any more leaves, and a requirement
 * that conflicts with an active skill stays unmet, told with a change and not
 * again on every reopen of the same build.
 */
import { describe, expect, it } from "vitest";
import type { LoadedSkill } from "../../src/runtime/artifacts.js";
import type { ActiveSkill } from "../../src/runtime/execution-state.js";
import { reconcileBuild, type ServingBuild } from "../../src/runtime/state/build-change.js";
import type { StateCore } from "../../src/runtime/state/fields.js";

function skill(name: string, type: LoadedSkill["type"], requiresSkills: string[] = [], conflictsWith: string[] = []): LoadedSkill {
  return { name, type, description: `Use when ${name}.`, body: `# ${name}\n`, requiresSkills, conflictsWith, baseDir: `skills/${name}`, files: new Map(), modelInvocable: true, toolNamespaces: [] };
}

function serving(skills: LoadedSkill[], cacheKey = "key"): ServingBuild {
  return { skills: new Map(skills.map((entry) => [entry.name, entry])), cacheKey, variant: "base", preloaded: [] };
}

function state(activeSkills: ActiveSkill[], cacheKey = "key"): StateCore & { variant: string } {
  return { cacheKey, activeSkills, tasks: { revision: 0, items: [] }, currentArtifacts: [], variant: "base" } as unknown as StateCore & { variant: string };
}

const workflow: ActiveSkill = { name: "outline", type: "workflow", activatedBy: "tool" };

describe("a reopen and the build's requirements", () => {
  it("activates a chain a requirement added brings, depth-first, each required by the skill that brings it", () => {
    const build = serving([skill("outline", "workflow", ["style"]), skill("style", "reference", ["palette"]), skill("palette", "reference")]);
    const rebuilt = reconcileBuild(state([workflow]), build);
    expect(rebuilt?.requiredNow).toEqual([
      { skill: "style", by: "outline" },
      { skill: "palette", by: "style" },
    ]);
    expect(rebuilt?.change.activeSkills.map((entry) => [entry.name, entry.activatedBy, entry.requiredBy])).toEqual([
      ["outline", "tool", undefined],
      ["style", "requires", "outline"],
      ["palette", "requires", "style"],
    ]);
  });

  it("lets a chain leave whole when its root no longer requires it, and keeps a skill another active skill still requires", () => {
    const active: ActiveSkill[] = [workflow, { name: "style", type: "reference", activatedBy: "requires", requiredBy: "outline" }, { name: "palette", type: "reference", activatedBy: "requires", requiredBy: "style" }];
    const rebuilt = reconcileBuild(state(active), serving([skill("outline", "workflow"), skill("style", "reference", ["palette"]), skill("palette", "reference")]));
    expect(rebuilt?.unrequiredSkills).toEqual(["style", "palette"]);
    expect(rebuilt?.droppedSkills).toEqual(["style", "palette"]);
    const deck: ActiveSkill = { name: "deck", type: "workflow", activatedBy: "tool" };
    const shared = reconcileBuild(state([...active, deck]), serving([skill("outline", "workflow"), skill("deck", "workflow", ["style"]), skill("style", "reference", ["palette"]), skill("palette", "reference")]));
    expect(shared?.unrequiredSkills).toEqual([]);
    expect(shared?.change.activeSkills.find((entry) => entry.name === "style")?.requiredBy).toBe("deck");
  });

  it("leaves a requirement that conflicts with an active skill unmet, names it with the build's change, and says nothing on the next reopen of the same build", () => {
    const active: ActiveSkill[] = [workflow, { name: "brand", type: "reference", activatedBy: "tool" }];
    const build = serving([skill("outline", "workflow", ["plain"]), skill("plain", "reference", [], ["brand"]), skill("brand", "reference")], "new");
    const rebuilt = reconcileBuild(state(active, "old"), build);
    expect(rebuilt?.blockedRequirements).toEqual([{ skill: "plain", by: "outline", conflictsWith: "brand" }]);
    expect(rebuilt?.change.activeSkills.map((entry) => entry.name)).toEqual(["outline", "brand"]);
    expect(reconcileBuild(state(active, "new"), build)).toBeUndefined();
  });

  it("changes nothing when the active skills already hold what the build requires", () => {
    const active: ActiveSkill[] = [workflow, { name: "style", type: "reference", activatedBy: "requires", requiredBy: "outline" }];
    expect(reconcileBuild(state(active), serving([skill("outline", "workflow", ["style"]), skill("style", "reference")]))).toBeUndefined();
  });
});
