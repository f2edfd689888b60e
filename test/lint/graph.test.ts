import { describe, expect, it } from "vitest";
import {
  closureConflicts,
  conflictingPairs,
  findCycles,
  requirementClosure,
  requirementComponents,
  requirementOrder,
  requirementPaths,
  symmetricConflicts,
} from "../../src/protocol/skill-graph.js";
import { didYouMean, editDistance } from "../../src/protocol/suggest.js";
import { seededRandom } from "../helpers/random.js";

const graph = (edges: Record<string, string[]>): Map<string, string[]> => new Map(Object.entries(edges));

describe("requirement graph", () => {
  it("finds each cycle once, from its smallest name, and ignores self-loops", () => {
    // f requires itself first: its cycle is still f → g → f, not f → f.
    const requires = graph({ d: ["e"], e: ["d"], a: ["b"], b: ["c"], c: ["a", "x"], x: [], s: ["s"], f: ["f", "g"], g: ["f"] });
    expect(findCycles(requires)).toEqual([
      ["a", "b", "c"],
      ["d", "e"],
      ["f", "g"],
    ]);
  });

  it("takes a name the map does not list as requiring nothing", () => {
    const requires = graph({ deck: ["gml"], gml: ["theme"] });
    expect(requirementClosure(requires, ["deck"])).toEqual(["deck", "gml", "theme"]);
    expect(requirementComponents(requires)).toEqual([["theme"], ["gml"], ["deck"]]);
    const conflicts = symmetricConflicts(graph({ deck: ["theme"] }));
    expect(Object.fromEntries(closureConflicts({ requires, conflicts }))).toEqual({ deck: { withSkill: ["theme"], pairs: [] } });
  });

  it("activates depth-first in declared order, listing an unknown name without entering it, and nothing for an unknown start", () => {
    const requires = graph({ deck: ["gml", "absent", "theme"], gml: ["missing", "theme"], theme: [] });
    expect(requirementOrder("deck", (name) => requires.get(name), () => false)).toEqual([
      { name: "gml", requiredBy: "deck" },
      { name: "missing", requiredBy: "gml" },
      { name: "theme", requiredBy: "gml" },
      { name: "absent", requiredBy: "deck" },
    ]);
    expect(requirementOrder("deck", (name) => requires.get(name), (name) => name === "gml")).toEqual([
      { name: "absent", requiredBy: "deck" },
      { name: "theme", requiredBy: "deck" },
    ]);
    expect(requirementOrder("absent", (name) => requires.get(name), () => false)).toEqual([]);
  });

  it("makes conflicts symmetric and drops a skill's conflict with itself", () => {
    expect(symmetricConflicts(graph({ a: ["a", "b"], c: ["b"] }))).toEqual(
      new Map([
        ["a", new Set(["b"])],
        ["b", new Set(["a", "c"])],
        ["c", new Set(["b"])],
      ]),
    );
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

/**
 * The graph functions against their definitions, spelled out the slow way
 * (reachability by search from each skill, shortest distances by
 * Floyd–Warshall), on seeded random graphs: mostly forward requirements with
 * some back edges (cycles of many sizes, nested, sharing skills) and
 * self-requirements, more than 32 skills in conflicts (several words of bits),
 * declared in an order that is not the names' order.
 */
describe("the requirement graph against its definitions, on seeded random graphs", () => {
  interface RandomGraph {
    requires: Map<string, string[]>;
    conflicts: Map<string, Set<string>>;
  }

  function randomGraph(seed: number): RandomGraph {
    const next = seededRandom(seed);
    const count = 40 + Math.floor(next() * 40);
    const pick = (length: number): number => Math.floor(next() * length);
    // A topological order unrelated to the names, so declared order and sorted order differ.
    const order = Array.from({ length: count }, (_, index) => `k${String(index).padStart(2, "0")}`);
    for (let index = count - 1; index > 0; index--) {
      const other = pick(index + 1);
      [order[index], order[other]] = [order[other] as string, order[index] as string];
    }
    const requires = new Map<string, string[]>();
    order.forEach((name, index) => {
      const targets = new Set<string>();
      for (let edge = pick(5); edge > 0; edge--) {
        const roll = next();
        if (roll < 0.05) targets.add(name);
        else if (roll < 0.2 && index > 0) targets.add(order[index - 1 - pick(Math.min(8, index))] as string);
        else if (roll < 0.25) targets.add(order[pick(count)] as string);
        else if (index + 1 < count) targets.add(order[index + 1 + pick(Math.min(8, count - index - 1))] as string);
      }
      requires.set(name, [...targets]);
    });
    const declared = new Map<string, string[]>();
    for (let pair = count; pair > 0; pair--) {
      const name = order[pick(count)] as string;
      declared.set(name, [...(declared.get(name) ?? []), order[pick(count)] as string]);
    }
    return { requires, conflicts: symmetricConflicts(declared) };
  }

  /** Every name reachable from `from` in one step or more (`from` itself only through a cycle or a self-requirement). */
  function reachable(requires: ReadonlyMap<string, readonly string[]>, from: string): Set<string> {
    const found = new Set<string>();
    const pending = [...(requires.get(from) ?? [])];
    while (pending.length > 0) {
      const name = pending.pop() as string;
      if (found.has(name)) continue;
      found.add(name);
      pending.push(...(requires.get(name) ?? []));
    }
    return found;
  }

  /** Shortest number of requirement steps between any two names (self-requirements left out); Infinity when none. */
  function distances(requires: ReadonlyMap<string, readonly string[]>): (from: string, to: string) => number {
    const names = [...requires.keys()];
    const index = new Map(names.map((name, position) => [name, position]));
    const table = names.map((from) => names.map((to) => (from === to ? 0 : (requires.get(from) ?? []).includes(to) ? 1 : Infinity)));
    for (const via of names.keys()) for (const from of names.keys()) for (const to of names.keys()) {
      const row = table[from] as number[];
      row[to] = Math.min(row[to] as number, (row[via] as number) + ((table[via] as number[])[to] as number));
    }
    return (from, to) => (table[index.get(from) as number] as number[])[index.get(to) as number] as number;
  }

  const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const isChain = (requires: ReadonlyMap<string, readonly string[]>, chain: readonly string[]): boolean =>
    chain.every((name, index) => index === 0 || (requires.get(chain[index - 1] as string) ?? []).includes(name));

  const seeds = Array.from({ length: 8 }, (_, index) => 1 + index * 7919);

  it.each(seeds)("seed %i: the components are the sets of mutually reachable skills, each after every component it requires", (seed) => {
    const { requires } = randomGraph(seed);
    const components = requirementComponents(requires);
    expect(components.flat().sort(byName)).toEqual([...requires.keys()].sort(byName));
    const componentOf = new Map(components.flatMap((members, index) => members.map((member) => [member, index] as const)));
    const reach = new Map([...requires.keys()].map((name) => [name, reachable(requires, name)]));
    for (const a of requires.keys()) {
      for (const b of requires.keys()) {
        const mutual = a === b || ((reach.get(a)?.has(b) ?? false) && (reach.get(b)?.has(a) ?? false));
        expect(componentOf.get(a) === componentOf.get(b), `${a} and ${b}`).toBe(mutual);
      }
      for (const required of requires.get(a) ?? []) expect(componentOf.get(required) as number, `${a} → ${required}`).toBeLessThanOrEqual(componentOf.get(a) as number);
    }
    expect(components.some((members) => members.length > 2), "a cycle of three skills or more").toBe(true);
  });

  it.each(seeds)("seed %i: one shortest cycle per component of two skills or more, from its smallest name, in name order", (seed) => {
    const { requires } = randomGraph(seed);
    const distance = distances(requires);
    const expected = requirementComponents(requires)
      .filter((members) => members.length > 1)
      .map((members) => [...members].sort(byName)[0] as string)
      .sort(byName);
    const cycles = findCycles(requires);
    expect(cycles.map((cycle) => cycle[0])).toEqual(expected);
    for (const cycle of cycles) {
      const start = cycle[0] as string;
      expect(isChain(requires, [...cycle, start]), cycle.join(" → ")).toBe(true);
      expect(new Set(cycle).size).toBe(cycle.length);
      const shortest = Math.min(...[...requires.keys()].filter((name) => name !== start && (requires.get(name) ?? []).includes(start)).map((name) => distance(start, name) + 1));
      expect(cycle.length, cycle.join(" → ")).toBe(shortest);
    }
  });

  it.each(seeds)("seed %i: a shortest chain to every skill required directly or not, and none to the others", (seed) => {
    const { requires } = randomGraph(seed);
    const distance = distances(requires);
    for (const from of [...requires.keys()].slice(0, 10)) {
      const paths = requirementPaths(requires, from);
      const reach = reachable(requires, from);
      for (const target of requires.keys()) {
        const path = paths.pathTo(target);
        if (target === from || !reach.has(target)) {
          expect(path, `${from} → ${target}`).toBeUndefined();
          continue;
        }
        expect(path?.[0]).toBe(from);
        expect(path?.at(-1)).toBe(target);
        expect(isChain(requires, path ?? []), path?.join(" → ")).toBe(true);
        expect(path?.length, path?.join(" → ")).toBe(distance(from, target) + 1);
      }
    }
  });

  it.each(seeds)("seed %i: closures and the conflicting pairs in them", (seed) => {
    const { requires, conflicts } = randomGraph(seed);
    const names = [...requires.keys()].slice(0, 3);
    const closure = [...new Set([...names, ...names.flatMap((name) => [...reachable(requires, name)])])].sort(byName);
    expect(requirementClosure(requires, names)).toEqual(closure);
    const pairs = closure.flatMap((a) => closure.filter((b) => byName(a, b) < 0 && (conflicts.get(a)?.has(b) ?? false)).map((b): [string, string] => [a, b]));
    expect(conflictingPairs(conflicts, closure)).toEqual(pairs);
  });

  it.each(seeds)("seed %i: the activation order is depth-first in declared order, each skill once, skipping the loaded ones", (seed) => {
    const { requires } = randomGraph(seed);
    const loaded = new Set([...requires.keys()].filter((_, index) => index % 5 === 4));
    for (const from of [...requires.keys()].slice(0, 10)) {
      const expected: Array<{ name: string; requiredBy: string }> = [];
      const seen = new Set([from]);
      const visit = (name: string): void => {
        for (const required of requires.get(name) ?? []) {
          if (seen.has(required) || loaded.has(required)) continue;
          seen.add(required);
          expected.push({ name: required, requiredBy: name });
          visit(required);
        }
      };
      visit(from);
      expect(requirementOrder(from, (name) => requires.get(name), (name) => loaded.has(name))).toEqual(expected);
    }
  });

  it.each(seeds)("seed %i: the conflicts in each closure: with the skill, and pairs no single direct requirement brings in", (seed) => {
    const { requires, conflicts } = randomGraph(seed);
    const expected: Array<[string, { withSkill: string[]; pairs: Array<[string, string]> }]> = [];
    for (const [name, direct] of requires) {
      const required = reachable(requires, name);
      required.delete(name);
      const withSkill = [...(conflicts.get(name) ?? [])].filter((other) => required.has(other)).sort(byName);
      const directClosures = direct.map((first) => new Set([first, ...reachable(requires, first)]));
      const pairs: Array<[string, string]> = [];
      for (const member of [...required].sort(byName)) {
        for (const other of conflicts.get(member) ?? []) {
          if (byName(member, other) >= 0 || !required.has(other)) continue;
          if (directClosures.some((closure) => closure.has(member) && closure.has(other))) continue;
          pairs.push([member, other]);
        }
      }
      if (withSkill.length > 0 || pairs.length > 0) expected.push([name, { withSkill, pairs }]);
    }
    const found = [...closureConflicts({ requires, conflicts })];
    expect(found).toEqual(expected);
    expect(conflicts.size, "skills in conflicts, beyond one word of bits").toBeGreaterThan(32);
  });

  it("the seeds reach conflicting pairs that only two direct requirements together bring in", () => {
    const withPairs = seeds.filter((seed) => [...closureConflicts(randomGraph(seed)).values()].some(({ pairs }) => pairs.length > 0));
    expect(withPairs.length).toBeGreaterThan(seeds.length / 2);
  });
});
