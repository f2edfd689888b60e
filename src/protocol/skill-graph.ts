/**
 * The requirement and conflict relations between skills, as plain maps from
 * skill name to names: what `requiresSkills` and `conflictsWith` mean, for the
 * compiler and the runtime alike. Pure functions with no imports, shared by
 * lint, the variant checks of the build and the runtime's `skill` tool. Each
 * runs in time that grows with skills + requirements (the closure checks also
 * with the number of skills that declare a conflict, as bits), so a deep or
 * wide requirement graph costs about what a flat one of the same size does.
 */
export interface SkillRelations {
  /** name -> names it requires, in declared order (known names only). */
  requires: ReadonlyMap<string, readonly string[]>;
  /** name -> names it conflicts with, declared on either side. */
  conflicts: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Builds symmetric conflicts from each skill's declared `conflictsWith`. */
export function symmetricConflicts(declared: ReadonlyMap<string, readonly string[]>): Map<string, Set<string>> {
  const conflicts = new Map<string, Set<string>>();
  const add = (a: string, b: string): void => {
    let set = conflicts.get(a);
    if (!set) conflicts.set(a, (set = new Set()));
    set.add(b);
  };
  for (const [name, others] of declared) {
    for (const other of others) {
      if (other === name) continue;
      add(name, other);
      add(other, name);
    }
  }
  return conflicts;
}

/** The shortest chains of requirements from one skill, found breadth-first. */
export interface RequirementPaths {
  /** The chain of names from the start to `target` (start first, target last); undefined when the start does not require it. */
  pathTo(target: string): string[] | undefined;
}

/**
 * Every skill `from` requires, directly or not, with the shortest chain of
 * names leading to it. Breadth-first and in declared order, so the chains are
 * deterministic; only the step each name was reached from is kept, and a
 * chain is spelled out when asked for.
 */
export function requirementPaths(requires: SkillRelations["requires"], from: string): RequirementPaths {
  const reachedFrom = new Map<string, string>();
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const name = queue[head] as string;
    for (const next of requires.get(name) ?? []) {
      if (next === from || reachedFrom.has(next)) continue;
      reachedFrom.set(next, name);
      queue.push(next);
    }
  }
  return {
    pathTo(target) {
      if (!reachedFrom.has(target)) return undefined;
      const path = [target];
      for (let step = reachedFrom.get(target); step !== undefined; step = reachedFrom.get(step)) path.push(step);
      return path.reverse();
    },
  };
}

/** The names a set of skills brings in with its requirements, the set included, sorted. */
export function requirementClosure(requires: SkillRelations["requires"], names: Iterable<string>): string[] {
  const closure = new Set<string>();
  const pending = [...names];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (closure.has(name)) continue;
    closure.add(name);
    for (const required of requires.get(name) ?? []) if (!closure.has(required)) pending.push(required);
  }
  return [...closure].sort(compareNames);
}

/**
 * The skills `from` brings in, depth-first in declared order (each once, the
 * way the runtime activates them), with the skill whose requirement brought
 * each. `skip` names skills not to enter (already loaded); `requiresOf` gives
 * undefined for an unknown name, which is listed and not entered.
 */
export function requirementOrder(
  from: string,
  requiresOf: (name: string) => readonly string[] | undefined,
  skip: (name: string) => boolean,
): Array<{ name: string; requiredBy: string }> {
  const order: Array<{ name: string; requiredBy: string }> = [];
  const seen = new Set([from]);
  // Iterative, so a long requirement chain cannot overflow the call stack.
  const work: Array<{ name: string; edges: readonly string[]; next: number }> = [{ name: from, edges: requiresOf(from) ?? [], next: 0 }];
  while (work.length > 0) {
    const frame = work[work.length - 1] as { name: string; edges: readonly string[]; next: number };
    if (frame.next === frame.edges.length) {
      work.pop();
      continue;
    }
    const required = frame.edges[frame.next++] as string;
    if (seen.has(required) || skip(required)) continue;
    seen.add(required);
    order.push({ name: required, requiredBy: frame.name });
    const edges = requiresOf(required);
    if (edges !== undefined) work.push({ name: required, edges, next: 0 });
  }
  return order;
}

/** Pairs of names in `names` that conflict, each pair sorted, in sorted order. */
export function conflictingPairs(conflicts: SkillRelations["conflicts"], names: Iterable<string>): Array<[string, string]> {
  const members = new Set(names);
  const pairs: Array<[string, string]> = [];
  for (const name of [...members].sort(compareNames)) {
    for (const other of conflicts.get(name) ?? []) {
      if (members.has(other) && compareNames(name, other) < 0) pairs.push([name, other]);
    }
  }
  return pairs.sort((a, b) => compareNames(a[0], b[0]) || compareNames(a[1], b[1]));
}

/**
 * The strongly connected components of the requirement graph (Tarjan), every
 * name in exactly one, each component listed after every component it
 * requires. Self-requirements are ignored.
 */
export function requirementComponents(requires: SkillRelations["requires"]): string[][] {
  const indexOf = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  // Iterative, so a long requirement chain cannot overflow the call stack.
  for (const root of [...requires.keys()].sort(compareNames)) {
    if (indexOf.has(root)) continue;
    const work: Array<{ name: string; next: number }> = [{ name: root, next: 0 }];
    indexOf.set(root, counter);
    lowLink.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { name: string; next: number };
      const edges = requires.get(frame.name) ?? [];
      if (frame.next < edges.length) {
        const target = edges[frame.next++] as string;
        if (target === frame.name) continue;
        if (!indexOf.has(target)) {
          indexOf.set(target, counter);
          lowLink.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ name: target, next: 0 });
        } else if (onStack.has(target)) {
          lowLink.set(frame.name, Math.min(lowLink.get(frame.name) ?? 0, indexOf.get(target) ?? 0));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) lowLink.set(parent.name, Math.min(lowLink.get(parent.name) ?? 0, lowLink.get(frame.name) ?? 0));
      if (lowLink.get(frame.name) === indexOf.get(frame.name)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.name);
        components.push(component);
      }
    }
  }
  return components;
}

/**
 * The cycles of the requirement graph, one per strongly connected component,
 * each as the chain of names from the component's smallest name back to it:
 * ["a", "b", "c"] means a → b → c → a. Self-requirements are left to the
 * self-reference rule.
 */
export function findCycles(requires: SkillRelations["requires"]): string[][] {
  return requirementComponents(requires)
    .filter((component) => component.length > 1)
    .map((component) => cycleThrough(requires, new Set(component)))
    .sort((a, b) => compareNames(a[0] ?? "", b[0] ?? ""));
}

/** The shortest cycle from the component's smallest name back to itself, inside the component. */
function cycleThrough(requires: SkillRelations["requires"], component: ReadonlySet<string>): string[] {
  const start = [...component].sort(compareNames)[0] as string;
  const previous = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const name = queue[head] as string;
    for (const next of requires.get(name) ?? []) {
      // A self-requirement is no way back: the start's own would make the cycle a single name.
      if (next === name || !component.has(next)) continue;
      if (next === start) {
        const path = [name];
        for (let step = previous.get(name); step !== undefined; step = previous.get(step)) path.push(step);
        return path.reverse();
      }
      if (previous.has(next)) continue;
      previous.set(next, name);
      queue.push(next);
    }
  }
  return [start];
}

/** What one skill's requirement closure holds that conflicts. */
export interface ClosureConflicts {
  /** Skills it requires, directly or not, that conflict with it; sorted. */
  withSkill: string[];
  /**
   * Conflicting pairs among the skills it requires (each pair sorted) that no
   * single direct requirement brings in together: a pair one requirement
   * already holds belongs to that requirement. By first name, then in the
   * order the conflicts were declared.
   */
  pairs: Array<[string, string]>;
}

/**
 * The conflicts in every skill's requirement closure (the skill itself left
 * out of what it requires), for the skills that have any. Only skills that
 * take part in a conflict matter, so each closure is kept as a bit set of
 * those, computed once per strongly connected component from the components
 * it requires; a component with a single requirement shares its bits.
 */
export function closureConflicts(relations: SkillRelations): Map<string, ClosureConflicts> {
  const { requires, conflicts } = relations;
  const found = new Map<string, ClosureConflicts>();
  // Numbered in name order, so the bits of a set come out sorted by name.
  const involved = [...conflicts.keys()].filter((name) => (conflicts.get(name)?.size ?? 0) > 0).sort(compareNames);
  if (involved.length === 0) return found;
  const bitOf = new Map(involved.map((name, index) => [name, index]));
  const words = Math.ceil(involved.length / 32);
  const components = requirementComponents(requires);
  const componentOf = new Map<string, number>();
  components.forEach((members, index) => {
    for (const member of members) componentOf.set(member, index);
  });
  // below: what a component's members require (in a cycle, each other too); closed: that and the members themselves.
  const below: Uint32Array[] = [];
  const closed: Uint32Array[] = [];
  components.forEach((members, index) => {
    const required = new Set<Uint32Array>();
    for (const member of members) {
      for (const name of requires.get(member) ?? []) {
        const target = componentOf.get(name) as number;
        if (target !== index) required.add(closed[target] as Uint32Array);
      }
    }
    const own = members.flatMap((member) => bitOf.get(member) ?? []);
    const reached = union([...required], words);
    closed[index] = withBits(reached, own);
    below[index] = members.length > 1 ? (closed[index] as Uint32Array) : reached;
  });

  for (const [name, direct] of requires) {
    let reach = below[componentOf.get(name) as number] as Uint32Array;
    const ownBit = bitOf.get(name);
    if (ownBit !== undefined && hasBit(reach, ownBit)) {
      // A skill in a cycle reaches itself; it does not count among what it requires.
      reach = reach.slice();
      reach[ownBit >>> 5] = (reach[ownBit >>> 5] as number) & ~(1 << (ownBit & 31));
    }
    const withSkill = [...(conflicts.get(name) ?? [])].filter((other) => hasBit(reach, bitOf.get(other) as number)).sort(compareNames);
    const directClosures = direct.map((required) => closed[componentOf.get(required) as number] as Uint32Array);
    const pairs: Array<[string, string]> = [];
    // When one direct requirement brings in every conflicting skill, every pair is its own.
    if (!directClosures.some((bits) => covers(bits, reach))) {
      for (const index of setBits(reach)) {
        const member = involved[index] as string;
        for (const other of conflicts.get(member) ?? []) {
          const otherBit = bitOf.get(other) as number;
          if (compareNames(member, other) >= 0 || !hasBit(reach, otherBit)) continue;
          if (directClosures.some((bits) => hasBit(bits, index) && hasBit(bits, otherBit))) continue;
          pairs.push([member, other]);
        }
      }
    }
    if (withSkill.length > 0 || pairs.length > 0) found.set(name, { withSkill, pairs });
  }
  return found;
}

/** The union of bit sets: the one set itself when there is one, so a chain of single requirements shares one set. */
function union(sets: readonly Uint32Array[], words: number): Uint32Array {
  if (sets.length === 1) return sets[0] as Uint32Array;
  const bits = new Uint32Array(words);
  for (const set of sets) for (let word = 0; word < words; word++) bits[word] = (bits[word] as number) | (set[word] as number);
  return bits;
}

/** `bits` with more bits set: a copy when any is new. */
function withBits(bits: Uint32Array, indices: readonly number[]): Uint32Array {
  if (indices.every((index) => hasBit(bits, index))) return bits;
  const copy = bits.slice();
  for (const index of indices) copy[index >>> 5] = (copy[index >>> 5] as number) | (1 << (index & 31));
  return copy;
}

function hasBit(bits: Uint32Array, index: number): boolean {
  return (((bits[index >>> 5] as number) >>> (index & 31)) & 1) === 1;
}

/** True when every bit of `part` is set in `whole`. */
function covers(whole: Uint32Array, part: Uint32Array): boolean {
  return part.every((word, index) => (word & ~(whole[index] as number)) === 0);
}

/** The indices of the set bits, ascending. */
function* setBits(bits: Uint32Array): Generator<number> {
  for (let word = 0; word < bits.length; word++) {
    for (let value = bits[word] as number; value !== 0; value &= value - 1) yield word * 32 + (31 - Math.clz32(value & -value));
  }
}

export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
