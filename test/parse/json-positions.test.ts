/**
 * A JSON source that does not parse is `source/invalid-json` at the first
 * character that breaks the grammar, whether or not the engine's message
 * names a position (Node 22 names none for an unexpected token).
 */
import { describe, expect, it } from "vitest";
import { parseJsonSource } from "../../src/pipeline/parse/positioned-source.js";
import { jsonErrorOffset } from "../../src/pipeline/parse/json-error-offset.js";

const at = (text: string): unknown => {
  const found = parseJsonSource({ path: "schemas/tools/read.json", text, contentHash: "x" }) as { ruleId?: string; line?: number; column?: number; message?: string };
  return { ruleId: found.ruleId, at: `${found.line}:${found.column}`, message: found.message };
};

describe("source/invalid-json positions", () => {
  it("points at a trailing comma's closing bracket, a missing value and a misspelt literal", () => {
    const tool = '{\n  "name": "read",\n  "parameters": {\n    "type": "object",\n    "required": ["path",]\n  }\n}\n';
    expect(at(tool)).toEqual({ ruleId: "source/invalid-json", at: "5:25", message: "Unexpected JSON syntax: Unexpected token ']'" });
    expect(at('{"a": ,}')).toEqual({ ruleId: "source/invalid-json", at: "1:7", message: "Unexpected JSON syntax: Unexpected token ','" });
    expect(at('{"strict": tru}')).toMatchObject({ at: "1:15" });
    // A token that is no printable character is shown escaped, never as the raw byte.
    expect(at('{"a": \u001b[31m}')).toEqual({ ruleId: "source/invalid-json", at: "1:7", message: "Unexpected JSON syntax: Unexpected token '\\u001b'" });
  });

  it("finds the offset the engine names wherever it names one", () => {
    for (const text of ['{"a": 1,}', "[1 2]", '{"a" 1}', '{"a": "x\\q"}', '{"a": "\\u12G4"}', '{"a": 01}', "{} x", '{"a": -}', '"abc', '{"a": 1e}']) {
      let named: number | undefined;
      try {
        JSON.parse(text);
      } catch (error) {
        named = Number(/position (\d+)/.exec((error as Error).message)?.[1]);
      }
      expect(jsonErrorOffset(text), text).toBe(named);
    }
  });
});
