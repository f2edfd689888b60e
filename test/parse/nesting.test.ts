/**
 * YAML and JSON sources nest at most MAX_NESTING_DEPTH levels: deeper input
 * is a finding at the bracket or `-` that opens the first level too many,
 * found without recursion, so no depth exhausts the stack and no engine's
 * words ("Maximum call stack size exceeded") reach the author.
 */
import { describe, expect, it } from "vitest";
import { MAX_NESTING_DEPTH } from "../../src/pipeline/parse/nesting.js";
import { parseJsonSource, parseYamlSource } from "../../src/pipeline/parse/positioned-source.js";
import { LineIndex } from "../../src/pipeline/parse/positions.js";
import { parseYamlTree } from "../../src/pipeline/parse/yaml-tree.js";

const source = (path: string, text: string) => ({ path, text, contentHash: path });
const brief = (found: unknown): unknown => {
  const { ruleId, line, column, message } = found as { ruleId: string; line: number; column: number; message: string };
  return { ruleId, at: `${line}:${column}`, message };
};
const NESTING = `Unexpected collection nested deeper than ${MAX_NESTING_DEPTH} levels, expected at most ${MAX_NESTING_DEPTH} nested lists and mappings`;

describe("nesting limits", () => {
  it.each([2_000, 200_000])("a frontmatter with %i nested flow lists is skill/yaml-unsupported at the list that opens level 101", (depth) => {
    const yaml = `metadata:\n  k: ${"[".repeat(depth)}${"]".repeat(depth)}\n`;
    const problems = parseYamlTree(yaml, 4, new LineIndex(`---\n${yaml}---\n`));
    expect(problems).toEqual([{ ruleId: "skill/yaml-unsupported", range: { start: { line: 3, column: 6 + MAX_NESTING_DEPTH }, end: { line: 3, column: 7 + MAX_NESTING_DEPTH } }, message: NESTING }]);
  });

  it("counts `- ` items opened on one line, and flow mappings", () => {
    const items = parseYamlTree(`k:\n  ${"- ".repeat(2_000)}x\n`, 0, new LineIndex(`k:\n  ${"- ".repeat(2_000)}x\n`));
    expect(items).toMatchObject([{ ruleId: "skill/yaml-unsupported", range: { start: { line: 2, column: 3 + 2 * MAX_NESTING_DEPTH } } }]);
    const text = `k: ${"{a: ".repeat(500)}1${"}".repeat(500)}\n`;
    expect(parseYamlTree(text, 0, new LineIndex(text))).toMatchObject([{ ruleId: "skill/yaml-unsupported", range: { start: { line: 1, column: 4 + 4 * MAX_NESTING_DEPTH } } }]);
  });

  it("accepts exactly the limit, and brackets inside quotes, plain values and comments", () => {
    const atLimit = `k: ${"[".repeat(MAX_NESTING_DEPTH)}${"]".repeat(MAX_NESTING_DEPTH)}\n`;
    expect(Array.isArray(parseYamlTree(atLimit, 0, new LineIndex(atLimit)))).toBe(false);
    const quoted = `a: "${"[".repeat(500)}"\nb: use [[[ this ${"[".repeat(500)}\n# ${"[".repeat(500)}\n`;
    expect(Array.isArray(parseYamlTree(quoted, 0, new LineIndex(quoted)))).toBe(false);
    expect("document" in (parseJsonSource(source("schemas/tools/a.json", `{"d": "${"[".repeat(500)}"}`)) as object)).toBe(true);
  });

  it.each([2_000, 200_000])("prompts/variants.yaml with %i nested lists or items is source/invalid-yaml at level 101", (depth) => {
    expect(brief(parseYamlSource(source("prompts/variants.yaml", `variants:\n  base:\n    preload: ${"[".repeat(depth)}${"]".repeat(depth)}\n`)))).toEqual({ ruleId: "source/invalid-yaml", at: `3:${14 + MAX_NESTING_DEPTH}`, message: NESTING });
    expect(brief(parseYamlSource(source("prompts/variants.yaml", `variants:\n  x:\n    ${"- ".repeat(depth)}y\n`)))).toEqual({ ruleId: "source/invalid-yaml", at: `3:${5 + 2 * MAX_NESTING_DEPTH}`, message: NESTING });
  });

  it.each([2_000, 200_000])("a JSON source with %i nested arrays is source/invalid-json at level 101 (the object around them is level 1)", (depth) => {
    const text = `{\n  "name": "a",\n  "x": ${"[".repeat(depth)}${"]".repeat(depth)}\n}\n`;
    expect(brief(parseJsonSource(source("schemas/tools/a.json", text)))).toEqual({ ruleId: "source/invalid-json", at: `3:${7 + MAX_NESTING_DEPTH}`, message: NESTING });
  });
});
