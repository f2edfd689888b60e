import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { skillRules } from "../../src/diagnostics/rules/skill-rules.js";
import { fixtureCases, fixturesDir, golden, jsonReport, lintFixture, prettyJson } from "./helpers.js";

/** Rules whose failure needs a file system state a committed fixture cannot hold (a 1 MiB file, a folder named SKILL.md) or a parser crash; hostile.test.ts covers them. */
const NOT_FIXTURED = new Set(["skill/unreadable-file", "skill/file-too-large", "skill/parse-failure"]);

describe("lint fixtures: each case's diagnostics equal its expected.json", () => {
  for (const name of fixtureCases()) {
    it(name, async () => {
      const result = await lintFixture(name);
      const actual = prettyJson(jsonReport(result));
      expect(actual).toBe(golden(name, jsonReport(result)));
      if (name.startsWith("good-")) expect(result.diagnostics).toEqual([]);
    });
  }
});

describe("fixture coverage", () => {
  it("has a failing case for every skill rule, named after it", () => {
    const seen = new Set<string>();
    for (const name of fixtureCases()) {
      const expected = JSON.parse(readFileSync(join(fixturesDir, name, "expected.json"), "utf8")) as { diagnostics: Array<{ ruleId: string }> };
      for (const diagnostic of expected.diagnostics) seen.add(diagnostic.ruleId);
    }
    const missing = Object.keys(skillRules).filter((ruleId) => !seen.has(ruleId) && !NOT_FIXTURED.has(ruleId));
    expect(missing).toEqual([]);
    for (const ruleId of Object.keys(skillRules)) {
      if (!NOT_FIXTURED.has(ruleId)) expect(fixtureCases()).toContain(ruleId.slice("skill/".length));
    }
  });

  it("has a passing case next to the failing ones", () => {
    expect(fixtureCases().filter((name) => name.startsWith("good-")).length).toBeGreaterThanOrEqual(3);
  });
});
