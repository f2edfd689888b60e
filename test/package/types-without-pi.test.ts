/**
 * A TypeScript project that uses only the compiler library, with the packed
 * package installed alone (no Pi: the runtime's peers are optional), type
 * checks with strict and skipLibCheck off: the main entry's public types are
 * self-contained and name no Pi package. The project names no @types package in
 * `types` (TypeScript 7's default): the declarations bring Node's own.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { piPackageNames } from "../../src/protocol/pi-requirement.js";
import { installPackedPackage, linkInstalled } from "../helpers/packed-package.js";
import { removeTempDirs } from "../helpers/temp-project.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");

afterAll(removeTempDirs);

let project = "";

/** Every name src/index.ts exports, values and types (`export type *` is reached through the namespace import). */
function exportedNames(): string[] {
  const text = readFileSync(join(repoRoot, "src", "index.ts"), "utf8");
  const names = [...text.matchAll(/^export (?:type )?\{([^}]*)\}/gm)].flatMap((match) =>
    (match[1] as string)
      .split(",")
      .map((entry) => entry.trim().replace(/^type\s+/, ""))
      .filter((entry) => entry !== "")
      .map((entry) => entry.split(/\s+as\s+/).at(-1) as string),
  );
  return [...new Set(names)].sort();
}

beforeAll(async () => {
  project = (await installPackedPackage({ name: "gamma-types-without-pi" })).project;
  linkInstalled(project, ["@types/node"]);
}, 420_000);

describe("the compiler library's types, without Pi installed", () => {
  it("has no Pi package installed (the case under test)", () => {
    for (const name of piPackageNames()) expect(existsSync(join(project, "node_modules", name)), name).toBe(false);
  });

  it("type-check under strict with skipLibCheck off, importing every export of gamma-prompt", () => {
    const names = exportedNames();
    expect(names).toEqual(expect.arrayContaining(["lint", "runEvals", "ScriptedCall", "EvalUsageError", "BuildResult"]));
    const consumer = [
      'import * as gamma from "gamma-prompt";',
      `import type { ${names.join(", ")} } from "gamma-prompt";`,
      "",
      "export type Library = typeof gamma;",
      "// A rule id read at run time (a finding's, a flag's) is a string: explain and isRuleId take it as one.",
      "export const explain = (id: string) => (gamma.isRuleId(id) ? gamma.explainRule(id).url : gamma.explainRule(id.trim()).url);",
      `export type { ${names.join(", ")} };`,
      "",
    ].join("\n");
    writeFileSync(join(project, "consumer.ts"), consumer);
    const compilerOptions = { module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true, skipLibCheck: false, noEmit: true, types: [] };
    writeFileSync(join(project, "tsconfig.json"), `${JSON.stringify({ compilerOptions, include: ["consumer.ts"] }, null, 2)}\n`);
    const result = spawnSync(process.execPath, [tsc, "-p", "."], { cwd: project, encoding: "utf8", timeout: 180_000 });
    expect(`${result.stdout}${result.stderr}`).toBe("");
    expect(result.status).toBe(0);
  }, 180_000);
});

