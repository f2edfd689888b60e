/**
 * A skill's name and its folder's name that hold the same letters in other
 * code points (an accent composed in one, a letter and a combining mark in
 * the other) are still a mismatch, and the finding says why two names that
 * look the same are not.
 */
import { describe, expect, it } from "vitest";
import { skillSetDiagnostics } from "../../src/pipeline/validate/skill-set-rules.js";
import type { SkillFrontmatter } from "../../src/pipeline/parse/parse.js";

const range = { start: { line: 2, column: 7 }, end: { line: 2, column: 13 } };
const record = (folder: string, name: string) => ({
  path: `skills/${folder}/SKILL.md`,
  folder,
  manifest: { name, nameRange: range, requiresSkills: [], conflictsWith: [] } as unknown as SkillFrontmatter,
  opening: { start: { line: 1, column: 1 }, end: { line: 1, column: 4 } },
});

describe("skill/name-mismatch between encodings", () => {
  it("names the encoding of each when the letters are the same", () => {
    const composed = "\u00c9mile";
    const decomposed = "E\u0301mile";
    const [found] = skillSetDiagnostics([record(decomposed, composed)]);
    expect(found?.ruleId).toBe("skill/name-mismatch");
    expect(found?.message).toContain("(the same letters, encoded differently: the name is NFC, composed, the folder NFD, decomposed)");
  });

  it("says nothing of encodings when the letters differ", () => {
    const [found] = skillSetDiagnostics([record("emile", "\u00c9mile")]);
    expect(found?.message).not.toContain("encoded differently");
  });
});
