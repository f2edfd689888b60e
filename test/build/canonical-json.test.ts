import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/pipeline/emit/canonical-json.js";

describe("canonical JSON", () => {
  it("gives the same text whether or not keys arrive sorted, at every depth", () => {
    const sorted = { a: 1, b: { c: [{ d: 1, e: 2 }], f: "x" }, g: [] };
    const shuffled = { g: [], b: { f: "x", c: [{ e: 2, d: 1 }] }, a: 1 };
    const partly = { a: 1, b: { c: [{ e: 2, d: 1 }], f: "x" }, g: [] };
    const expected = `${JSON.stringify(sorted, null, 2)}\n`;
    expect(canonicalJson(sorted)).toBe(expected);
    expect(canonicalJson(shuffled)).toBe(expected);
    expect(canonicalJson(partly)).toBe(expected);
    // The input is never reordered in place.
    expect(Object.keys(shuffled)).toEqual(["g", "b", "a"]);
  });

  it("keeps an own __proto__ key as data and writes no-own-key objects as {}", () => {
    const parsed = JSON.parse('{"z":1,"__proto__":{"x":1}}') as unknown;
    expect(canonicalJson(parsed)).toBe('{\n  "__proto__": {\n    "x": 1\n  },\n  "z": 1\n}\n');
    expect(canonicalJson({ when: new Date(0) })).toBe('{\n  "when": {}\n}\n');
  });
});
