/**
 * The library's `explainRule`, given what is no rule id (plain JavaScript, a
 * rule named from elsewhere): a RangeError (a string) or a TypeError naming
 * the rule and what it takes, as the command and the MCP tool say it, never
 * an internal TypeError.
 */
import { describe, expect, it } from "vitest";
import { explainRule } from "../../src/index.js";

const untyped = (value: unknown): never => value as never;

describe("explainRule, given no rule id", () => {
  it("names the rule given and suggests a near miss", () => {
    expect(() => explainRule(untyped("nope"))).toThrow(RangeError);
    expect(() => explainRule(untyped("nope"))).toThrow('Unexpected rule "nope", expected a rule id such as skill/description-trigger (every finding names its rule)');
    expect(() => explainRule(untyped("skill/description-triger"))).toThrow('Unexpected rule "skill/description-triger", expected a rule id such as skill/description-trigger (every finding names its rule); did you mean "skill/description-trigger"?');
    expect(() => explainRule(untyped(42))).toThrow(TypeError);
    expect(() => explainRule(untyped(undefined))).toThrow("Unexpected rule undefined, expected a rule id such as skill/description-trigger");
    expect(explainRule("skill/description-trigger").id).toBe("skill/description-trigger");
  });
});
