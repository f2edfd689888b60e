/**
 * A parser's error names a point; the finding's range covers the character there, within the file: empty at
 * a line's end or the file's (no column past the line), a character outside the BMP whole (never half a
 * surrogate pair), and on the line the point is on, even inside a token that spans lines. SARIF keeps the
 * region every other format gives.
 */
import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../src/diagnostics/diagnostic.js";
import { formatSarif } from "../../src/diagnostics/reporters/sarif.js";
import { lint } from "../../src/lint.js";
import { parseJsonSource, parseYamlSource } from "../../src/pipeline/parse/positioned-source.js";
import { LineIndex } from "../../src/pipeline/parse/positions.js";
import { parseYamlTree } from "../../src/pipeline/parse/yaml-tree.js";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll } from "vitest";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

const span = (found: unknown): string => {
  const { line, column, endLine, endColumn } = found as Diagnostic;
  return `${line}:${column}-${endLine}:${endColumn}`;
};
const json = (text: string) => parseJsonSource({ path: "schemas/tools/read.json", text, contentHash: "x" }) as Diagnostic;
const yaml = (text: string) => parseYamlSource({ path: "prompts/injections.yaml", text, contentHash: "x" }) as Diagnostic;

/** Every line's length, to hold a range inside the file. */
function inside(text: string, found: Diagnostic): boolean {
  const lines = text.split("\n");
  const fits = (line: number, column: number) => line >= 1 && line <= lines.length && column >= 1 && column <= (lines[line - 1]?.length ?? 0) + 1;
  return fits(found.line, found.column) && fits(found.endLine, found.endColumn);
}

describe("a parser's error point as a range", () => {
  it("JSON: empty at the end of a line or of the file, a whole emoji, and the emoji named whole in the message", () => {
    for (const [text, expected] of [
      ["", "1:1-1:1"],
      ['{"name": "read', "1:15-1:15"],
      ['{"name": "read",\n', "2:1-2:1"],
      ['{"a": ,}', "1:7-1:8"],
      ['{"a": \u{1F600}}', "1:7-1:9"],
    ] as const) {
      const found = json(text);
      expect(found.ruleId, JSON.stringify(text)).toBe("source/invalid-json");
      expect(span(found), JSON.stringify(text)).toBe(expected);
      expect(inside(text, found), JSON.stringify(text)).toBe(true);
    }
    expect(json('{"a": \u{1F600}}').message).toBe("Unexpected JSON syntax: Unexpected token '\u{1F600}'");
  });

  it("YAML: the range stays on the lines it names when the error spans a multi-line token", () => {
    const text = '- kind: a\n  meaning: "m"\nxx\n  delivery: steer\n';
    const found = yaml(text);
    expect(found.ruleId).toBe("source/invalid-yaml");
    expect(found.line).toBe(3);
    expect(inside(text, found)).toBe(true);
    // A parser's message that quotes a long line is bounded too.
    const long = yaml(`- kind: a\n  meaning: |${"x".repeat(100_000)}\n`).message;
    expect(long.length).toBeLessThan(400);
    expect(long).toContain("code points)");
  });

  it("a SKILL.md's frontmatter: a whole emoji at the error's point, and a bounded message for a long line", () => {
    const frontmatter = "name: demo\ndescription: |\u{1F600} Use when demoing.\n";
    const problems = parseYamlTree(frontmatter, 0, new LineIndex(frontmatter));
    expect(Array.isArray(problems)).toBe(true);
    const [first] = problems as Array<{ ruleId: string; range: { start: { line: number; column: number }; end: { line: number; column: number } } }>;
    expect(first?.ruleId).toBe("skill/yaml-syntax");
    expect(first?.range).toEqual({ start: { line: 2, column: 15 }, end: { line: 2, column: 17 } });

    const long = `name: demo\ndescription: |${"a".repeat(200_000)}\n`;
    const [longProblem] = parseYamlTree(long, 0, new LineIndex(long)) as Array<{ message: string }>;
    expect(longProblem?.message.length).toBeLessThan(400);
    expect(longProblem?.message).toContain("code points)");
  });
});

describe("SARIF regions", () => {
  it("end where the other formats end for a finding over several lines", async () => {
    const root = await tempDir("sarif-region");
    await mkdir(join(root, "skills", "demo"), { recursive: true });
    await writeFile(join(root, "skills", "demo", "SKILL.md"), "---\nname: demo\ndescription: >-\n  A toolkit for demos.\n  Ok.\n---\n\n# Demo\n");
    const result = await lint({ root, profile: "agentskills" });
    const multiline = result.diagnostics.find((found) => found.endLine > found.line);
    expect(multiline).toBeDefined();
    const region = (JSON.parse(formatSarif([multiline as Diagnostic])) as { runs: Array<{ results: Array<{ locations: Array<{ physicalLocation: { region: Record<string, number> } }> }> }> }).runs[0]?.results[0]?.locations[0]?.physicalLocation.region;
    expect(region).toEqual({ startLine: multiline?.line, startColumn: multiline?.column, endLine: multiline?.endLine, endColumn: multiline?.endColumn });
  });
});
