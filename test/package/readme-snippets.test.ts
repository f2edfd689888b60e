import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { samplePages } from "../helpers/doc-samples.js";
import { docPage, manualPaths } from "../helpers/docs.js";

/**
 * The manual's TypeScript samples (README.md and the pages under docs/) are
 * type-checked against the package's published types (lib/*.d.ts, reached
 * through the package's own name), so a renamed option or export breaks this
 * test before it misleads a reader. Each page's runtime samples are one
 * program, in page order, as a reader meets them.
 */

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const pages = manualPaths().map((path) => ({ path, samples: [...docPage(path).text.matchAll(/^( *)```ts\n([\s\S]*?)^\1```$/gm)].map((match) => dedent(match[2] as string, match[1] as string)) }));
/** The README and the guide hold whole programs (test/package/doc-samples.test.ts runs them); the reference pages hold fragments. */
const wholePrograms = new Set(samplePages());

function dedent(text: string, indent: string): string {
  return text
    .split("\n")
    .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
    .join("\n");
}

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
  it("type-check against the package's published types: each library sample and each sample of the README and the guide alone, a reference page's runtime samples in order as one program", () => {
    const files: Record<string, string> = {};
    let librarySamples = 0;
    let runtimeSamples = 0;
    let wholeSamples = 0;
    for (const { path, samples } of pages) {
      const name = path.replace(/\.md$/, "").replace(/[^\w]+/g, "-");
      if (wholePrograms.has(path)) {
        // Each is a module of its own, as a reader saves it; `export {}` keeps its top-level await a module's.
        for (const [index, sample] of samples.entries()) files[`manual-${name}-${index}.ts`] = `${sample}\nexport {};\n`;
        wholeSamples += samples.length;
        librarySamples += samples.filter((sample) => sample.includes('from "gamma-prompt";')).length;
        continue;
      }
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
    // The library page's sample is a whole program (doc-samples runs it); others import the library too.
    expect(wholePrograms.has("docs/reference/library.md")).toBe(true);
    expect(librarySamples).toBeGreaterThanOrEqual(1);
    expect(wholeSamples).toBeGreaterThanOrEqual(8);
    expect(typeErrors(files)).toEqual([]);
    // One TypeScript program over the published types: about 11 s on a loaded machine, so more room than the default 30 s.
  }, 120_000);
});
