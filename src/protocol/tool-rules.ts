/**
 * The tool rules both sides apply: the compiler to a project's tool and
 * namespace files (as diagnostics at positions), the runtime to a connector a
 * host registers on a live session (as a refusal). Dependency-free, because
 * the runtime loads without the compiler's JSON Schema library: the checks
 * the compiler runs with ajv (schemas/tool.schema.json, and a strict compile
 * of each parameters schema) are written out here message for message, and
 * test/protocol/tool-rules.test.ts runs both over one corpus.
 */
import { lacksTrigger } from "./description-trigger.js";
import { didYouMean } from "./suggest.js";
import { isRecord } from "./records.js";
import { firstCharacterNotInXml } from "./xml-escape.js";
import { messageOf } from "./error-message.js";

/** The rules a tool or namespace is checked by, with the severity the rule registry gives each. */
export const TOOL_RULE_SEVERITIES = {
  "tool/invalid": "error",
  "tool/invalid-parameters": "error",
  "namespace/invalid": "error",
  "namespace/description": "error",
  "namespace/description-trigger": "warning",
  "namespace/too-many-tools": "warning",
  "namespace/tool-name-prefix": "warning",
  "namespace/tool-name-duplicate": "error",
} as const;

export type ToolRuleId = keyof typeof TOOL_RULE_SEVERITIES;

/** One finding: the rule, its severity, where (a JSON pointer into the checked value) and the rule's message. */
export interface ToolRuleProblem {
  ruleId: ToolRuleId;
  severity: "error" | "warning";
  path: string;
  message: string;
}

/** OpenAI's guidance for tool search: "fewer than 10 functions" per namespace. */
export const MAX_TOOLS_PER_NAMESPACE = 9;
export const MAX_NAMESPACE_DESCRIPTION_CODE_POINTS = 1024;
export const TOOL_NAME_PATTERN = "^[a-z][a-z0-9_]*$";
export const TOOL_NAME_MAX_LENGTH = 64;
export const NAMESPACE_NAME_PATTERN_SOURCE = "^[a-z][a-z0-9]*(_[a-z0-9]+)*$";
export const NAMESPACE_NAME_MAX_LENGTH = 32;

export function problem(ruleId: ToolRuleId, path: string, message: string): ToolRuleProblem {
  return { ruleId, severity: TOOL_RULE_SEVERITIES[ruleId], path, message };
}

// ---- namespace rules ------------------------------------------------------------------------

/** The skill description rules on a namespace's description (it is a trigger in a catalog too). */
export function namespaceDescriptionProblem(description: string): { ruleId: "namespace/description" | "namespace/description-trigger"; message: string } | undefined {
  if (description.trim() === "") return { ruleId: "namespace/description", message: "Unexpected blank description, expected the task that needs the namespace in direct terms" };
  const length = [...description].length;
  if (length > MAX_NAMESPACE_DESCRIPTION_CODE_POINTS) {
    return { ruleId: "namespace/description", message: `Unexpected description of ${length} code points, expected at most ${MAX_NAMESPACE_DESCRIPTION_CODE_POINTS}` };
  }
  if (/[<>]/.test(description)) return { ruleId: "namespace/description", message: "Unexpected angle bracket in description, expected plain text without < or > (the namespace catalog is XML)" };
  const notInXml = firstCharacterNotInXml(description);
  if (notInXml) return { ruleId: "namespace/description", message: `Unexpected ${notInXml.name} in description, expected plain text (the namespace catalog is XML, which cannot hold it even escaped)` };
  if (lacksTrigger(description)) {
    return {
      ruleId: "namespace/description-trigger",
      message: `Unexpected description that says what the namespace is but not when to load it, expected the matching task in direct terms ("Use for …", "Use when …")`,
    };
  }
  return undefined;
}

export function tooManyToolsMessage(namespace: string, count: number): string {
  return `Unexpected ${count} tools in namespace \`${namespace}\`, expected fewer than 10 (OpenAI's recommendation per namespace): split it into namespaces that load on their own`;
}

export function toolNamePrefixMessage(namespace: string, tool: string): string {
  return `Unexpected tool \`${tool}\` in namespace \`${namespace}\`, expected a name starting with \`${namespace}_\` (Anthropic's tool search sees one flat list and matches names)`;
}

/** `owner` names where the name is already used: "the stable tool set", "namespace `drive`". */
export function duplicateToolNameMessage(tool: string, namespace: string, owner: string): string {
  return `Unexpected tool \`${tool}\` in namespace \`${namespace}\`, already in ${owner}; expected each tool name once across all tools`;
}

// ---- schemas/tool.schema.json, as schemaDiagnostics words ajv's errors ------------------------

/**
 * A tool definition against schemas/tool.schema.json, then its parameters
 * schema by the strict compile's rules: the `tool/invalid` and
 * `tool/invalid-parameters` findings, with pointers under `at`.
 */
export function checkToolDefinition(input: unknown, at = ""): ToolRuleProblem[] {
  const invalid = (path: string, message: string) => problem("tool/invalid", `${at}${path}`, message);
  const { record: value, problems } = objectProblems(input, ["name", "description", "parameters"], "the tool", invalid);
  if (value === undefined) return problems;
  problems.push(...stringProblems(value, "name", { maxLength: TOOL_NAME_MAX_LENGTH, pattern: TOOL_NAME_PATTERN }, invalid));
  problems.push(...stringProblems(value, "description", { minLength: 1 }, invalid));
  if ("parameters" in value) problems.push(...parametersEnvelopeProblems(value["parameters"], invalid));
  if (problems.length > 0) return problems;
  const parametersProblem = parametersSchemaProblem(value["parameters"]);
  return parametersProblem === undefined ? [] : [problem("tool/invalid-parameters", `${at}/parameters`, `Unexpected parameters schema: ${parametersProblem.split("\n")[0] ?? parametersProblem}`)];
}

type Report = (path: string, message: string) => ToolRuleProblem;

/**
 * An object with exactly these keys, as schemaDiagnostics words ajv's
 * `type`, `required` and `additionalProperties` errors (`what` names the
 * object: "the tool"); `record` is the object when it is one.
 */
export function objectProblems(value: unknown, keys: readonly string[], what: string, report: Report): { record?: Record<string, unknown>; problems: ToolRuleProblem[] } {
  if (!isRecord(value)) return { problems: [report("", `Unexpected value at ${what}: it must be object`)] };
  const problems: ToolRuleProblem[] = [];
  const subject = what.replace(/^the /, "");
  for (const key of keys) if (!(key in value)) problems.push(report("", `Unexpected ${subject} without \`${key}\`, expected it to be present`));
  for (const key of Object.keys(value)) {
    if (keys.includes(key)) continue;
    const hint = didYouMean(key, keys);
    problems.push(report(`/${escapePointer(key)}`, `Unexpected key \`${key}\` in ${what}, expected ${hint === "" ? `one of ${keys.map((known) => `\`${known}\``).join(", ")}` : "a known key"}${hint}`));
  }
  return { record: value, problems };
}

/** A string property's `type`, `minLength`, `maxLength` and `pattern` errors, worded the same way (nothing when absent). */
export function stringProblems(record: Record<string, unknown>, key: string, rules: { minLength?: number; maxLength?: number; pattern?: string }, report: Report): ToolRuleProblem[] {
  if (!(key in record)) return [];
  const value = record[key];
  const at = (message: string) => report(`/${escapePointer(key)}`, `Unexpected value at \`${key}\`: it ${message}`);
  if (typeof value !== "string") return [at("must be string")];
  const length = [...value].length;
  const problems: ToolRuleProblem[] = [];
  if (rules.maxLength !== undefined && length > rules.maxLength) problems.push(at(`must NOT have more than ${rules.maxLength} characters`));
  if (rules.minLength !== undefined && length < rules.minLength) problems.push(at(`must NOT have fewer than ${rules.minLength} characters`));
  if (rules.pattern !== undefined && !new RegExp(rules.pattern, "u").test(value)) problems.push(at(`must match pattern "${rules.pattern}"`));
  return problems;
}

function parametersEnvelopeProblems(parameters: unknown, invalid: Report): ToolRuleProblem[] {
  if (!isRecord(parameters)) return [invalid("/parameters", "Unexpected value at `parameters`: it must be object")];
  const problems: ToolRuleProblem[] = [];
  for (const key of ["type", "properties"]) {
    if (!(key in parameters)) problems.push(invalid("/parameters", `Unexpected \`parameters\` without \`${key}\`, expected it to be present`));
  }
  for (const key of Object.keys(parameters)) {
    if (key === "$schema" || key === "$id") problems.push(invalid(`/parameters/${escapePointer(key)}`, `Unexpected key \`${key}\` in \`parameters\`: it is reserved`));
  }
  if ("type" in parameters && parameters["type"] !== "object") problems.push(invalid("/parameters/type", `Unexpected value ${JSON.stringify(parameters["type"])} at \`parameters.type\`, expected "object"`));
  if ("properties" in parameters && !isRecord(parameters["properties"])) problems.push(invalid("/parameters/properties", "Unexpected value at `parameters.properties`: it must be object"));
  if ("required" in parameters) {
    const required = parameters["required"];
    if (!Array.isArray(required)) problems.push(invalid("/parameters/required", "Unexpected value at `parameters.required`: it must be array"));
    else {
      required.forEach((item, index) => {
        if (typeof item !== "string") problems.push(invalid(`/parameters/required/${index}`, `Unexpected value at \`parameters.required[${index}]\`: it must be string`));
      });
      const duplicate = firstDuplicate(required);
      if (duplicate !== undefined && required.every((item) => typeof item === "string")) {
        problems.push(invalid(`/parameters/required/${duplicate[1]}`, `Unexpected ${JSON.stringify(required[duplicate[1]])} listed twice at \`parameters.required\`, expected each item once`));
      }
    }
  }
  if ("additionalProperties" in parameters && parameters["additionalProperties"] !== false) {
    problems.push(invalid("/parameters/additionalProperties", `Unexpected value ${JSON.stringify(parameters["additionalProperties"])} at \`parameters.additionalProperties\`, expected false`));
  }
  return problems;
}

/** ajv's uniqueItems names the later index first: "items ## 1 and 0 are identical". */
function firstDuplicate(items: readonly unknown[]): [number, number] | undefined {
  for (let later = items.length - 1; later > 0; later--) {
    for (let earlier = later - 1; earlier >= 0; earlier--) if (items[earlier] === items[later]) return [earlier, later];
  }
  return undefined;
}

// ---- a parameters schema, by the compiler's strict compile ---------------------------------

const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "null", "object", "array"]);

/** What ajv requires of each keyword's value (its `schemaType`), and the instance type a typed keyword applies to. */
const KEYWORDS: ReadonlyMap<string, { value?: readonly string[]; applies?: "number" | "string" | "array" | "object" }> = new Map([
  ...["$schema", "$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveAnchor", "$recursiveRef", "$vocabulary", "$comment", "$defs", "definitions", "id"].map((keyword) => [keyword, {}] as const),
  ["$ref", { value: ["string"] }],
  ...["title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples", "contentEncoding", "contentMediaType", "contentSchema", "nullable"].map((keyword) => [keyword, {}] as const),
  ["type", {}],
  ["const", {}],
  ["enum", { value: ["array"] }],
  ["not", { value: ["object", "boolean"] }],
  ...["anyOf", "oneOf", "allOf"].map((keyword) => [keyword, { value: ["array"] }] as const),
  ...["if", "then", "else"].map((keyword) => [keyword, { value: ["object", "boolean"] }] as const),
  ...["maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf"].map((keyword) => [keyword, { value: ["number"], applies: "number" }] as const),
  ...["maxLength", "minLength"].map((keyword) => [keyword, { value: ["number"], applies: "string" }] as const),
  ["pattern", { value: ["string"], applies: "string" }],
  ["format", { value: ["string"], applies: "string" }],
  ...["maxItems", "minItems", "maxContains", "minContains"].map((keyword) => [keyword, { value: ["number"], applies: "array" }] as const),
  ["uniqueItems", { value: ["boolean"], applies: "array" }],
  ["items", { value: ["object", "boolean"], applies: "array" }],
  ["prefixItems", { value: ["array"], applies: "array" }],
  ["contains", { value: ["object", "boolean"], applies: "array" }],
  ["unevaluatedItems", { value: ["boolean", "object"], applies: "array" }],
  ...["maxProperties", "minProperties"].map((keyword) => [keyword, { value: ["number"], applies: "object" }] as const),
  ["required", { value: ["array"], applies: "object" }],
  ["properties", { value: ["object"], applies: "object" }],
  ["patternProperties", { value: ["object"], applies: "object" }],
  ["additionalProperties", { value: ["boolean", "object"], applies: "object" }],
  ["propertyNames", { value: ["object", "boolean"], applies: "object" }],
  ["dependentRequired", { value: ["object"], applies: "object" }],
  ["dependentSchemas", { value: ["object"], applies: "object" }],
  ["dependencies", { value: ["object"], applies: "object" }],
  ["unevaluatedProperties", { value: ["boolean", "object"], applies: "object" }],
]);

/** Keywords whose subschemas check the same instance: they inherit the parent's type. */
const IN_PLACE = ["allOf", "anyOf", "oneOf", "not", "if", "then", "else"];

class SchemaProblem extends Error {}

/**
 * Why the compiler's strict compile (ajv 2020-12, strict, no formats
 * registered) refuses a parameters schema, as ajv words it; undefined when
 * it compiles. The first problem only, as the compiler reports it.
 */
export function parametersSchemaProblem(schema: unknown): string | undefined {
  const cycle = refCycle(schema);
  if (cycle !== undefined) return cycle.message;
  try {
    checkSchema(schema, "#", [], schema);
    return undefined;
  } catch (error) {
    if (error instanceof SchemaProblem) return error.message;
    throw error;
  }
}

function fail(message: string): never {
  throw new SchemaProblem(message);
}

function checkSchema(schema: unknown, path: string, inherited: readonly string[], root: unknown): void {
  if (typeof schema === "boolean") return;
  if (!isRecord(schema)) fail("schema must be object or boolean");
  for (const key of Object.keys(schema)) if (!KEYWORDS.has(key)) fail(`strict mode: unknown keyword: ${JSON.stringify(key)}`);
  const types = schemaTypes(schema["type"], path) ?? inherited;
  const ref = schema["$ref"];
  if (ref !== undefined) {
    if (typeof ref !== "string") fail('$ref value must be ["string"]');
    if (ref.split("/").some((segment) => safeDecode(segment) === undefined)) fail("URI contains malformed percent-encoding.");
    if (resolvePointer(root, ref) === undefined) fail(`can't resolve reference ${ref} from id #`);
  }
  for (const [keyword, value] of Object.entries(schema)) {
    const rule = KEYWORDS.get(keyword);
    if (rule?.value !== undefined && !rule.value.includes(jsonTypeOf(value))) fail(`${keyword} value must be ${JSON.stringify(rule.value)}`);
    if (rule?.applies !== undefined && !types.includes(rule.applies) && !(rule.applies === "number" && types.includes("integer"))) {
      fail(`strict mode: missing type ${JSON.stringify(rule.applies)} for keyword ${JSON.stringify(keyword)} at ${JSON.stringify(path)} (strictTypes)`);
    }
  }
  if (typeof schema["pattern"] === "string") compileRegExp(schema["pattern"]);
  if (typeof schema["format"] === "string") fail(`unknown format ${JSON.stringify(schema["format"])} ignored in schema at path ${JSON.stringify(path)}`);
  const properties = isRecord(schema["properties"]) ? schema["properties"] : {};
  if (Array.isArray(schema["required"])) {
    for (const name of schema["required"]) {
      if (typeof name !== "string" || !Object.hasOwn(properties, name)) fail(`strict mode: required property ${JSON.stringify(String(name))} is not defined at ${JSON.stringify(path)} (strictRequired)`);
    }
  }
  const prefixItems = schema["prefixItems"];
  if (Array.isArray(prefixItems)) {
    const length = prefixItems.length;
    const fullTuple = schema["minItems"] === length && (schema["maxItems"] === length || schema["items"] === false);
    if (!fullTuple) fail(`strict mode: "prefixItems" is ${length}-tuple, but minItems or maxItems/items are not specified or different at path ${JSON.stringify(path)}`);
  }
  for (const [name, subschema] of Object.entries(properties)) checkSchema(subschema, `${path}/properties/${escapePointer(name)}`, [], root);
  if (isRecord(schema["patternProperties"])) {
    for (const [pattern, subschema] of Object.entries(schema["patternProperties"])) {
      compileRegExp(pattern);
      checkSchema(subschema, `${path}/patternProperties/${escapePointer(pattern)}`, [], root);
    }
  }
  for (const keyword of ["additionalProperties", "items", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems"]) {
    if (keyword in schema) checkSchema(schema[keyword], `${path}/${keyword}`, keyword === "propertyNames" ? ["string"] : [], root);
  }
  if (Array.isArray(prefixItems)) prefixItems.forEach((subschema, index) => checkSchema(subschema, `${path}/prefixItems/${index}`, [], root));
  if (isRecord(schema["dependentSchemas"])) {
    for (const [name, subschema] of Object.entries(schema["dependentSchemas"])) checkSchema(subschema, `${path}/dependentSchemas/${escapePointer(name)}`, types, root);
  }
  for (const keyword of IN_PLACE) {
    const value = schema[keyword];
    if (Array.isArray(value)) value.forEach((subschema, index) => checkSchema(subschema, `${path}/${keyword}/${index}`, types, root));
    else if (value !== undefined) checkSchema(value, `${path}/${keyword}`, types, root);
  }
}

/** The schema's own `type` as a list; undefined without one. A union beyond one type and null is refused, as strictTypes does. */
function schemaTypes(type: unknown, path: string): readonly string[] | undefined {
  if (type === undefined) return undefined;
  const types = Array.isArray(type) ? type : [type];
  if (!types.every((item): item is string => typeof item === "string" && JSON_TYPES.has(item))) fail(`type must be JSONType or JSONType[]: ${types.join(",")}`);
  if (types.filter((item) => item !== "null").length > 1) fail(`strict mode: use allowUnionTypes to allow union type keyword at ${JSON.stringify(path)} (strictTypes)`);
  return types;
}

function compileRegExp(pattern: string): void {
  try {
    new RegExp(pattern, "u");
  } catch (error) {
    fail(messageOf(error));
  }
}

/** Keywords that say nothing about a value: a schema with `$ref` and only these refers onward and nothing more. */
const ANNOTATIONS = new Set(["$ref", "$schema", "$anchor", "$dynamicAnchor", "$vocabulary", "$comment", "$defs", "definitions", "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples", "contentEncoding", "contentMediaType"]);
/** Keywords whose value is a subschema, a list of them or a map of them, as the compiler walks a schema (never into `$defs`: a definition counts once referenced). */
const SINGLE = ["items", "contains", "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "not", "if", "then", "else", "contentSchema"];
const LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const MAPS = ["properties", "patternProperties", "dependentSchemas", "dependencies"];
const SHOWN_CYCLE = 6;

/**
 * A `$ref` cycle the schema reaches in which every schema only refers to
 * the next one (`"loop": {"$ref": "#/$defs/loop"}`): it never says what a
 * value is, and the compiler would follow it forever. Named by its
 * references, at the `$ref` where the cycle closes (keys below the schema).
 * A recursive schema whose cycle passes through a schema of its own, such as
 * a tree's node with `type` and `properties`, has none.
 */
export function refCycle(root: unknown): { message: string; path: Array<string | number> } | undefined {
  const settled = new Set<unknown>();
  const walked = new Set<unknown>();
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const schema = pending.pop();
    if (!isRecord(schema) || walked.has(schema)) continue;
    walked.add(schema);
    if (typeof schema["$ref"] === "string") {
      // Follow the references while each target only refers onward.
      const chain: Array<{ node: Record<string, unknown>; ref: string }> = [];
      let ref: string = schema["$ref"];
      for (;;) {
        const target = resolvePointer(root, ref);
        if (!isRecord(target) || typeof target["$ref"] !== "string" || settled.has(target) || !Object.keys(target).every((key) => ANNOTATIONS.has(key))) {
          pending.push(target);
          break;
        }
        const seen = chain.findIndex((link) => link.node === target);
        if (seen !== -1) {
          const cycle = [...chain.slice(seen).map((link) => link.ref), ref];
          const shown = cycle.length > SHOWN_CYCLE ? [...cycle.slice(0, SHOWN_CYCLE - 1), `… (${cycle.length - 1} references)`] : cycle;
          return {
            message: `a $ref cycle (${shown.join(" → ")}) in which each schema only refers to the next, so it never says what a value is; expected the cycle to pass through a schema with keywords of its own, as a tree's node has type and properties`,
            path: [...pointerKeys(chain[seen]?.ref ?? ref), "$ref"],
          };
        }
        chain.push({ node: target, ref });
        ref = target["$ref"] as string;
      }
      for (const link of chain) settled.add(link.node);
    }
    for (const keyword of SINGLE) pending.push(schema[keyword]);
    for (const keyword of LISTS) if (Array.isArray(schema[keyword])) pending.push(...(schema[keyword] as unknown[]));
    for (const keyword of MAPS) if (isRecord(schema[keyword])) pending.push(...Object.values(schema[keyword] as Record<string, unknown>));
  }
  return undefined;
}

/** The keys a local reference (`#/$defs/x`) names, decoded. */
function pointerKeys(ref: string): string[] {
  return ref === "#" || !ref.startsWith("#/") ? [] : ref.slice(2).split("/").map((segment) => (safeDecode(segment) ?? segment).replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** A pointer segment decoded, or undefined when its percent-encoding is malformed. */
function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** A reference inside the same schema (`#`, `#/$defs/x`); anything else cannot resolve (the compiler adds no other schema). */
function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const segment of ref.slice(2).split("/")) {
    const decoded = safeDecode(segment);
    if (decoded === undefined) return undefined;
    const key = decoded.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(key)) node = node[Number(key)];
    else if (isRecord(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "object" ? "object" : typeof value;
}


export function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}
