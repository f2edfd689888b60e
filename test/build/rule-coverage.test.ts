import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildRules } from "../../src/diagnostics/rules/build-rules.js";
import { fixturesDir, repoRoot } from "./helpers.js";

/**
 * Rules whose failure needs a state a committed fixture cannot hold: dist/
 * contents after a build, unreadable or oversized files, supporting files
 * with links. Each names the test that makes it fire, and that test must
 * assert the rule id.
 */
const NOT_FIXTURED: Record<string, string> = {
  "skill/supporting-file-too-large": "test/supporting-files/supporting-files.test.ts",
  "skill/supporting-file-skipped": "test/supporting-files/supporting-files.test.ts",
  "source/missing-file": "test/build/errors.test.ts",
  "source/unreadable-file": "test/build/source-reader.test.ts",
  "source/file-too-large": "test/build/source-reader.test.ts",
  "dist/missing": "test/build/check.test.ts",
  "dist/changed": "test/build/check.test.ts",
  "dist/extra": "test/build/check.test.ts",
  "dist/hash-mismatch": "test/build/check.test.ts",
  "dist/not-owned": "test/build/safe-write.test.ts",
  "dist/write-failed": "test/build/safe-write.test.ts",
  "dist/not-a-file": "test/robustness/special-files.test.ts",
  "dist/unreadable": "test/robustness/unreadable-dist.test.ts",
  "dist/interrupted-build": "test/robustness/crash.test.ts",
  "source/not-a-file": "test/robustness/special-files.test.ts",
  "source/ignored-file": "test/build/ignored-sources.test.ts",
  "source/outside-root": "test/robustness/special-files.test.ts",
  "source/changed-during-build": "test/robustness/sources-changed.test.ts",
};

function fixturedRuleIds(): Set<string> {
  const casesDir = join(fixturesDir, "errors");
  const seen = new Set<string>();
  for (const name of readdirSync(casesDir)) {
    const expected = JSON.parse(readFileSync(join(casesDir, name, "expected.json"), "utf8")) as Array<{ ruleId: string }>;
    for (const diagnostic of expected) seen.add(diagnostic.ruleId);
  }
  return seen;
}

describe("build rule coverage", () => {
  it("has a failing fixture case for every build, template, variant, tool and budget rule", () => {
    const seen = fixturedRuleIds();
    const missing = Object.keys(buildRules).filter((ruleId) => !seen.has(ruleId) && !(ruleId in NOT_FIXTURED));
    expect(missing).toEqual([]);
  });

  it("lists as not fixtured only rules that no fixture covers, each asserted by the test it names", () => {
    const seen = fixturedRuleIds();
    for (const [ruleId, testFile] of Object.entries(NOT_FIXTURED)) {
      expect(Object.keys(buildRules), ruleId).toContain(ruleId);
      expect(seen.has(ruleId), `${ruleId} now has a fixture; drop it from NOT_FIXTURED`).toBe(false);
      expect(readFileSync(join(repoRoot, testFile), "utf8"), `${testFile} asserts ${ruleId}`).toContain(`"${ruleId}"`);
    }
  });
});
