/**
 * A quoted value or a flow collection that goes on at the margin (left of the
 * key or `-` that holds it) is refused by the YAML library under YAML 1.2's
 * indentation rule, but PyYAML, js-yaml and skills-ref read it. The
 * frontmatter is read as they read it (each value below is PyYAML's), with
 * every range where the text is written; anything else that fails stays a
 * syntax error.
 */
import { describe, expect, it } from "vitest";
import { LineIndex } from "../../src/pipeline/parse/positions.js";
import { parseYamlTree, type YamlProblem, type YamlTree } from "../../src/pipeline/parse/yaml-tree.js";

function read(yaml: string): YamlTree | YamlProblem[] {
  const text = `---\n${yaml}---\n`;
  return parseYamlTree(yaml, 4, new LineIndex(text));
}

function tree(yaml: string): YamlTree {
  const found = read(yaml);
  if (Array.isArray(found)) throw new Error(`expected a tree, found ${JSON.stringify(found)}`);
  return found;
}

const span = (found: YamlTree, pointer: string): string => {
  const range = found.valueRanges.get(pointer);
  return range === undefined ? "none" : `${range.start.line}:${range.start.column}-${range.end.line}:${range.end.column}`;
};

describe("a value that goes on at the margin", () => {
  it("reads a double-quoted description as PyYAML does, folded with spaces, at the range where it is written", () => {
    const found = tree('name: rust-router\ndescription: "CRITICAL: Use for ALL Rust questions.\nTriggers on: Rust, cargo, rustc,\n  crate"\nlicense: MIT\n');
    expect(found.value).toEqual({ name: "rust-router", description: "CRITICAL: Use for ALL Rust questions. Triggers on: Rust, cargo, rustc, crate", license: "MIT" });
    expect(span(found, "/description")).toBe("3:14-5:9");
    expect(span(found, "/license")).toBe("6:10-6:13");
    expect(found.keyRanges.get("/license")?.start).toEqual({ line: 6, column: 1 });
    expect(found.margin?.constructs.map((construct) => [construct.opener, construct.first, construct.column, construct.lines])).toEqual([['"', 70, 2, 1]]);
  });

  it("reads a single-quoted value with a blank line in it (a line break, as PyYAML reads it)", () => {
    const found = tree("name: x\ndescription: 'It''s a test\ncontinued here\n\n  more'\n");
    expect(found.value).toEqual({ name: "x", description: "It's a test continued here\nmore" });
    expect(span(found, "/description")).toBe("3:14-6:8");
  });

  it("reads a quoted value under metadata, whose lines must pass the nested key's column", () => {
    const found = tree('name: x\nmetadata:\n  author: "The docs team,\nwith help from\n the reviewers"\n  version: "1.0"\n');
    expect(found.value).toEqual({ name: "x", metadata: { author: "The docs team, with help from the reviewers", version: "1.0" } });
    expect(span(found, "/metadata/author")).toBe("4:11-6:16");
    expect(span(found, "/metadata/version")).toBe("7:12-7:17");
    expect(found.margin?.constructs.map((construct) => [construct.column, construct.holder, construct.lines])).toEqual([[4, "key", 2]]);
  });

  it("reads a flow list continued at the margin, each item where it is written", () => {
    const found = tree("name: x\nallowed-tools: [Read,\nWrite]\n");
    expect(found.value).toEqual({ name: "x", "allowed-tools": ["Read", "Write"] });
    expect(span(found, "/allowed-tools")).toBe("3:16-4:7");
    expect(span(found, "/allowed-tools/1")).toBe("4:1-4:6");
  });

  it("reads a list item's quoted value, whose lines must pass the `-`, and a line led by a tab", () => {
    const found = tree('name: x\nnotes:\n- "first\nline"\n- k: "c\n d"\ndescription: "a\n\tb"\n');
    expect(found.value).toEqual({ name: "x", notes: ["first line", { k: "c d" }], description: "a b" });
    expect(found.margin?.constructs.map((construct) => [construct.holder, construct.column])).toEqual([
      ["item", 2],
      ["key", 4],
      ["key", 2],
    ]);
  });

  it("reads a value with an anchor or a tag before it, and a quoted item of a flow list", () => {
    expect(tree('name: x\ndescription: !!str "a\nb"\nlicense: &l "MIT\nor Apache-2.0"\n').value).toEqual({ name: "x", description: "a b", license: "MIT or Apache-2.0" });
    expect(tree('name: x\nk: [a, "b\nc"]\n').value).toEqual({ name: "x", k: ["a", "b c"] });
  });

  it("leaves valid YAML as it is read, with no margin", () => {
    expect(tree('name: x\ndescription: "a\n b"\n').margin).toBeUndefined();
  });

  it("keeps the syntax error where PyYAML fails too, or where the text fails for another reason", () => {
    const cases = [
      // Never closed: the quote is reported where it opens.
      'name: x\ndescription: "Use when testing an unclosed quote.\nmetadata:\n  owner: docs\n',
      // A document marker ends the value for every reader.
      'name: x\ndescription: "a\n...\nb"\n',
      // The value goes on, but a key after it has no value: an error with or without the margin.
      'name: x\ndescription: "a\nb"\nlicense\n',
      // A quoted key over two lines: no key holds it, its lines stay as they are (PyYAML refuses it too).
      'name: x\n"multi\nline": c\n',
    ];
    for (const yaml of cases) {
      const found = read(yaml);
      expect(Array.isArray(found), JSON.stringify(yaml)).toBe(true);
      expect((found as YamlProblem[]).map((problem) => problem.ruleId), JSON.stringify(yaml)).toContain("skill/yaml-syntax");
    }
  });
});
