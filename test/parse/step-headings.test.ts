import { describe, expect, it } from "vitest";
import { outlineBlocks } from "../../src/pipeline/parse/block-structure.js";
import { MAX_NESTING } from "../../src/pipeline/parse/body.js";
import { findStepHeadings, stepHeadingTitle } from "../../src/pipeline/parse/step-headings.js";

/** A small deterministic generator: the same bodies on every run. */
function generator(seed: number): (limit: number) => number {
  let state = seed;
  return (limit) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % limit;
  };
}

const PIECES = ["\n", "\n", "\n\n", "\r\n", "  ", "    ", "\t", "> ", "- ", "2) ", "    x\n\n", "text ", "Step 1: a", "step\t2 b", "**Step 3:** c", "__4.__ d", "1. ", "```", "<!--", "-->", "===", "---", "# ", "## ", "### ", "**", "_", "Gather"];

describe("step headings", () => {
  it("takes the title after the step number, without the emphasis around the number or the whole heading", () => {
    expect(stepHeadingTitle("Step 1: Gather")).toBe("Gather");
    expect(stepHeadingTitle("**Step 1:** Gather")).toBe("Gather");
    expect(stepHeadingTitle("**Step 1**: Gather")).toBe("Gather");
    expect(stepHeadingTitle("**Step 1: Gather**")).toBe("Gather");
    expect(stepHeadingTitle("_2._ Gather")).toBe("Gather");
    expect(stepHeadingTitle("Step 3")).toBe("");
    expect(stepHeadingTitle("Step 1: **Gather** the inputs")).toBe("**Gather** the inputs");
    expect(stepHeadingTitle("**Step 1: Gather")).toBeUndefined();
    expect(stepHeadingTitle("Steps to take")).toBeUndefined();
  });

  it("skips the block pass only on bodies that hold no step heading", () => {
    const next = generator(5);
    for (let round = 0; round < 5_000; round++) {
      const parts: string[] = [];
      for (let count = next(30); count > 0; count--) parts.push(PIECES[next(PIECES.length)] ?? "");
      const body = parts.join("");
      const steps = outlineBlocks(body.split("\n"), MAX_NESTING).headings.filter((heading) => !heading.quoted && stepHeadingTitle(heading.text) !== undefined);
      if (steps.length === 0) expect(findStepHeadings(body, 1), JSON.stringify(body)).toEqual([]);
      else expect(findStepHeadings(body, 1).flatMap((list) => list.items).length, JSON.stringify(body)).toBeLessThanOrEqual(steps.length);
      // Runs per level: a heading whose written number is not past the one before at its level starts a new run.
      const runs: number[] = [];
      const open = new Map<number, { run: number; number: number }>();
      for (const heading of steps) {
        const number = Number(/\d{1,3}/.exec(heading.text)?.[0] ?? 0);
        const current = open.get(heading.level);
        if (current === undefined || number <= current.number) {
          runs.push(0);
          open.set(heading.level, { run: runs.length - 1, number });
        } else current.number = number;
        const at = (open.get(heading.level) as { run: number }).run;
        runs[at] = (runs[at] ?? 0) + 1;
      }
      const expected = runs.filter((count) => count >= 2).reduce((sum, count) => sum + count, 0);
      expect(findStepHeadings(body, 1).flatMap((list) => list.items).length, JSON.stringify(body)).toBe(expected);
    }
  });

  it("makes one list of each run of numbers: a second procedure or an alternative branch starts its own, a staged procedure numbered on stays one", () => {
    const titles = (body: string) => findStepHeadings(body, 1).map((list) => list.items.map((item) => item.heading));
    // Two procedures, each from Step 1 (the second an alternative way through).
    expect(titles("## Drafting\n\n### Step 1: Outline\n\n### Step 2: Draft\n\n## Testing by hand\n\n### Step 1: Read it\n\n### Step 2: Note gaps\n")).toEqual([
      ["Outline", "Draft"],
      ["Read it", "Note gaps"],
    ]);
    // The steps, then numbered pitfalls at the same level: two lists.
    expect(titles("## Execution Steps\n\n### 1. Plan\n\n### 2. Move\n\n### 3. Verify\n\n## Common Pitfalls\n\n### 1. Over-Abstraction\n\n### 2. Tight Coupling\n")).toEqual([
      ["Plan", "Move", "Verify"],
      ["Over-Abstraction", "Tight Coupling"],
    ]);
    // Stages whose steps are numbered on across their sections: one procedure.
    expect(titles("## Stage 1\n\n### Step 1: Gather\n\n### Step 2: Sort\n\n## Stage 2\n\n### Step 3: Write\n\n### Step 4: Check\n")).toEqual([["Gather", "Sort", "Write", "Check"]]);
  });
});
