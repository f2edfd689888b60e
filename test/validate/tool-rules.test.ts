/**
 * The tool rules the runtime applies to a connector are the compiler's: the
 * compiler checks a tool file with ajv (schemas/tool.schema.json, then a
 * strict compile of its parameters), the runtime with the ajv-free check in
 * src/protocol/tool-rules.ts. Both run over one corpus here and must report
 * the same rules with the same messages.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveToolFiles } from "../../src/pipeline/validate/tools.js";
import { checkToolDefinition, parametersSchemaProblem, TOOL_RULE_SEVERITIES } from "../../src/protocol/tool-rules.js";
import { ruleRegistry } from "../../src/diagnostics/rules/index.js";
import { repoRoot } from "../build/helpers.js";

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: "object", properties, ...extra });
const tool = (parameters: unknown, extra: Record<string, unknown> = {}) => ({ name: "notion_search", description: "Search pages.", parameters, ...extra });

/** Tool definitions: well formed, and each breaking one rule of the envelope or of the parameters' strict compile. */
const CORPUS: Record<string, unknown> = {
  plain: tool(object({ query: { type: "string", description: "Words to find." } }, { required: ["query"], additionalProperties: false })),
  nested: tool(object({ filter: { type: "object", properties: { kind: { enum: ["page", "database"] } }, additionalProperties: false }, limit: { type: "integer", minimum: 1, maximum: 50 } })),
  unions: tool(object({ cursor: { type: ["string", "null"], minLength: 1 }, tags: { type: "array", items: { type: "string", pattern: "^[a-z]+$" }, uniqueItems: true } })),
  combinators: tool(object({ sort: { type: "string", anyOf: [{ const: "asc" }, { const: "desc" }] }, page: { oneOf: [{ type: "integer" }, { type: "null" }] } })),
  refs: tool(object({ at: { $ref: "#/$defs/date" } }, { $defs: { date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" } } })),
  tuple: tool(object({ range: { type: "array", prefixItems: [{ type: "integer" }, { type: "integer" }], minItems: 2, maxItems: 2 } })),
  notObject: "notion_search",
  missingAll: {},
  extraKey: tool(object({}), { strict: true }),
  nameNotString: { name: 7, description: "x", parameters: object({}) },
  nameBadPattern: tool(object({}), { name: "Notion-Search" }),
  nameTooLong: tool(object({}), { name: `n${"a".repeat(64)}` }),
  descriptionEmpty: tool(object({}), { description: "" }),
  descriptionNotString: tool(object({}), { description: ["x"] }),
  parametersNotObject: tool("object"),
  parametersWithoutProperties: tool({ type: "object" }),
  parametersSchemaKey: tool({ type: "object", properties: {}, $schema: "https://json-schema.org/draft/2020-12/schema" }),
  parametersTypeArray: tool({ type: "array", properties: {} }),
  parametersPropertiesArray: tool({ type: "object", properties: [] }),
  requiredNotArray: tool(object({ a: { type: "string" } }, { required: "a" })),
  requiredNumber: tool(object({ a: { type: "string" } }, { required: [1] })),
  requiredTwice: tool(object({ a: { type: "string" } }, { required: ["a", "a"] })),
  additionalTrue: tool(object({}, { additionalProperties: true })),
  unknownKeyword: tool(object({ a: { type: "string", example: "x" } })),
  badType: tool(object({ a: { type: "text" } })),
  unionType: tool(object({ a: { type: ["string", "number"] } })),
  badPattern: tool(object({ a: { type: "string", pattern: "(" } })),
  badPatternProperty: tool(object({}, { patternProperties: { "[": { type: "string" } } })),
  unresolvedRef: tool(object({ a: { $ref: "#/$defs/missing" } })),
  remoteRef: tool(object({ a: { $ref: "https://example.com/date.json" } })),
  minLengthString: tool(object({ a: { type: "string", minLength: "1" } })),
  enumNotArray: tool(object({ a: { enum: "x" } })),
  itemsNumber: tool(object({ a: { type: "array", items: 3 } })),
  anyOfObject: tool(object({ a: { anyOf: {} } })),
  missingType: tool(object({ a: { maxLength: 3 } })),
  wrongType: tool(object({ a: { type: "number", pattern: "x" } })),
  objectKeywordWithoutType: tool(object({ a: { properties: { b: { type: "string" } } } })),
  format: tool(object({ a: { type: "string", format: "date-time" } })),
  requiredUndeclared: tool(object({ a: { type: "string" } }, { required: ["b"] })),
  openTuple: tool(object({ a: { type: "array", prefixItems: [{ type: "string" }] } })),
  nestedUnknown: tool(object({ a: { type: "object", properties: { b: { type: "string", nullable: true, deprecatedSince: "2" } } } })),
  refCycleSelf: tool(object({ a: { $ref: "#/definitions/loop" } }, { definitions: { loop: { $ref: "#/definitions/loop" } } })),
  refCyclePair: tool(object({ a: { $ref: "#/$defs/x" } }, { $defs: { x: { $ref: "#/$defs/y", title: "X" }, y: { $ref: "#/$defs/x", $comment: "back" } } })),
  refCycleProperty: tool(object({ a: { $ref: "#/properties/a" } })),
  refCycleLong: tool(object({ a: { $ref: "#/$defs/d0" } }, { $defs: Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`d${index}`, { $ref: `#/$defs/d${(index + 1) % 8}` }])) })),
  refChainEnds: tool(object({ a: { $ref: "#/$defs/x" } }, { $defs: { x: { $ref: "#/$defs/y" }, y: { type: "string" } } })),
  recursiveTree: tool(object({ root: { $ref: "#/$defs/node" } }, { $defs: { node: { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } } } } })),
  refBadEscape: tool(object({ a: { $ref: "#/$defs/%zz" } })),
};

function compilerFindings(definition: unknown): string[] {
  const name = typeof definition === "object" && definition !== null && typeof (definition as { name?: unknown }).name === "string" ? (definition as { name: string }).name : "notion_search";
  const text = `${JSON.stringify(definition, null, 2)}\n`;
  const file = { path: `schemas/tools/${name}.json`, text, contentHash: createHash("sha256").update(text).digest("hex") };
  return resolveToolFiles([file], (_key, compute) => compute(), () => false).diagnostics.map((diagnostic) => `${diagnostic.ruleId}: ${diagnostic.message}`).sort();
}

function runtimeFindings(definition: unknown): string[] {
  return checkToolDefinition(definition).map((found) => `${found.ruleId}: ${found.message}`).sort();
}

describe("the runtime's tool check agrees with the compiler's", () => {
  for (const [name, definition] of Object.entries(CORPUS)) {
    it(name, () => {
      expect(runtimeFindings(definition)).toEqual(compilerFindings(definition));
    });
  }

  it("accepts every tool and namespace tool the embedded project declares, as the compiler does", () => {
    const files = [
      ...readdirSync(join(repoRoot, "schemas/tools")).filter((file) => file !== "order.json").map((file) => join(repoRoot, "schemas/tools", file)),
      ...readdirSync(join(repoRoot, "schemas/namespaces"), { recursive: true, encoding: "utf8" })
        .filter((file) => file.includes("tools/") && file.endsWith(".json"))
        .map((file) => join(repoRoot, "schemas/namespaces", file)),
    ];
    expect(files.length).toBeGreaterThan(8);
    for (const file of files) expect(checkToolDefinition(JSON.parse(readFileSync(file, "utf8"))), file).toEqual([]);
  });

  it("reports the first problem of a parameters schema as the strict compile words it", () => {
    expect(parametersSchemaProblem({ type: "object", properties: { a: { type: "string", minLength: 1 } } })).toBeUndefined();
    expect(parametersSchemaProblem({ type: "object", properties: { a: { type: "string", foo: 1 } } })).toBe('strict mode: unknown keyword: "foo"');
  });

  it("names a $ref cycle of schemas that only refer onward, at the $ref that closes it, instead of the compiler's stack overflow", () => {
    const definition = CORPUS["refCycleSelf"];
    const text = `${JSON.stringify(definition, null, 2)}\n`;
    const file = { path: "schemas/tools/notion_search.json", text, contentHash: createHash("sha256").update(text).digest("hex") };
    const [finding, ...rest] = resolveToolFiles([file], (_key, compute) => compute(), () => false).diagnostics;
    expect(rest).toEqual([]);
    // The loop's own `$ref`, the last of the two: where the cycle closes.
    const lines = text.split("\n");
    const loopLine = lines.findLastIndex((line) => line.includes('"$ref": "#/definitions/loop"')) + 1;
    expect([finding?.ruleId, finding?.line, finding?.column, finding?.message]).toEqual([
      "tool/invalid-parameters",
      loopLine,
      (lines[loopLine - 1] ?? "").indexOf('"#/definitions/loop"') + 1,
      "Unexpected parameters schema: a $ref cycle (#/definitions/loop → #/definitions/loop) in which each schema only refers to the next, so it never says what a value is; expected the cycle to pass through a schema with keywords of its own, as a tree's node has type and properties",
    ]);
    expect(runtimeFindings(CORPUS["refCycleLong"])).toEqual([
      "tool/invalid-parameters: Unexpected parameters schema: a $ref cycle (#/$defs/d0 → #/$defs/d1 → #/$defs/d2 → #/$defs/d3 → #/$defs/d4 → … (8 references)) in which each schema only refers to the next, so it never says what a value is; expected the cycle to pass through a schema with keywords of its own, as a tree's node has type and properties",
    ]);
    expect(runtimeFindings(CORPUS["recursiveTree"])).toEqual([]);
  });

  it("gives each rule the severity the rule registry gives it", () => {
    for (const [ruleId, severity] of Object.entries(TOOL_RULE_SEVERITIES)) expect(ruleRegistry[ruleId as keyof typeof ruleRegistry].severity, ruleId).toBe(severity);
  });
});
