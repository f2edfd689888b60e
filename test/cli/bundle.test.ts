import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { copyParts, removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { cliPath, repoRoot } from "../build/helpers.js";

// The package's bin (lib/cli/bin.cjs, and lib/cli/index.js run by hand) loads the
// bundled CLI (scripts/bundle-cli.mjs): a handful of modules instead of some eighty. What each command loads is a
// contract, pinned here on the real process: the YAML library, the tokenizer,
// ajv's schema compiler, remark, chokidar and the render and emit stages load
// only where a command needs them, and a bare --help or --version loads no
// package at all.

afterAll(removeTempDirs);

const moduleLog = join(repoRoot, "test/fixtures/hooks/module-log.mjs");

/** Every module one CLI process loads: package files as `package/path`, the package's own as `lib/...`. */
function modulesLoadedBy(args: string[], cwd = repoRoot, entry = cliPath): { status: number | null; stdout: string; own: string[]; packages: string[] } {
  const folder = mkdtempSync(join(tmpdir(), "gamma-prompt-module-log-"));
  const log = join(folder, "loaded.txt");
  try {
    const child = spawnSync(process.execPath, ["--import", moduleLog, entry, ...args], { cwd, encoding: "utf8", env: { ...process.env, GAMMA_PROMPT_MODULE_LOG: log } });
    const urls = [...new Set(readFileSync(log, "utf8").split("\n").filter((line) => line.startsWith("file:")))];
    const files = urls.map((url) => fileURLToPath(url)).filter((file) => file !== moduleLog && !file.includes(join("test", "fixtures", "hooks")));
    // A package's package.json is read for its version only.
    const packages = files.filter((file) => file.includes("node_modules") && !file.endsWith("package.json")).map((file) => file.slice(file.lastIndexOf("node_modules") + "node_modules".length + 1).replaceAll("\\", "/"));
    const own = files.filter((file) => !file.includes("node_modules")).map((file) => relative(repoRoot, file).replaceAll("\\", "/"));
    return { status: child.status, stdout: child.stdout, own: own.sort(), packages: packages.sort() };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const packageName = (file: string): string => (file.startsWith("@") ? file.split("/").slice(0, 2).join("/") : (file.split("/")[0] ?? ""));

describe("bundled CLI", () => {
  it("is the package's bin: one entry that loads named chunks", () => {
    expect(readFileSync(cliPath, "utf8")).toContain('require("./chunk-loader.cjs").loadChunk(require.resolve("./main.cjs"))');
    const entry = readFileSync(join(repoRoot, "lib/cli/main.cjs"), "utf8");
    expect(entry).toMatch(/require\("\.\.\/gamma-prompt-[\w-]+\.cjs"\)/);
    expect(entry).not.toContain("program.js");
  });

  it("answers a bare --help to a pipe with commander's own help, loading nothing else", () => {
    const fast = modulesLoadedBy(["--help"]);
    expect(fast.status).toBe(0);
    expect(fast.own).toEqual(["lib/cli/chunk-loader.cjs", "lib/cli/index.js", "lib/cli/main.cjs"]);
    expect(fast.packages).toEqual([]);
    // `help` goes through commander in the same bundle: the recorded text is its text.
    const viaCommander = spawnSync(process.execPath, [cliPath, "help"], { encoding: "utf8" });
    expect(viaCommander.status).toBe(0);
    expect(fast.stdout).toBe(viaCommander.stdout);
    expect(spawnSync(process.execPath, [cliPath, "-h"], { encoding: "utf8" }).stdout).toBe(viaCommander.stdout);
  });

  it("answers a bare --version and a piped bare --help from the package's CommonJS bin alone, and everything else from the entry it loads", () => {
    const bin = join(repoRoot, JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).bin["gamma-prompt"] as string);
    const run = modulesLoadedBy(["--version"], repoRoot, bin);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(`${JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).version}\n`);
    expect(run.own).toEqual(["lib/cli/bin.cjs", "package.json"]);
    expect(run.packages).toEqual([]);
    const help = modulesLoadedBy(["--help"], repoRoot, bin);
    expect(help.own).toEqual(["lib/cli/bin.cjs"]);
    expect(help.packages).toEqual([]);
    expect(help.stdout).toBe(modulesLoadedBy(["--help"]).stdout);
    expect(help.stdout).toBe(spawnSync(process.execPath, [bin, "help"], { encoding: "utf8" }).stdout);
    const other = modulesLoadedBy(["lint", "--help"], repoRoot, bin);
    expect(other.own).toContain("lib/cli/main.cjs");
  });

  it("lints the embedded skills as a collection without YAML, the tokenizer, a schema compiler, remark or the build stages", async () => {
    const root = await copyParts(repoRoot, ["skills"], join(await tempDir(), "collection"));
    const run = modulesLoadedBy(["lint", "--root", root, "--profile", "gamma"]);
    expect(run.status).toBe(0);
    // The precompiled validators need only small pieces of ajv's runtime.
    expect(run.packages.filter((file) => !/^ajv\/dist\/runtime\//.test(file))).toEqual([]);
    expect(run.own.filter((file) => /gamma-prompt-(build|audit|cost|watch)/.test(file))).toEqual([]);
    expect(run.own.length).toBeLessThanOrEqual(12);
  });

  it("lints the embedded default whole without YAML, the tokenizer, a schema compiler, remark or the build stages: dist/ vouches for its tool parameter schemas", () => {
    const run = modulesLoadedBy(["lint"]);
    expect(run.status).toBe(0);
    // The tool parameter schemas dist/ holds byte for byte are not compiled again; the precompiled validators need only small pieces of ajv's runtime.
    expect(run.packages.filter((file) => !/^ajv\/dist\/runtime\//.test(file))).toEqual([]);
    expect(run.own.filter((file) => /gamma-prompt-(build|audit|cost|watch)/.test(file))).toEqual([]);
    // A little more than a collection: the checks of the project's other sources, one precompiled validator
    // per source schema (tool namespaces included).
    expect(run.own.length).toBeLessThanOrEqual(15);
  });

  it("checks a fresh copy of the embedded default with Handlebars' single-file build and nothing heavier", async () => {
    const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge", "dist", "gamma-prompt.config.json"], join(await tempDir(), "fresh clone"));
    const run = modulesLoadedBy(["check", "--root", root]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("dist/ is current");
    expect(run.packages.filter((file) => !/^ajv\/dist\/runtime\//.test(file))).toEqual(["handlebars/dist/handlebars.js"]);
    expect([...new Set(run.packages.map(packageName))].sort()).toEqual(["ajv", "handlebars"]);
    expect(run.own.filter((file) => /gamma-prompt-(audit|cost|watch)/.test(file))).toEqual([]);
  });

  it("starts the language server with its protocol library from a chunk of the bundle, not from node_modules", async () => {
    const root = await copyParts(repoRoot, ["skills"], join(await tempDir(), "skills only"));
    // Standard input closes at once: the server ends (1, as after an exit without a shutdown) once it has loaded.
    const run = modulesLoadedBy(["lsp", "--stdio"], root);
    expect(run.status).toBe(1);
    expect(run.own.filter((file) => /^lib\/gamma-prompt-lsp-protocol-[\w-]+\.cjs$/.test(file))).toHaveLength(1);
    expect(run.packages.filter((file) => /^vscode-/.test(file))).toEqual([]);
  });

  it("keeps beside the chunks the licence of every package bundled into them", () => {
    const chunks = readdirSync(join(repoRoot, "lib")).filter((file) => /^gamma-prompt-[\w-]+\.cjs$/.test(file));
    const bundled = new Set<string>();
    for (const chunk of chunks) {
      // The bundler heads each module it takes in with its path.
      for (const [, path] of readFileSync(join(repoRoot, "lib", chunk), "utf8").matchAll(/^\/\/ (?:[^\n]*\/)?node_modules\/([^\n]+)$/gm)) bundled.add(packageName(path ?? ""));
    }
    expect([...bundled].sort()).toEqual(expect.arrayContaining(["commander", "vscode-jsonrpc", "vscode-languageserver", "vscode-languageserver-protocol"]));
    const notices = readFileSync(join(repoRoot, "lib", "THIRD-PARTY-LICENSES.txt"), "utf8");
    const named = [...notices.matchAll(/^(\S+) \d+\.\d+\.\d+\S* \((\S+)\)$/gm)].map(([, name]) => name);
    expect(named).toEqual([...bundled].sort());
    for (const name of named) {
      const dir = join(repoRoot, "node_modules", name ?? "");
      const licence = readdirSync(dir).find((file) => /^licen[cs]e(\.(md|txt))?$/i.test(file)) ?? "";
      expect(notices).toContain(readFileSync(join(dir, licence), "utf8").replace(/\r\n/g, "\n").trim());
    }
  });
});
