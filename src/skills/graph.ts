/**
 * The requirement and conflict relations between skills, as plain maps from
 * skill name to names. Pure functions, shared by lint and by the variant
 * checks of the build.
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

/**
 * Every skill `from` requires, directly or not, each with the shortest chain
 * of names leading to it (`from` first, the skill last). Breadth-first and in
 * declared order, so the chains are deterministic.
 */
export function requirementPaths(requires: SkillRelations["requires"], from: string): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  const queue: string[][] = [[from]];
  for (let head = 0; head < queue.length; head++) {
    const path = queue[head] as string[];
    const last = path[path.length - 1] as string;
    for (const next of requires.get(last) ?? []) {
      if (next === from || paths.has(next)) continue;
      const extended = [...path, next];
      paths.set(next, extended);
      queue.push(extended);
    }
  }
  return paths;
}

/** The names a set of skills brings in with its requirements, the set included, sorted. */
export function requirementClosure(requires: SkillRelations["requires"], names: Iterable<string>): string[] {
  const closure = new Set<string>();
  for (const name of names) {
    closure.add(name);
    for (const required of requirementPaths(requires, name).keys()) closure.add(required);
  }
  return [...closure].sort(compareNames);
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
 * The cycles of the requirement graph, one per strongly connected component
 * (Tarjan), each as the chain of names from the component's smallest name
 * back to it: ["a", "b", "c"] means a → b → c → a. Self-requirements are
 * left to the self-reference rule.
 */
export function findCycles(requires: SkillRelations["requires"]): string[][] {
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
        if (component.length > 1) components.push(component);
      }
    }
  }
  return components.map((component) => cycleThrough(requires, new Set(component))).sort((a, b) => compareNames(a[0] ?? "", b[0] ?? ""));
}

/** The shortest cycle from the component's smallest name back to itself, inside the component. */
function cycleThrough(requires: SkillRelations["requires"], component: ReadonlySet<string>): string[] {
  const start = [...component].sort(compareNames)[0] as string;
  const previous = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const name = queue[head] as string;
    for (const next of requires.get(name) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [name];
        for (let step = previous.get(name); step !== undefined; step = previous.get(step)) path.unshift(step);
        return path;
      }
      if (previous.has(next) || next === start) continue;
      previous.set(next, name);
      queue.push(next);
    }
  }
  return [start];
}

export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
