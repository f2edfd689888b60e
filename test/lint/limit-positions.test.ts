import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixturesDir, lintFixture } from "./helpers.js";

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
