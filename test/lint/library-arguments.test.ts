/**
 * The compiler library's project functions, called from plain JavaScript with
 * what is not their options (a folder alone, nothing, a fix mode the types do
 * not allow): a TypeError naming the option and what it takes, before any
 * file is read or written, never Node's internal message about `paths[0]`.
 */
import { describe, expect, it } from "vitest";
import { build, check, formatDiagnostics, lint, watch } from "../../src/index.js";

const untyped = (value: unknown): never => value as never;

async function refusal(run: () => Promise<unknown>): Promise<string> {
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TypeError);
  return (error as Error).message;
}

describe("lint, build, check and watch, given no options object", () => {
  it("name the options and the root they take", async () => {
    expect(await refusal(() => lint(untyped(".")))).toBe('Unexpected lint options ".", expected an object such as { root: "." }');
    expect(await refusal(() => lint(untyped(undefined)))).toBe('Unexpected lint options undefined, expected an object such as { root: "." }');
    expect(await refusal(() => build(untyped(".")))).toBe('Unexpected build options ".", expected an object such as { root: "." }');
    expect(await refusal(() => check(untyped({})))).toBe('Unexpected root undefined, expected the project\'s folder, such as "."');
    expect(await refusal(() => lint(untyped({ root: ".", fix: "yes" })))).toBe('Unexpected fix "yes", expected "write" or "dry-run"');
  });

  it("watch names its options, the root and the event callback it takes, before it builds or watches anything", async () => {
    expect(await refusal(() => watch(untyped(".")))).toBe('Unexpected watch options ".", expected an object such as { root: "." }');
    expect(await refusal(() => watch(untyped(undefined)))).toBe('Unexpected watch options undefined, expected an object such as { root: "." }');
    expect(await refusal(() => watch(untyped({ root: "." })))).toBe("Unexpected onEvent undefined, expected a function that takes each build's event");
  });

  it("formatDiagnostics names the format, the findings or the context it was not given", () => {
    const counts = { errorCount: 0, warningCount: 0 };
    expect(() => formatDiagnostics(untyped("x"), [], counts)).toThrow(TypeError);
    expect(() => formatDiagnostics(untyped("x"), [], counts)).toThrow(/^Unexpected format "x", expected "/);
    expect(() => formatDiagnostics("stylish", untyped("x"), counts)).toThrow('Unexpected diagnostics "x", expected an array of findings');
    expect(() => formatDiagnostics("stylish", [], untyped(undefined))).toThrow("Unexpected formatDiagnostics context undefined, expected the lint result, or an object such as { errorCount, warningCount }");
    expect(typeof formatDiagnostics("stylish", [], counts)).toBe("string");
  });
});
