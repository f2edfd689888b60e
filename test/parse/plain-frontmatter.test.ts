import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { nearMisses, type LineEdit } from "../helpers/near-misses.js";
import { splitFrontmatter } from "../../src/pipeline/parse/frontmatter.js";
import { readPlainFrontmatter } from "../../src/pipeline/parse/plain-frontmatter.js";
import { LineIndex } from "../../src/pipeline/parse/positions.js";
import { parseWithYamlLibrary, type YamlTree } from "../../src/pipeline/parse/yaml-tree.js";

// Frontmatter of plain `key: value` lines and lists is read without the YAML
// library. Wherever that reader answers, its answer must be the library's
// answer to the byte: the same values and the same ranges for every key and
// value. Checked over every SKILL.md and note in the fixtures, the embedded
// default and the real skill collections beside the repository, and over
// near-misses made from them.

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
// The real collections sit in shared/ beside the checkout (or beside its parent folder, for a worktree).
const corpus = [join(root, "..", "shared", "realworld-skills"), join(root, "..", "..", "shared", "realworld-skills")].find((path) => existsSync(path)) ?? "";

function* markdownFiles(folder: string): Generator<string> {
  if (!existsSync(folder)) return;
  for (const entry of readdirSync(folder).sort()) {
    const path = join(folder, entry);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) yield* markdownFiles(path);
    else if (stat?.isFile() && (entry === "SKILL.md" || folder.endsWith("knowledge")) && stat.size < 1_000_000) yield path;
  }
}

function frontmatterOf(text: string): string | undefined {
  const normalised = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const split = splitFrontmatter(new LineIndex(normalised));
  return "yamlStart" in split ? normalised.slice(split.yamlStart, split.yamlEnd) : undefined;
}

function comparable(tree: YamlTree): unknown {
  const ranges = (map: Map<string, unknown>): unknown => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { value: JSON.parse(JSON.stringify(tree.value)) as unknown, values: ranges(tree.valueRanges), keys: ranges(tree.keyRanges) };
}

/** Both readers on one frontmatter placed after an opening `---` line; true when the plain reader answered. */
function agree(yamlText: string, label: string): boolean {
  const text = `---\n${yamlText}---\n`;
  const index = new LineIndex(text);
  const plain = readPlainFrontmatter(yamlText, 4, index);
  if (!plain) return false;
  const full = parseWithYamlLibrary(yamlText, 4, index);
  expect(Array.isArray(full), label).toBe(false);
  expect(comparable(plain), label).toEqual(comparable(full as YamlTree));
  return true;
}

/** Changes to one line that YAML may read differently (for nearMisses). */
const NEAR_MISS_EDITS: LineEdit[] = [
  (line: string) => `${line} `,
  (line: string) => line.replace(": ", ":  "),
  (line: string) => line.replace(": ", ": # "),
  (line: string) => line.replace(/: (.)/, ": 1$1"),
  (line: string) => line.replace(/: .*/, ": true"),
  (line: string) => line.replace(/: .*/, ": null"),
  (line: string) => line.replace(/: (.*)/, ': "$1"'),
  (line: string) => line.replace("- ", "-  "),
  (line: string) => line.replace(/^ {2}- /, "    - "),
  (line: string) => line.replace(/^ {4}- /, "  - "),
  (line: string) => line.replace(/^ {4}- /, "      - "),
  (line: string) => line.replace(/^ {2}(\w+):$/, "  $1: []"),
  (line: string) => line.replace(/^ {2}(\w+):$/, "$1:"),
  (line: string) => line.replace(/: (.*)/, ": $1:"),
  (line: string) => `${line}\n`,
];

/** Frontmatter with block scalars, wrapped plain values and booleans in the shapes real skills write, for near misses. */
const BLOCK_SCALARS = [
  "name: pdf\ndescription: |\n  Fill PDF forms.\n  Use when: a form must be filled.\n    - indented more\n  # not a comment\nlicense: MIT\n",
  "description: >-\n  Reusable patterns for logs,\n  alarms and: metrics.\nname: logs\n",
  "name: a\ndescription: >\n    Four spaces,\n    folded.\n",
  "description: |-\n  one line\nmetadata:\n  version: 1.0.0\n",
  "name: a\ndescription:\n  React composition patterns that scale. Use when\n    refactoring components,\nuser-invocable: true\n",
  "disable-model-invocation: False\ndescription:\n  one wrapped line\n",
];

/** Changes to one line of a block scalar that YAML reads another way, or that leave the reader's shape. */
const BLOCK_EDITS: LineEdit[] = [
  (line: string) => line.replace(/: ([|>])(-?)$/, ": $1+"),
  (line: string) => line.replace(/: ([|>])(-?)$/, ": $12$2"),
  (line: string) => line.replace(/: ([|>])(-?)$/, ": $1$2 # note"),
  (line: string) => line.replace(/: ([|>])(-?)$/, ": $1$2 "),
  (line: string) => line.replace(/: \|/, ": >").replace(/: >(?!-)/, ": |"),
  (line: string) => `${line}\n`,
  (line: string) => `${line}\n  `,
  (line: string) => line.replace(/^ {2}/, " "),
  (line: string) => line.replace(/^ {2}/, "   "),
  (line: string) => line.replace(/^ {2}/, ""),
  (line: string) => line.replace(/^ {2}/, "  \t"),
  (line: string) => line.replace(/^ {2}/, "\t"),
  (line: string) => line.replace(/^ {2}/, "  \u00a0"),
  (line: string) => `${line}\r`,
  (line: string) => line.replace(/ /, "  "),
  (line: string) => line.replace(/^ {2}(.*)/, "  $1 #x"),
  (line: string) => line.replace(/^ {2}.*/, "  ---"),
  (line: string) => line.replace(/^ {2}.*/, "  ..."),
  (line: string) => line.replace(/^(\w+):.*/, "---"),
  (line: string) => line.replace(/^(\w+):.*/, "..."),
  (line: string) => line.replace(/^(\w+):.*/, "# comment"),
  (line: string) => line.replace(/^(\w+):.*/, " $&"),
  (line: string) => line.replace(/^ {2}(\S+)/, "  $1: x"),
  (line: string) => line.replace(/^ {2}(\S+)/, "  $1:"),
  (line: string) => line.replace(/^ {2}/, "  - "),
  (line: string) => line.replace(/^ {2}/, "   - "),
  (line: string) => line.replace(/^ {2}/, "  # "),
  (line: string) => line.replace(/^ {2}/, "  'q' "),
  (line: string) => line.replace(/^ {2}/, "  ["),
  (line: string) => line.replace(/^ {2}/, "  &a "),
  (line: string) => line.replace(/^ {2}.*/, "  true"),
  (line: string) => line.replace(/^ {2}.*/, "  12"),
];

/** A nested mapping indented by four, as many collections write `metadata:`, for near misses. */
const FOUR_SPACE_MAPPINGS = [
  "name: aeon\ndescription: Time series work.\nmetadata:\n    skill-author: K-Dense Inc.\n",
  "metadata:\n    version: 1.0.0\n    author: someone\nname: a\n",
  "name: a\nmetadata:\n    a: x\n    b: \"quoted\"\n    c: 'single'\nlicense: MIT\n",
];

/** Changes to one line of a nested mapping that YAML reads another way, or that leave the reader's shape. */
const NESTED_EDITS: LineEdit[] = [
  (line: string) => line.replace(/^ {4}/, "  "),
  (line: string) => line.replace(/^ {4}/, "   "),
  (line: string) => line.replace(/^ {4}/, "     "),
  (line: string) => line.replace(/^ {4}/, "      "),
  (line: string) => line.replace(/^ {4}/, "\t"),
  (line: string) => line.replace(/^ {4}/, "  \t  "),
  (line: string) => line.replace(/^ {4}(\S+):.*/, "    $1:"),
  (line: string) => line.replace(/^ {4}(\S+):.*/, "    - $1"),
  (line: string) => line.replace(/^ {4}(\S+):.*/, "    $1: []"),
  (line: string) => line.replace(/^ {4}(\S+):.*/, "    $1: [a, b]"),
  (line: string) => line.replace(/^ {4}(\S+):.*/, "    $1: {a: b}"),
  (line: string) => line.replace(/^ {4}(\S+):.*/, "    $1:\n      - x"),
  (line: string) => line.replace(/^ {4}(\S+):.*/, "    $1:\n    - x"),
  (line: string) => line.replace(/^ {4}(\S+):(.*)/, "    $1:$2\n      continued"),
  (line: string) => line.replace(/^ {4}(\S+):(.*)/, "    $1:$2\n    $1: again"),
  (line: string) => line.replace(/^ {4}(\S+):(.*)/, "    $1:$2\n  other: x"),
  (line: string) => line.replace(/^ {4}(\S+):(.*)/, "    $1:$2\n\n    other: x"),
  (line: string) => line.replace(/^(\w+):$/, "$1: x"),
  (line: string) => line.replace(/^(\w+):$/, "$1: "),
];

describe("plain frontmatter reader", () => {
  const files = [
    ...markdownFiles(join(root, "test", "fixtures")),
    ...markdownFiles(join(root, "skills")),
    ...markdownFiles(join(root, "knowledge")),
    ...markdownFiles(corpus),
  ];

  it("gives the YAML library's tree and ranges wherever it answers", () => {
    let answered = 0;
    let seen = 0;
    for (const file of files) {
      const yamlText = frontmatterOf(readFileSync(file, "utf8"));
      if (yamlText === undefined) continue;
      const real = !file.includes(`${join("test", "fixtures")}`); // fixtures are odd on purpose
      if (real) seen++;
      if (agree(yamlText, file) && real) answered++;
    }
    expect(seen).toBeGreaterThan(5);
    // The point of the reader: most real frontmatter is plain (93 of the 98 real skills beside the repository).
    expect(answered / seen).toBeGreaterThan(0.8);
  });

  it("agrees with the library on near-misses of the embedded default's frontmatter", () => {
    let answered = 0;
    for (const file of [...markdownFiles(join(root, "skills")), ...markdownFiles(join(root, "knowledge"))]) {
      const yamlText = frontmatterOf(readFileSync(file, "utf8"));
      if (yamlText === undefined) continue;
      for (const variant of nearMisses(yamlText, NEAR_MISS_EDITS)) if (agree(variant, `${file} (near miss)\n${variant}`)) answered++;
    }
    expect(answered).toBeGreaterThan(0);
  });

  it("gives the library's answer on the labelled corpus's frontmatter wherever it answers", () => {
    let answered = 0;
    for (const file of markdownFiles(join(root, "corpus"))) {
      const yamlText = frontmatterOf(readFileSync(file, "utf8"));
      if (yamlText !== undefined && agree(yamlText, file)) answered++;
    }
    expect(answered).toBeGreaterThan(500);
  });

  it("agrees with the library on block scalars, wrapped plain values, booleans and their near misses", () => {
    let answered = 0;
    for (const base of BLOCK_SCALARS) {
      expect(agree(base, base), base).toBe(true);
      for (const variant of nearMisses(base, [...BLOCK_EDITS, ...NEAR_MISS_EDITS])) if (agree(variant, `near miss\n${variant}`)) answered++;
    }
    expect(answered).toBeGreaterThan(20);
  });

  it("agrees with the library on nested mappings indented by four and their near misses", () => {
    let answered = 0;
    for (const base of FOUR_SPACE_MAPPINGS) {
      expect(agree(base, base), base).toBe(true);
      for (const variant of nearMisses(base, [...NESTED_EDITS, ...NEAR_MISS_EDITS])) if (agree(variant, `near miss\n${variant}`)) answered++;
    }
    expect(answered).toBeGreaterThan(20);
  });

  it("leaves to the library what only it can read", () => {
    const index = (text: string): LineIndex => new LineIndex(`---\n${text}---\n`);
    for (const text of ["name: a\n\ndescription: b\n", "name: 'it''s'\n", "name: \"a\\tb\"\n", "name: a # note\n", "n: 1.10\n", "a: null\n", "a: yes\nb: ~\n", "a:\n", "a: b\na: c\n", "a: |+\n  x\n", "a: |\n  x\n\n  y\n", "a: >\n  x\n   y\n", "a: {b: c}\n", "a: &x y\n", "meta:\n  k: v\n    deeper: x\n", "meta:\n  k: 1\n", "a: b\n  c\n", "a:\tb\n", "meta:\n    k: v\n  j: w\n", "meta:\n    k:\n      - x\n", "meta:\n   k: v\n"]) {
      expect(readPlainFrontmatter(text, 4, index(text)), JSON.stringify(text)).toBeUndefined();
    }
  });
});
