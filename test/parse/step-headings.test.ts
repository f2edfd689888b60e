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
      const levels = new Map<number, number>();
      for (const heading of steps) levels.set(heading.level, (levels.get(heading.level) ?? 0) + 1);
      const expected = [...levels.values()].filter((count) => count >= 2).reduce((sum, count) => sum + count, 0);
      expect(findStepHeadings(body, 1).flatMap((list) => list.items).length, JSON.stringify(body)).toBe(expected);
    }
  });
});
