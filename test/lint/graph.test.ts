import { describe, expect, it } from "vitest";
import { closureConflicts, conflictingPairs, findCycles, requirementClosure, requirementPaths, symmetricConflicts } from "../../src/protocol/skill-graph.js";
import { didYouMean, editDistance } from "../../src/pipeline/validate/suggest.js";

const graph = (edges: Record<string, string[]>): Map<string, string[]> => new Map(Object.entries(edges));

describe("requirement graph", () => {
  it("finds each cycle once, from its smallest name, and ignores self-loops", () => {
    const requires = graph({ d: ["e"], e: ["d"], a: ["b"], b: ["c"], c: ["a", "x"], x: [], s: ["s"] });
    expect(findCycles(requires)).toEqual([
      ["a", "b", "c"],
      ["d", "e"],
    ]);
  });

  it("handles a requirement chain of 20,000 skills without overflowing the stack", () => {
    const requires = new Map<string, string[]>();
    for (let index = 0; index < 20_000; index++) requires.set(`s${index}`, index + 1 < 20_000 ? [`s${index + 1}`] : ["s0"]);
    const cycles = findCycles(requires);
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toHaveLength(20_000);
  });

  it("gives the shortest chain to every requirement", () => {
    const paths = requirementPaths(graph({ a: ["b", "c"], b: ["d"], c: ["d"], d: ["a"] }), "a");
    expect(Object.fromEntries(["a", "b", "c", "d", "x"].map((name) => [name, paths.pathTo(name)]))).toEqual({ a: undefined, b: ["a", "b"], c: ["a", "c"], d: ["a", "b", "d"], x: undefined });
  });

  it("closes a set over its requirements and finds conflicting pairs in it", () => {
    const requires = graph({ deck: ["gml", "cli"], gml: [], cli: [], importer: ["gml"] });
    const conflicts = symmetricConflicts(graph({ deck: ["importer"], cli: [] }));
    expect(requirementClosure(requires, ["deck"])).toEqual(["cli", "deck", "gml"]);
    expect(conflictingPairs(conflicts, requirementClosure(requires, ["deck", "importer"]))).toEqual([["deck", "importer"]]);
    expect(conflictingPairs(conflicts, requirementClosure(requires, ["deck"]))).toEqual([]);
  });
});

describe("conflicts in requirement closures", () => {
  it("finds conflicts with the skill and pairs no single direct requirement brings in", () => {
    const requires = graph({ top: ["a", "b"], above: ["top"], a: ["x"], b: ["y"], x: [], y: [] });
    const conflicts = symmetricConflicts(graph({ x: ["y"], top: ["y"] }));
    expect(Object.fromEntries(closureConflicts({ requires, conflicts }))).toEqual({ top: { withSkill: ["y"], pairs: [["x", "y"]] } });
  });

  it("does not count a skill in a cycle among what it requires", () => {
    const requires = graph({ c1: ["c2"], c2: ["c1", "z"], z: [] });
    const conflicts = symmetricConflicts(graph({ c1: ["z"] }));
    expect(Object.fromEntries(closureConflicts({ requires, conflicts }))).toEqual({ c1: { withSkill: ["z"], pairs: [] } });
  });
});

describe("did you mean", () => {
  it("suggests the known key for near misses and nothing for far ones", () => {
    const keys = ["name", "type", "description", "requiresSkills", "conflictsWith", "allowed-tools"];
    expect(didYouMean("requireSkills", keys)).toBe('; did you mean "requiresSkills"?');
    expect(didYouMean("requires_skills", keys)).toBe('; did you mean "requiresSkills"?');
    expect(didYouMean("allowedTools", keys)).toBe('; did you mean "allowed-tools"?');
    expect(didYouMean("descripton", keys)).toBe('; did you mean "description"?');
    expect(didYouMean("author", keys)).toBe("");
  });
  it("counts an adjacent swap as one edit", () => {
    expect(editDistance("tpye", "type")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });
});
