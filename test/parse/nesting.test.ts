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
    // The frontmatter's mapping is level 1 and metadata's level 2: the 99th `[` opens level 101.
    const yaml = `metadata:\n  k: ${"[".repeat(depth)}${"]".repeat(depth)}\n`;
    const problems = parseYamlTree(yaml, 4, new LineIndex(`---\n${yaml}---\n`));
    expect(problems).toEqual([{ ruleId: "skill/yaml-unsupported", range: { start: { line: 3, column: 4 + MAX_NESTING_DEPTH }, end: { line: 3, column: 5 + MAX_NESTING_DEPTH } }, message: NESTING }]);
  });

  it("counts `- ` items opened on one line, and flow mappings, inside the mapping around them", () => {
    // k's mapping is level 1: the 100th `- ` or `{` opens level 101.
    const items = parseYamlTree(`k:\n  ${"- ".repeat(2_000)}x\n`, 0, new LineIndex(`k:\n  ${"- ".repeat(2_000)}x\n`));
    expect(items).toMatchObject([{ ruleId: "skill/yaml-unsupported", range: { start: { line: 2, column: 3 + 2 * (MAX_NESTING_DEPTH - 1) } } }]);
    const text = `k: ${"{a: ".repeat(500)}1${"}".repeat(500)}\n`;
    expect(parseYamlTree(text, 0, new LineIndex(text))).toMatchObject([{ ruleId: "skill/yaml-unsupported", range: { start: { line: 1, column: 4 + 4 * (MAX_NESTING_DEPTH - 1) } } }]);
  });

  it("accepts exactly the limit, and brackets inside quotes, plain values and comments", () => {
    // k's mapping and 99 lists: 100 levels.
    const atLimit = `k: ${"[".repeat(MAX_NESTING_DEPTH - 1)}${"]".repeat(MAX_NESTING_DEPTH - 1)}\n`;
    expect(Array.isArray(parseYamlTree(atLimit, 0, new LineIndex(atLimit)))).toBe(false);
    const overLimit = `k: ${"[".repeat(MAX_NESTING_DEPTH)}${"]".repeat(MAX_NESTING_DEPTH)}\n`;
    expect(parseYamlTree(overLimit, 0, new LineIndex(overLimit))).toMatchObject([{ ruleId: "skill/yaml-unsupported", range: { start: { line: 1, column: 4 + MAX_NESTING_DEPTH - 1 } } }]);
    const quoted = `a: "${"[".repeat(500)}"\nb: use [[[ this ${"[".repeat(500)}\n# ${"[".repeat(500)}\n`;
    expect(Array.isArray(parseYamlTree(quoted, 0, new LineIndex(quoted)))).toBe(false);
    expect("document" in (parseJsonSource(source("schemas/tools/a.json", `{"d": "${"[".repeat(500)}"}`)) as object)).toBe(true);
  });

  it.each([2_000, 200_000])("prompts/variants.yaml with %i nested lists or items is source/invalid-yaml at level 101", (depth) => {
    // Three mappings around preload's lists, two around x's items.
    expect(brief(parseYamlSource(source("prompts/variants.yaml", `variants:\n  base:\n    preload: ${"[".repeat(depth)}${"]".repeat(depth)}\n`)))).toEqual({ ruleId: "source/invalid-yaml", at: `3:${14 + MAX_NESTING_DEPTH - 3}`, message: NESTING });
    expect(brief(parseYamlSource(source("prompts/variants.yaml", `variants:\n  x:\n    ${"- ".repeat(depth)}y\n`)))).toEqual({ ruleId: "source/invalid-yaml", at: `3:${5 + 2 * (MAX_NESTING_DEPTH - 2)}`, message: NESTING });
  });

  it.each([2_000, 200_000])("a JSON source with %i nested arrays is source/invalid-json at level 101 (the object around them is level 1)", (depth) => {
    const text = `{\n  "name": "a",\n  "x": ${"[".repeat(depth)}${"]".repeat(depth)}\n}\n`;
    expect(brief(parseJsonSource(source("schemas/tools/a.json", text)))).toEqual({ ruleId: "source/invalid-json", at: `3:${7 + MAX_NESTING_DEPTH}`, message: NESTING });
  });
});

/**
 * Block collections nested by indentation alone count too, so a frontmatter
 * nested by indentation is refused at the same place whatever stack the
 * parser would have had: the scan reads one line at a time.
 */
describe("nesting by indentation", () => {
  const frontmatter = (yaml: string) => parseYamlTree(yaml, 4, new LineIndex(`---\n${yaml}---\n`));
  const at = (found: unknown): unknown => {
    if (!Array.isArray(found)) return "parsed";
    const [{ ruleId, range, message }] = found as [{ ruleId: string; range: { start: { line: number; column: number } }; message: string }];
    return { ruleId, at: `${range.start.line}:${range.start.column}`, message };
  };
  /** `metadata:` then one `- ` item per line, each indented one more than the last: metadata's mapping is level 1, the nth item level n + 1. */
  const items = (count: number): string => `metadata:\n${Array.from({ length: count }, (_, i) => `${" ".repeat(i + 1)}- `).join("\n")}\n`;
  const stairs = (count: number, line: (i: number) => string): string => Array.from({ length: count }, (_, i) => line(i)).join("\n");

  it.each([150, 950, 5_000])("%i sequences nested by indentation are skill/yaml-unsupported at the `-` that opens level 101", (count) => {
    // Line 1 is `---`, line 2 `metadata:`; the 100th item opens level 101 on line 102, after 100 spaces.
    expect(at(frontmatter(items(count)))).toEqual({ ruleId: "skill/yaml-unsupported", at: `102:${MAX_NESTING_DEPTH + 1}`, message: NESTING });
  });

  it("accepts nesting by indentation up to the limit", () => {
    expect(at(frontmatter(items(MAX_NESTING_DEPTH - 1)))).toBe("parsed");
  });

  it("counts mappings nested by indentation, sequences written at their key's column, and items that hold a mapping", () => {
    expect(at(frontmatter(`${stairs(300, (i) => `${" ".repeat(i)}k${i}:`)} x\n`))).toEqual({ ruleId: "skill/yaml-unsupported", at: `${MAX_NESTING_DEPTH + 2}:${MAX_NESTING_DEPTH + 1}`, message: NESTING });
    // `k:` then `-` at the same column: a mapping and its sequence, two levels per pair of lines; the 51st key opens level 101.
    expect(at(frontmatter(`${stairs(300, (i) => `${" ".repeat(2 * i)}k${i}:\n${" ".repeat(2 * i)}-`)} x\n`))).toEqual({ ruleId: "skill/yaml-unsupported", at: `${MAX_NESTING_DEPTH + 2}:${MAX_NESTING_DEPTH + 1}`, message: NESTING });
    // `- k:` opens a sequence and a mapping: the 51st line's `-` opens level 101.
    expect(at(frontmatter(`${stairs(300, (i) => `${" ".repeat(2 * i)}- k${i}:`)} x\n`))).toEqual({ ruleId: "skill/yaml-unsupported", at: `52:${MAX_NESTING_DEPTH + 1}`, message: NESTING });
  });

  it("counts nothing inside block scalars, quoted values, flow collections or text continuing a value", () => {
    for (const yaml of [
      `a: |\n${stairs(300, (i) => `${" ".repeat(i + 1)}- k:`)}\nb: 1\n`,
      `a:\n  - >-\n${stairs(300, (i) => `${" ".repeat(i + 4)}- `)}\nb: 1\n`,
      `a: "text\n${stairs(300, (i) => `${" ".repeat(i + 1)}- k: v`)}"\nb: 1\n`,
      `a: [x,\n${stairs(300, (i) => `${" ".repeat(i + 1)}y`)}]\nb: 1\n`,
      `a: text\n${stairs(300, (i) => `${" ".repeat(i + 1)}- more text`)}\nb: 1\n`,
    ]) {
      expect(at(frontmatter(yaml)), yaml.slice(0, 12)).toBe("parsed");
    }
  });

  it("prompts/variants.yaml nested by indentation is source/invalid-yaml at level 101", () => {
    // variants is level 1: the 100th key below it opens level 101, on line 101.
    const yaml = `variants:\n${stairs(2_000, (i) => `${" ".repeat(i + 1)}k${i}:`)} x\n`;
    expect(brief(parseYamlSource(source("prompts/variants.yaml", yaml)))).toEqual({ ruleId: "source/invalid-yaml", at: `101:${MAX_NESTING_DEPTH + 1}`, message: NESTING });
  });
});
