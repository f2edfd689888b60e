import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The README's TypeScript samples are type-checked against the package's
 * published types (lib/*.d.ts, reached through the package's own name), so a
 * renamed option or export breaks this test before it misleads a reader.
 */

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const readme = await readFile(join(repoRoot, "README.md"), "utf8");
const samples = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string);

/**
 * The names the runtime samples leave to the reader. `never` is assignable to
 * every type, so each stands in for "any value of the right type" while every
 * name, option and literal the README spells out is still checked.
 */
const RUNTIME_FREE_NAMES = `import type { GammaAgentOptions } from "gamma-prompt/runtime";
declare const model: never, read: never, bash: never, write: never, edit: never, subagent: never, show_gamma: never, show_file: never, store: never;
declare const ui: { send(event: unknown): void };
declare const options: GammaAgentOptions;
`;

function typeErrors(files: Record<string, string>): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    types: ["node"],
    noEmit: true,
  };
  const paths = new Map(Object.entries(files).map(([name, text]) => [join(repoRoot, name), text]));
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile: readHostFile, getSourceFile } = host;
  host.fileExists = (path) => paths.has(path) || fileExists.call(host, path);
  host.readFile = (path) => paths.get(path) ?? readHostFile.call(host, path);
  host.getSourceFile = (path, language, ...rest) => {
    const text = paths.get(path);
    return text === undefined ? getSourceFile.call(host, path, language, ...rest) : ts.createSourceFile(path, text, language);
  };
  const program = ts.createProgram([...paths.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start) : undefined;
    const place = where ? `${diagnostic.file?.fileName.slice(repoRoot.length)}:${where.line + 1}:${where.character + 1} ` : "";
    return `${place}${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
  });
}

describe("README code samples", () => {
  it("type-check against the package's published types: the library sample alone, the runtime samples in order as one program", () => {
    const library = samples.filter((sample) => sample.includes('from "gamma-prompt";'));
    const runtime = samples.filter((sample) => !library.includes(sample));
    expect(library).toHaveLength(1);
    expect(runtime.length).toBeGreaterThanOrEqual(3);
    expect(runtime[0]).toContain('from "gamma-prompt/runtime";');
    const errors = typeErrors({
      "readme-library-sample.ts": library.join("\n"),
      "readme-runtime-samples.ts": RUNTIME_FREE_NAMES + runtime.join("\n"),
    });
    expect(errors).toEqual([]);
    // One TypeScript program over the published types: about 11 s on a loaded machine, so more room than the default 30 s.
  }, 120_000);
});
