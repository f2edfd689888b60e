import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The structure as a contract: no import cycle anywhere in src/, and the
 * pipeline's stages import only from stages before them in the data flow.
 * Type-only imports count: a type that flows upward is a stage boundary in
 * the wrong place.
 */

const srcDir = fileURLToPath(new URL("../../src/", import.meta.url));

/** Data-flow order; a stage may import from its own folder and from folders earlier in this list. */
const STAGES = ["session", "discover", "parse", "validate", "lint-skills", "render", "emit", "cache", "compile"] as const;
/** Modules outside src/pipeline/ that stages may use: shared data and leaf helpers, never an entry point. */
const SHARED = ["diagnostics/", "stage-data.ts", "protocol/", "skills/", "tokens.ts", "version.ts", "package-paths.ts"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith(".ts") ? [path] : [];
  });
}

/**
 * Module (src-relative, POSIX) → the src modules it imports, statically or
 * dynamically; without `types`, `import type` and `export type` lines (erased
 * when compiled) are left out.
 */
function importGraph(types = true): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(srcDir)) {
    const text = readFileSync(file, "utf8");
    const targets = new Set<string>();
    for (const match of text.matchAll(/^(import|export)?(\s+type\b)?[^;]*?(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)["'](\.{1,2}\/[^"']+)["']/gms)) {
      if (!types && match[2]) continue;
      const target = resolve(dirname(file), (match[3] as string).replace(/\.js$/, ".ts"));
      targets.add(relative(srcDir, target).split(sep).join("/"));
    }
    graph.set(relative(srcDir, file).split(sep).join("/"), [...targets].sort());
  }
  return graph;
}

function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === "done") return undefined;
    if (state.get(node) === "open") return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, "done");
    return undefined;
  };
  for (const node of [...graph.keys()].sort()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

/** Strongly connected components of more than one module: every import cycle lies inside one. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return found.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

function stageOf(module: string): number | undefined {
  const match = /^pipeline\/([^/]+)\//.exec(module);
  if (!match) return undefined;
  const index = (STAGES as readonly string[]).indexOf(match[1] as string);
  return index === -1 ? undefined : index;
}

describe("import graph", () => {
  const graph = importGraph();

  it("resolves every relative import to a module in src/", () => {
    const dangling = [...graph].flatMap(([from, targets]) => targets.filter((target) => !graph.has(target)).map((target) => `${from} -> ${target}`));
    expect(dangling).toEqual([]);
  });

  it("has no import cycle in the compiler, type imports included", () => {
    const compiler = new Map([...graph].filter(([module]) => !module.startsWith("runtime/")));
    expect(findCycle(compiler)).toBeUndefined();
  });

  it("has no import cycle outside the runtime, and in the runtime only the listed ones", () => {
    // The runtime's remaining cycles, pinned so that no new one can appear; resolving one shrinks this list.
    expect(cycles(graph)).toEqual([
      ["runtime/controller.ts", "runtime/injections/dispatcher.ts"],
      ["runtime/injections/queue.ts", "runtime/journal.ts", "runtime/state.ts"],
    ]);
  });

  it("places every pipeline module in a known stage folder", () => {
    const unplaced = [...graph.keys()].filter((module) => module.startsWith("pipeline/") && stageOf(module) === undefined);
    expect(unplaced).toEqual([]);
  });

  it("lets a stage import only from itself, earlier stages and shared modules", () => {
    const upward: string[] = [];
    for (const [from, targets] of graph) {
      const stage = stageOf(from);
      if (stage === undefined) continue;
      for (const target of targets) {
        const targetStage = stageOf(target);
        const allowed = targetStage === undefined ? SHARED.some((shared) => target === shared || target.startsWith(shared)) : targetStage <= stage;
        if (!allowed) upward.push(`${from} -> ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });
});
