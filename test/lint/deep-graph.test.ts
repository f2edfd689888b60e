import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lint } from "../../src/lint.js";

// Generated requirement graphs of a thousand skills and more, each with the
// one finding it must give: the graph checks answer for deep chains, wide
// fan-ins and long cycles as they do for the small fixtures.

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface GeneratedSkill {
  name: string;
  requires?: readonly string[];
  conflicts?: readonly string[];
}

/** A project of reference skills; `requiresSkills` is always line 5, its first name at column 18. */
function project(skills: readonly GeneratedSkill[]): string {
  const root = mkdtempSync(join(tmpdir(), "gamma-prompt-graph-"));
  temps.push(root);
  for (const skill of skills) {
    const lines = ["---", `name: ${skill.name}`, "type: reference", `description: Use when the task concerns ${skill.name}.`];
    lines.push(`requiresSkills: [${(skill.requires ?? []).join(", ")}]`, `conflictsWith: [${(skill.conflicts ?? []).join(", ")}]`);
    lines.push("---", "", `# ${skill.name}`, "", "Terms and their meaning.", "");
    mkdirSync(join(root, "skills", skill.name), { recursive: true });
    writeFileSync(join(root, "skills", skill.name, "SKILL.md"), lines.join("\n"));
  }
  return root;
}

/** `prefix-0001` … `prefix-<count>`, each requiring the next; the last requires `end` when given. */
function chain(prefix: string, count: number, end?: string): GeneratedSkill[] {
  const name = (index: number): string => `${prefix}-${String(index).padStart(4, "0")}`;
  return Array.from({ length: count }, (_, offset) => {
    const index = offset + 1;
    const next = index < count ? name(index + 1) : end;
    return { name: name(index), ...(next === undefined ? {} : { requires: [next] }) };
  });
}

const names = (prefix: string, count: number): string[] => chain(prefix, count).map((skill) => skill.name);

async function findings(root: string): Promise<Array<{ file: string; line: number; column: number; endColumn: number; ruleId: string; message: string }>> {
  const result = await lint({ root, profile: "gamma" });
  return result.diagnostics.map(({ file, line, column, endColumn, ruleId, message }) => ({ file, line, column, endColumn, ruleId, message }));
}

describe("requirement graphs of a thousand skills and more", () => {
  it("reports the missing requirement at the bottom of a 2,000-deep chain, and nothing else", async () => {
    // An unrelated conflicting pair, so the closure checks run for every skill of the chain.
    const root = project([...chain("deep", 2000, "absent"), { name: "left", conflicts: ["right"] }, { name: "right", conflicts: ["left"] }]);
    expect(await findings(root)).toEqual([
      {
        file: "skills/deep-2000/SKILL.md",
        line: 5,
        column: 18,
        endColumn: 24,
        ruleId: "skill/reference-unknown",
        message: 'Unexpected unknown skill "absent" in requiresSkills, expected the name of a skill in skills/',
      },
    ]);
  });

  it("reports the one skill of a 1,000-wide fan-in that requires a skill it conflicts with", async () => {
    const fans = Array.from({ length: 1000 }, (_, index) => `fan-${String(index).padStart(4, "0")}`);
    const root = project([{ name: "hub", conflicts: ["fan-0500"] }, ...fans.map((name) => ({ name, requires: ["hub"], ...(name === "fan-0500" ? { conflicts: ["hub"] } : {}) }))]);
    expect(await findings(root)).toEqual([
      {
        file: "skills/fan-0500/SKILL.md",
        line: 5,
        column: 18,
        endColumn: 21,
        ruleId: "skill/requires-conflict",
        message: 'Unexpected requirement of "hub" (fan-0500 → hub), which conflicts with "fan-0500", expected no requirement that conflicts with the skill',
      },
    ]);
  });

  it("reports a cycle of 1,000 skills once, from its smallest name, with the whole cycle", async () => {
    const root = project(chain("loop", 1000, "loop-0001"));
    const cycle = [...names("loop", 1000), "loop-0001"].join(" → ");
    expect(await findings(root)).toEqual([
      {
        file: "skills/loop-0001/SKILL.md",
        line: 5,
        column: 18,
        endColumn: 27,
        ruleId: "skill/requires-cycle",
        message: `Unexpected requirement cycle ${cycle}, expected requirements that end without returning to a skill`,
      },
    ]);
  });

  it("reports a conflict with the end of a 1,000-deep chain on the skill at its top, with the whole chain", async () => {
    const deep = chain("deep", 1000);
    const bottom = deep[999] as GeneratedSkill;
    const root = project([{ name: "top", requires: ["deep-0001"], conflicts: ["deep-1000"] }, ...deep.slice(0, 999), { ...bottom, conflicts: ["top"] }]);
    const path = ["top", ...names("deep", 1000)].join(" → ");
    expect(await findings(root)).toEqual([
      {
        file: "skills/top/SKILL.md",
        line: 5,
        column: 18,
        endColumn: 27,
        ruleId: "skill/requires-conflict",
        message: `Unexpected requirement of "deep-1000" (${path}), which conflicts with "top", expected no requirement that conflicts with the skill`,
      },
    ]);
  });

  it("reports two conflicting ends of 500-deep chains once, on the skill that first requires both", async () => {
    const left = chain("left", 500);
    const right = chain("right", 500);
    const root = project([
      { name: "above", requires: ["pair"] },
      { name: "pair", requires: ["left-0001", "right-0001"] },
      ...left.slice(0, 499),
      { ...(left[499] as GeneratedSkill), conflicts: ["right-0500"] },
      ...right.slice(0, 499),
      { ...(right[499] as GeneratedSkill), conflicts: ["left-0500"] },
    ]);
    const leftPath = ["pair", ...names("left", 500)].join(" → ");
    const rightPath = ["pair", ...names("right", 500)].join(" → ");
    expect(await findings(root)).toEqual([
      {
        file: "skills/pair/SKILL.md",
        line: 5,
        column: 18,
        endColumn: 27,
        ruleId: "skill/closure-conflict",
        message: `Unexpected conflict between "left-0500" (${leftPath}) and "right-0500" (${rightPath}), expected requirements of "pair" that do not conflict`,
      },
    ]);
  });
});
