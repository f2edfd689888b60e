import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The structure as a contract: no import cycle anywhere in src/, the
 * pipeline's stages import only from stages before them in the data flow, and
 * the runtime's layers import only downward (entry → Pi adapter → controller →
 * its parts; the adapter is pi-adapter.ts, the *.pi-adapter.ts modules under runtime/pi/ and
 * the session's tool assembly; the PostgreSQL entry point, runtime-postgres/, sits above them all).
 * Type-only imports count: a type that flows upward is a boundary
 * in the wrong place. The last tests plant a cycle and upward imports into a
 * copy of the real graph, so these checks are known to fail when they should.
 */

const srcDir = fileURLToPath(new URL("../../src/", import.meta.url));

/** Data-flow order; a stage may import from its own folder and from folders earlier in this list. */
const STAGES = ["session", "discover", "parse", "validate", "lint-skills", "fix", "render", "emit", "cache", "compile"] as const;
/** Modules outside src/pipeline/ that stages may use: shared data and leaf helpers, never an entry point. */
const SHARED = ["diagnostics/", "stage-data.ts", "protocol/", "skills/", "tokens.ts", "version.ts", "package-paths.ts"];
/**
 * The runtime's layers, top first; every other runtime module is a part the
 * controller composes (state, journal, injections/, knowledge/, audit/, ...).
 * A module imports only from its own layer or the layers below it.
 */
const RUNTIME_LAYERS: readonly (readonly string[])[] = [["runtime/index.ts"], ["runtime/pi-adapter.ts", "runtime/pi/", "runtime/session-tools.ts"], ["runtime/controller.ts"]];

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
      const source = resolve(dirname(file), (match[3] as string).replace(/\.js$/, ".ts"));
      // A module the build generates as JavaScript (src/generated/) is known by its declaration file.
      const target = existsSync(source) ? source : source.replace(/\.ts$/, ".d.ts");
      targets.add(relative(srcDir, target).split(sep).join("/"));
    }
    graph.set(relative(srcDir, file).split(sep).join("/"), [...targets].sort());
  }
  return graph;
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

/** Every import `from -> target` in `graph` that `allowed` refuses. */
function importsRefused(graph: ReadonlyMap<string, readonly string[]>, allowed: (from: string, target: string) => boolean): string[] {
  return [...graph].flatMap(([from, targets]) => targets.filter((target) => !allowed(from, target)).map((target) => `${from} -> ${target}`));
}

/** Pipeline modules that import a later stage, or a module outside src/pipeline/ that is not shared. */
function upwardStageImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  return importsRefused(graph, (from, target) => {
    const stage = stageOf(from);
    if (stage === undefined) return true;
    const targetStage = stageOf(target);
    return targetStage === undefined ? SHARED.some((shared) => target === shared || target.startsWith(shared)) : targetStage <= stage;
  });
}

/** The runtime layer of a module: 0 for the entry, ..., RUNTIME_LAYERS.length for a part; undefined outside the runtime. */
function runtimeLayerOf(module: string): number | undefined {
  if (!module.startsWith("runtime/")) return undefined;
  const index = RUNTIME_LAYERS.findIndex((members) => members.some((member) => module === member || (member.endsWith("/") && module.startsWith(member))));
  return index === -1 ? RUNTIME_LAYERS.length : index;
}

/** Runtime modules that import a module of a layer above their own. */
function upwardRuntimeImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  return importsRefused(graph, (from, target) => {
    const layer = runtimeLayerOf(from);
    const targetLayer = runtimeLayerOf(target);
    return layer === undefined || targetLayer === undefined || targetLayer >= layer;
  });
}

/** A copy of `graph` with the edges `from -> to` added. */
function withEdges(graph: ReadonlyMap<string, readonly string[]>, edges: readonly (readonly [string, string])[]): Map<string, string[]> {
  const planted = new Map([...graph].map(([module, targets]) => [module, [...targets]]));
  for (const [from, to] of edges) {
    expect(planted.has(from) && planted.has(to), `${from} -> ${to} joins two real modules`).toBe(true);
    planted.get(from)?.push(to);
  }
  return planted;
}

describe("import graph", () => {
  const graph = importGraph();

  it("resolves every relative import to a module in src/", () => {
    const dangling = [...graph].flatMap(([from, targets]) => targets.filter((target) => !graph.has(target)).map((target) => `${from} -> ${target}`));
    expect(dangling).toEqual([]);
  });

  it("has no import cycle anywhere in src/, type imports included", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("places every pipeline module in a known stage folder", () => {
    const unplaced = [...graph.keys()].filter((module) => module.startsWith("pipeline/") && stageOf(module) === undefined);
    expect(unplaced).toEqual([]);
  });

  it("lets a stage import only from itself, earlier stages and shared modules", () => {
    expect(upwardStageImports(graph)).toEqual([]);
  });

  it("lets a runtime module import only from its own layer and the layers below it", () => {
    expect(RUNTIME_LAYERS.flat().every((module) => graph.has(module) || [...graph.keys()].some((key) => module.endsWith("/") && key.startsWith(module)))).toBe(true);
    expect(upwardRuntimeImports(graph)).toEqual([]);
  });

  it("reports a planted cycle and planted upward imports (so the checks above can fail)", () => {
    // A type import of the store into the state's types closes the cycle this layout removed:
    // state/store -> state/journal -> (injections/queue, state/fields ->) execution-state -> state/store.
    expect(cycles(withEdges(graph, [["runtime/execution-state.ts", "runtime/state/store.ts"]]))).toEqual([
      ["runtime/execution-state.ts", "runtime/injections/queue.ts", "runtime/state/fields.ts", "runtime/state/journal.ts", "runtime/state/store.ts"],
    ]);
    expect(cycles(withEdges(graph, [["pipeline/parse/parse.ts", "pipeline/compile/compile.ts"]]))).not.toEqual([]);
    expect(upwardStageImports(withEdges(graph, [["pipeline/parse/parse.ts", "pipeline/emit/artifacts.ts"]]))).toEqual([
      "pipeline/parse/parse.ts -> pipeline/emit/artifacts.ts",
    ]);
    expect(upwardRuntimeImports(withEdges(graph, [["runtime/injections/dispatcher.ts", "runtime/controller.ts"], ["runtime/state/owner.ts", "runtime/pi/agent.pi-adapter.ts"]]))).toEqual([
      "runtime/injections/dispatcher.ts -> runtime/controller.ts",
      "runtime/state/owner.ts -> runtime/pi/agent.pi-adapter.ts",
    ]);
  });
});
