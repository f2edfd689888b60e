import { describe, expect, it } from "vitest";
import { MAX_INDENT, MAX_NESTING, tooDeepLine } from "../../src/pipeline/parse/body.js";

/** The rule as one multiline pattern over the whole body, the way it reads: the answer tooDeepLine must give. */
const PATTERN = new RegExp(`^(?:[ \\t]*(?:>|(?:[-*+]|\\d{1,9}[.)])(?=[ \\t]|$))){${MAX_NESTING + 1}}|^[ \\t]{${MAX_INDENT + 1}}`, "m");
function expected(body: string): number | undefined {
  const match = PATTERN.exec(body);
  return match ? body.slice(0, match.index).split("\n").length : undefined;
}

/** A small deterministic generator: the same bodies on every run. */
function generator(seed: number): (limit: number) => number {
  let state = seed;
  return (limit) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % limit;
  };
}

const PIECES = [" ", "\t", ">", "-", "*", "+", "1.", "2)", "1234567890.", "\n", "a", "- ", "> ", "1. ", "  ", "text"];

describe("tooDeepLine", () => {
  it("finds the first line nested deeper than the limit, by lists, quotes or indentation", () => {
    expect(tooDeepLine(`intro\n${"> ".repeat(MAX_NESTING + 1)}deep\n`)).toBe(2);
    expect(tooDeepLine(`intro\n${"> ".repeat(MAX_NESTING)}deep enough\n`)).toBeUndefined();
    expect(tooDeepLine(`a\nb\n${"- ".repeat(MAX_NESTING + 1)}x`)).toBe(3);
    expect(tooDeepLine(`${" ".repeat(MAX_INDENT + 1)}x`)).toBe(1);
    expect(tooDeepLine(`${" ".repeat(MAX_INDENT)}x`)).toBeUndefined();
    expect(tooDeepLine("")).toBeUndefined();
  });

  it("starts lines where the multiline pattern does: after a carriage return or a line or paragraph separator too", () => {
    for (const separator of ["\r", "\r\n", "\u2028", "\u2029"]) {
      const body = `first${separator}${"> ".repeat(MAX_NESTING + 1)}deep\nlast`;
      expect(tooDeepLine(body)).toBe(expected(body));
      expect(tooDeepLine(body)).not.toBeUndefined();
    }
  });

  it("gives the pattern's answer on thousands of generated bodies, line feeds only and mixed", () => {
    const next = generator(7);
    for (let round = 0; round < 20_000; round++) {
      const parts: string[] = [];
      for (let count = next(60); count > 0; count--) parts.push(PIECES[next(PIECES.length)] ?? "");
      let body = parts.join("");
      if (next(8) === 0) body = `x\n${"> ".repeat(MAX_NESTING + next(3) - 1)}${body}`;
      if (next(8) === 0) body = `${body}\n${" ".repeat(MAX_INDENT - 1 + next(3))}y`;
      if (next(12) === 0) body = `${body}${["\r", "\u2028", "\u2029"][next(3)] ?? ""}${"- ".repeat(MAX_NESTING + next(3) - 1)}z`;
      expect(tooDeepLine(body), JSON.stringify(body)).toBe(expected(body));
    }
  });
});
