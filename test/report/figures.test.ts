/** The report's figures agree with each other as shown: a change is the difference of the two amounts beside it, each as printed. */
import { describe, expect, it } from "vitest";
import { centsChange, dollarDelta, dollars } from "../../src/report/format.js";

describe("a cost change beside its two amounts", () => {
  it.each([
    [34.9166, 34.9328, "$34.92", "$34.93", "+$0.01"],
    [14.2649, 14.2651, "$14.26", "$14.27", "+$0.01"],
    [10.004, 10.006, "$10.00", "$10.01", "+$0.01"],
    [2.335, 2.334, "$2.33", "$2.33", "$0.00"],
    [5.5, 3.25, "$5.50", "$3.25", "-$2.25"],
  ])("%d → %d reads %s → %s, %s", (before, after, shownBefore, shownAfter, change) => {
    expect([dollars(before), dollars(after), dollarDelta(before, after)]).toEqual([shownBefore, shownAfter, change]);
    expect(centsChange(before, after)).toBe(Math.round(Number(shownAfter.replace(/[$,]/g, "")) * 100) - Math.round(Number(shownBefore.replace(/[$,]/g, "")) * 100));
  });
});
