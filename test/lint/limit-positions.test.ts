import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lint } from "../../src/lint.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { fixturesDir, lintFixture } from "./helpers.js";

afterAll(removeTempDirs);

/**
 * A too-long description (1,024) or compatibility (500) is reported from its
 * first character past the limit. The fixtures put a "Z" there, in plain,
 * quoted (with escapes and folded lines) and block (`>`, `|-`) scalars.
 */
describe("length findings point at the first character past the limit", () => {
  for (const [fixture, ruleId] of [
    ["description-length", "skill/description-length"],
    ["schema-violation", "skill/schema-violation"],
  ] as const) {
    it(fixture, async () => {
      const result = await lintFixture(fixture);
      const findings = result.diagnostics.filter((diagnostic) => diagnostic.ruleId === ruleId && /code points, expected at most/.test(diagnostic.message));
      const marked = findings.filter((diagnostic) => !/\/(long|limits)\//.test(diagnostic.file));
      expect(marked.length).toBeGreaterThanOrEqual(1);
      for (const diagnostic of marked) {
        const line = readFileSync(join(fixturesDir, fixture, diagnostic.file), "utf8").split("\n")[diagnostic.line - 1] ?? "";
        expect(line[diagnostic.column - 1], diagnostic.file).toBe("Z");
      }
    });
  }
});

/**
 * A rule about one character of a value (an angle bracket in a description, a
 * separating comma in allowed-tools) points at that character in every scalar
 * style, never at a `>` or `|` block indicator or an opening quote.
 */
describe("character findings point at the character in every scalar style", () => {
  const styles: Record<string, string[]> = {
    plain: ["description: Use when a <tag> is needed.", "allowed-tools: Read, Grep"],
    single: ["description: 'Use when a <tag> is needed.'", "allowed-tools: 'Read, Grep'"],
    double: ['description: "Use when a <tag> is needed."', 'allowed-tools: "Read, Grep"'],
    folded: ["description: >", "  Use when the user", "  writes a <tag> here.", "allowed-tools: >", "  Read", "  Bash(git:*), Grep"],
    literal: ["description: |", "  Use when the user", "  writes a <tag> here.", "allowed-tools: |-", "  Read Bash(a, b),", "  Grep"],
    "folded-strip": ["description: >-", "  Use when the user writes", "  a <tag>.", "allowed-tools: >-", "  Read,", "  Grep"],
  };

  it("skill/description-angle-bracket and skill/allowed-tools-format", async () => {
    const root = await tempDir("gamma-character-positions");
    for (const [name, lines] of Object.entries(styles)) {
      const skill = `s-${name}`;
      mkdirSync(join(root, "skills", skill), { recursive: true });
      writeFileSync(join(root, "skills", skill, "SKILL.md"), ["---", `name: ${skill}`, "type: reference", ...lines, "---", "", "# Body", ""].join("\n"));
    }
    const result = await lint({ root, profile: "gamma" });
    const expected = { "skill/description-angle-bracket": "<", "skill/allowed-tools-format": "," } as const;
    const found = result.diagnostics.filter((diagnostic) => diagnostic.ruleId in expected);
    expect(found).toHaveLength(Object.keys(styles).length * 2);
    for (const diagnostic of found) {
      const line = readFileSync(join(root, diagnostic.file), "utf8").split("\n")[diagnostic.line - 1] ?? "";
      expect(line[diagnostic.column - 1], `${diagnostic.file} ${diagnostic.ruleId}`).toBe(expected[diagnostic.ruleId as keyof typeof expected]);
    }
  });
});
