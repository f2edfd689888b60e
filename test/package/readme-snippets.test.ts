import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { docPage, manualPaths } from "../helpers/docs.js";

/**
 * The manual's TypeScript samples (README.md and the pages under docs/) are
 * type-checked against the package's published types (lib/*.d.ts, reached
 * through the package's own name), so a renamed option or export breaks this
 * test before it misleads a reader. Each page's runtime samples are one
 * program, in page order, as a reader meets them.
 */

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const pages = manualPaths().map((path) => ({ path, samples: [...docPage(path).text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string) }));

/**
 * The names the runtime samples leave to the reader. `never` is assignable to
 * every type, so each stands in for "any value of the right type" while every
 * name, option and literal the manual spells out is still checked.
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

describe("the manual's code samples", () => {
  it("type-check against the package's published types: each library sample alone, each page's runtime samples in order as one program", () => {
    const files: Record<string, string> = {};
    let librarySamples = 0;
    let runtimeSamples = 0;
    for (const { path, samples } of pages) {
      const name = path.replace(/\.md$/, "").replace(/[^\w]+/g, "-");
      const library = samples.filter((sample) => sample.includes('from "gamma-prompt";'));
      const runtime = samples.filter((sample) => !library.includes(sample));
      for (const [index, sample] of library.entries()) files[`manual-${name}-library-${index}.ts`] = sample;
      if (runtime.length > 0) {
        expect(runtime[0], `${path}: the first runtime sample imports what the page uses`).toContain('from "gamma-prompt/runtime";');
        files[`manual-${name}-runtime.ts`] = RUNTIME_FREE_NAMES + runtime.join("\n");
      }
      librarySamples += library.length;
      runtimeSamples += runtime.length;
    }
    expect(librarySamples).toBe(1);
    expect(runtimeSamples).toBeGreaterThanOrEqual(4);
    expect(typeErrors(files)).toEqual([]);
    // One TypeScript program over the published types: about 11 s on a loaded machine, so more room than the default 30 s.
  }, 120_000);
});
