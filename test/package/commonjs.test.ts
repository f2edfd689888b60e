/**
 * A CommonJS project (`"type": "commonjs"`, TypeScript's `nodenext`) using the
 * packed and installed package: what TypeScript accepts, Node runs. The
 * compiler library and the PostgreSQL entry have no top-level await, so they
 * load through require (Node 22's require of ES modules); the runtime awaits
 * its Pi imports at the top level, so it is typed for `import` alone, and
 * TypeScript refuses its require at compile time instead of Node at run time;
 * a plain require at run time is told to import it.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPackedPackage, linkInstalled } from "../helpers/packed-package.js";
import { removeTempDirs } from "../helpers/temp-project.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");

afterAll(removeTempDirs);

let project = "";

/** Type-checks and compiles `files` (name → source) in a folder of the CommonJS project; tsc's output and the folder. */
function compile(name: string, files: Record<string, string>): { status: number | null; output: string; dir: string } {
  const dir = join(project, name);
  mkdirSync(dir, { recursive: true });
  const compilerOptions = { module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true, skipLibCheck: true, types: ["node"], outDir: "out", rootDir: "." };
  writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify({ compilerOptions, include: Object.keys(files) }, null, 2)}\n`);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  const result = spawnSync(process.execPath, [tsc, "-p", "."], { cwd: dir, encoding: "utf8", timeout: 120_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}`, dir };
}

function run(dir: string, file: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [file], { cwd: dir, encoding: "utf8", timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  project = (await installPackedPackage({ pi: true, name: "gamma-commonjs" })).project;
  writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "commonjs-project", version: "1.0.0", private: true, type: "commonjs" }, null, 2)}\n`);
  linkInstalled(project, ["@types/node"]);
}, 420_000);

describe("a CommonJS project with TypeScript's nodenext", () => {
  it("requires the compiler library and the PostgreSQL entry: tsc accepts them, and Node runs what it emits", () => {
    const consumer = [
      'import { lint } from "gamma-prompt";',
      'import { postgresMigrations } from "gamma-prompt/runtime/postgres";',
      "",
      "const names: string[] = postgresMigrations().map((migration) => migration.name);",
      'console.log(typeof lint, names.join(", "));',
      "",
    ].join("\n");
    const compiled = compile("require", { "consumer.ts": consumer });
    expect(compiled.output).toBe("");
    expect(compiled.status).toBe(0);
    const ran = run(compiled.dir, join("out", "consumer.js"));
    expect(ran.stderr).toBe("");
    expect(ran.stdout).toBe("function sessions, migration_checksums\n");
  });

  it("is told by tsc, not by Node at run time, that the runtime cannot be required; a dynamic import of it compiles and runs", () => {
    const required = compile("require-runtime", { "runtime.ts": 'import { loadArtifacts } from "gamma-prompt/runtime";\n\nconsole.log(typeof loadArtifacts);\n' });
    expect(required.status).not.toBe(0);
    expect(required.output).toMatch(/^runtime\.ts\(1,31\): error TS\d+: .*'gamma-prompt\/runtime'/);
    const imported = compile("import-runtime", {
      "runtime.ts": 'async function main(): Promise<void> {\n  const { loadArtifacts } = await import("gamma-prompt/runtime");\n  console.log(typeof loadArtifacts);\n}\n\nvoid main();\n',
    });
    expect(imported.output).toBe("");
    const ran = run(imported.dir, join("out", "runtime.js"));
    expect(ran.stderr).toBe("");
    expect(ran.stdout).toBe("function\n");
  });

  it("a plain require of the runtime is told to import it instead, not that the subpath is not exported", () => {
    const dir = join(project, "plain-require");
    mkdirSync(dir, { recursive: true });
    const script = [
      "try {",
      '  require("gamma-prompt/runtime");',
      "} catch (error) {",
      "  console.log(`${error.code}: ${error.message}`);",
      "}",
      "",
    ].join("\n");
    writeFileSync(join(dir, "plain.js"), script);
    const ran = run(dir, "plain.js");
    expect(ran.stderr).toBe("");
    expect(ran.stdout).toBe(
      'ERR_REQUIRE_ASYNC_MODULE: gamma-prompt/runtime is an ES module that awaits its Pi imports at the top level, so require() cannot load it: load it with await import("gamma-prompt/runtime"), from CommonJS too\n',
    );
  });
});
