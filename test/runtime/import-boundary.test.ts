/**
 * gamma-prompt/runtime must load without the compiler: it imports no compiler
 * dependency and no compiler module, and only the Pi adapter imports Pi.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "./helpers/dist.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
/** The runtime's own dependencies: the lexical search library behind knowledge candidate selection. */
const RUNTIME_DEPENDENCIES = ["minisearch"];
const COMPILER_DEPENDENCIES = ["unified", "remark-parse", "remark-frontmatter", "ajv", "handlebars", "chokidar", "yaml", "gpt-tokenizer", "commander"];
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(type\s+)?(?:[^"';]*?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

interface Edge {
  from: string;
  specifier: string;
  typeOnly: boolean;
}

function importsOf(file: string): Edge[] {
  const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|(^|[^:])\/\/.*$/gm, "$1");
  return [...text.matchAll(IMPORT)].map((match) => ({ from: file, specifier: match[2] ?? match[3] ?? "", typeOnly: match[1] !== undefined }));
}

/** Every module reachable from `entry` through relative imports, with each edge. */
function graph(entry: string): { files: string[]; edges: Edge[] } {
  const files: string[] = [];
  const edges: Edge[] = [];
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (files.includes(file)) continue;
    files.push(file);
    for (const edge of importsOf(file)) {
      edges.push(edge);
      if (edge.specifier.startsWith(".")) {
        let target = resolve(dirname(file), edge.specifier);
        if (file.endsWith(".ts")) target = target.replace(/\.js$/, ".ts");
        // A module the build generates as JavaScript (src/generated/) is read through its declaration file.
        if (!existsSync(target) && target.endsWith(".ts")) target = target.replace(/\.ts$/, ".d.ts");
        queue.push(target);
      }
    }
  }
  return { files, edges };
}

function allFiles(dir: string, extension: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(extension) && !name.endsWith(".d.ts"))
    .map((name) => join(dir, name));
}

const packageName = (specifier: string): string =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] ?? specifier);

function checkBoundary(files: readonly string[], base: string, extension: string): string[] {
  const problems: string[] = [];
  const runtimeDir = join(base, "runtime") + sep;
  const protocolDir = join(base, "protocol") + sep;
  // What the package build generates from data files (the manifest validator, the migrations): leaf modules.
  const generatedDir = join(base, "generated") + sep;
  for (const file of files) {
    const inRuntime = file.startsWith(runtimeDir);
    for (const edge of importsOf(file)) {
      const where = `${relative(root, file)} imports "${edge.specifier}"`;
      if (edge.specifier.startsWith(".")) {
        const target = resolve(dirname(file), edge.specifier);
        if (!target.startsWith(runtimeDir) && !target.startsWith(protocolDir) && !target.startsWith(generatedDir)) problems.push(`${where}: outside src/runtime, src/protocol and src/generated`);
        continue;
      }
      if (edge.specifier.startsWith("node:")) continue;
      const name = packageName(edge.specifier);
      if (COMPILER_DEPENDENCIES.includes(name)) problems.push(`${where}: a compiler dependency`);
      else if (RUNTIME_DEPENDENCIES.includes(name)) continue;
      else if (name.startsWith("@earendil-works/")) {
        if (!file.endsWith(`pi-adapter${extension}`)) problems.push(`${where}: Pi outside the adapter`);
      } else if (inRuntime || !edge.typeOnly) problems.push(`${where}: not a node built-in or Pi`);
    }
  }
  return problems;
}

describe("the runtime's import boundary", () => {
  it("every module under src/runtime imports only node built-ins, Pi (in the adapter), src/runtime, src/protocol and the generated leaf modules", () => {
    const src = join(root, "src");
    const files = [...allFiles(join(src, "runtime"), ".ts"), ...allFiles(join(src, "protocol"), ".ts"), ...allFiles(join(src, "generated"), ".ts")];
    expect(files.length).toBeGreaterThan(5);
    expect(checkBoundary(files, src, ".ts")).toEqual([]);
  });

  it("the graph from src/runtime/index.ts reaches no compiler module", () => {
    const { files } = graph(join(root, "src", "runtime", "index.ts"));
    const outside = files
      .map((file) => relative(join(root, "src"), file))
      .filter((file) => !file.startsWith(`runtime${sep}`) && !file.startsWith(`protocol${sep}`) && !file.startsWith(`generated${sep}`));
    expect(outside).toEqual([]);
    expect(files.some((file) => file.endsWith("pi-adapter.ts"))).toBe(true);
  });

  it.skipIf(!existsSync(join(root, "lib", "runtime", "index.js")))("the compiled lib/runtime graph imports no compiler dependency", () => {
    const lib = join(root, "lib");
    const { files, edges } = graph(join(lib, "runtime", "index.js"));
    expect(checkBoundary(files, lib, ".js")).toEqual([]);
    const bare = [...new Set(edges.map((edge) => edge.specifier).filter((specifier) => !specifier.startsWith(".")).map(packageName))].sort();
    for (const name of bare) expect(name.startsWith("node:") || name.startsWith("@earendil-works/") || RUNTIME_DEPENDENCIES.includes(name), name).toBe(true);
  });

  it("the checker reports forbidden imports (so the checks above can fail)", () => {
    const src = join(tempDir("gamma-boundary-"), "src");
    mkdirSync(join(src, "runtime"), { recursive: true });
    const bad = join(src, "runtime", "bad.ts");
    writeFileSync(
      bad,
      'import { parse } from "yaml";\nimport type { ValidSkill } from "../model.js";\nimport { Agent } from "@earendil-works/pi-agent-core";\nexport const x = await import("handlebars");\n',
    );
    expect(checkBoundary([bad], src, ".ts").map((problem) => problem.replace(/^.*imports /, ""))).toEqual([
      '"yaml": a compiler dependency',
      '"../model.js": outside src/runtime, src/protocol and src/generated',
      '"@earendil-works/pi-agent-core": Pi outside the adapter',
      '"handlebars": a compiler dependency',
    ]);
  });
});
