import { describe, expect, it } from "vitest";
import type { ValidSkill } from "../../src/stage-data.js";
import { resolveVariants, VARIANTS_FILE } from "../../src/pipeline/validate/variants.js";

// A variant's preloads expanded over a requirement chain far deeper than a
// real project's: the closure and its conflict check stay exact.

function skill(name: string, type: ValidSkill["type"], requiresSkills: string[] = [], conflictsWith: string[] = []): ValidSkill {
  return { name, type, description: `Use for ${name}.`, requiresSkills, conflictsWith, path: `skills/${name}/SKILL.md`, body: `# ${name}\n`, bodyStartLine: 6 };
}

const step = (index: number): string => `step-${String(index).padStart(4, "0")}`;

/** The workflow `top` on a chain of 1,000 references; the bottom one conflicts with `theme`. */
function skills(): ValidSkill[] {
  const chain = Array.from({ length: 1000 }, (_, offset) => skill(step(offset + 1), "reference", offset + 1 < 1000 ? [step(offset + 2)] : [], offset + 1 === 1000 ? ["theme"] : []));
  return [skill("top", "workflow", [step(1)]), ...chain, skill("theme", "reference")];
}

const variants = (text: string) => resolveVariants({ path: VARIANTS_FILE, text, contentHash: "" }, skills(), new Set());

describe("variants over a 1,000-deep requirement chain", () => {
  it("preloads the whole chain: the workflow first, then the references sorted", () => {
    const resolved = variants("variants:\n  deep:\n    preload: [top]\n");
    expect(resolved.diagnostics).toEqual([]);
    expect(resolved.variants[0]?.skills.map((preloaded) => preloaded.name)).toEqual(["top", ...Array.from({ length: 1000 }, (_, offset) => step(offset + 1))]);
  });

  it("refuses a variant whose chain ends in a skill that conflicts with another preload", () => {
    const resolved = variants("variants:\n  deep:\n    preload: [top, theme]\n");
    expect(resolved.variants).toEqual([]);
    expect(resolved.diagnostics.map((diagnostic) => [diagnostic.ruleId, diagnostic.line, diagnostic.message])).toEqual([
      ["variant/conflicting-skills", 3, "Unexpected conflicting skills `step-1000` and `theme` in variant `deep`, expected preloaded skills (with their requirements) that do not conflict"],
    ]);
  });
});
