import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCliInProcess } from "../helpers/cli.js";

// Start-up is the whole cost of `--help`, `--version` and a lint in a
// pre-commit hook, so what the CLI loads before a command runs is a contract:
// the compiler, the tokenizer, the template engine, YAML and ajv load only
// inside the command that needs them.

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;

/** Static (value) imports of one TypeScript module: what loads with it. `import type` and `await import()` do not count. */
function staticImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(/^import\s+(?!type\s)[^;]*?from\s+"([^"]+)";/gms)) found.push(match[1] ?? "");
  for (const match of text.matchAll(/^import\s+"([^"]+)";/gm)) found.push(match[1] ?? "");
  return found;
}

/** Every module and package reached from `entry` through static imports. */
function startUpGraph(entry: string): { modules: Set<string>; packages: Set<string> } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() ?? "";
    if (modules.has(file)) continue;
    modules.add(file);
    for (const specifier of staticImports(file)) {
      if (specifier.startsWith(".")) pending.push(resolve(dirname(file), specifier).replace(/\.js$/, ".ts"));
      else if (!specifier.startsWith("node:")) packages.add(specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] ?? ""));
    }
  }
  return { modules, packages };
}

describe("CLI start-up", () => {
  it("loads only commander and the command definitions before a command runs", () => {
    const { modules, packages } = startUpGraph(join(root, "src", "cli", "program.ts"));
    expect([...packages]).toEqual(["commander"]);
    const loaded = [...modules].map((file) => file.slice(root.length + 1)).sort();
    // Command definitions, option constants and the reporter names may load; no compiler stage, command body or runtime.
    const heavy = loaded.filter((file) =>
      /^src\/(pipeline\/(?!discover\/source-paths\.ts$)|runtime\/|(build|check|lint|watch)\.ts$|cli\/commands\/build-actions\.ts$|diagnostics\/(reporters\/(?!names\.ts$)|rules\/))/.test(file),
    );
    expect(heavy).toEqual([]);
  });

  it("offers exactly the registered reporters as --format choices", async () => {
    const [{ REPORTER_NAMES }, { registeredReporterNames }] = await Promise.all([import("../../src/diagnostics/reporters/names.js"), import("../../src/diagnostics/reporters/index.js")]);
    expect(registeredReporterNames()).toEqual([...REPORTER_NAMES]);
  });

  it("answers a bare --version and -v without loading the program, with commander's answer", async () => {
    for (const flag of ["--version", "-v"]) {
      const child = spawnSync(process.execPath, [join(root, "lib", "cli", "index.js"), flag], { encoding: "utf8" });
      expect(child.status).toBe(0);
      expect(child.stdout).toBe(`${version}\n`);
    }
    const viaCommander = await runCliInProcess("--version");
    expect(viaCommander.code).toBe(0);
    expect(viaCommander.stdout).toBe(`${version}\n`);
  });
});
