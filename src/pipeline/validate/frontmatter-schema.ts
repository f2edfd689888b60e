import type { ErrorObject, ValidateFunction } from "ajv";
import { packageSchemaUrl } from "../../package-paths.js";
import { packageSchemaProperties, packageSchemaValidator } from "./schema-validators.js";
import type { Range } from "../../diagnostics/diagnostic.js";
import type { LineIndex } from "../parse/positions.js";
import { quoted } from "../../diagnostics/quote.js";
import { didYouMean, suggest } from "../../protocol/suggest.js";
import { allowedToolsProblem } from "./allowed-tools.js";
import { HOST_KEYS, hostKeyOf, isHostKey } from "./host-keys.js";
import { scalarCharacterOffset } from "../parse/scalar-offsets.js";
import type { YamlProblem, YamlTree } from "../parse/yaml-tree.js";
import { DESIGN_FIELDS, portableLabel, type DesignField } from "../parse/design-fields.js";
import type { Profile } from "./lint-config.js";

/**
 * Structure comes from schemas/skill-manifest.schema.json (the file editors
 * use); this module turns ajv's errors into rule ids, messages and ranges.
 */
export const SKILL_MANIFEST_SCHEMA_URL = packageSchemaUrl("skill-manifest");

let compiled: { validate: ValidateFunction; knownKeys: string[] } | undefined;

/** Compiled once per process: strict, all errors, no coercion, no defaults. */
function manifestValidator(): { validate: ValidateFunction; knownKeys: string[] } {
  if (!compiled) {
    // Host keys are recognised but never suggested for a near miss: the suggestions are the manifest's own keys.
    compiled = { validate: packageSchemaValidator("skill-manifest"), knownKeys: packageSchemaProperties("skill-manifest").filter((key) => !isHostKey(key)) };
  }
  return compiled;
}

const KEY_HINTS: Record<string, string> = {
  name: "the skill's name, equal to its folder name",
  type: `"workflow" or "reference"`,
  description: `a trigger condition such as "TRIGGER when …" or "Use when …"`,
};

/**
 * Validates a frontmatter value against the manifest schema. `opening` is the
 * range of the opening `---`, where findings about the whole mapping point.
 * `tree` is the manifest's view: `portableFields` were written under metadata
 * and stand at the top level, and messages name them as written.
 */
export function schemaProblems(tree: YamlTree, opening: Range, index: LineIndex, portableFields: readonly DesignField[] = [], profile: Profile = "gamma"): YamlProblem[] {
  const { validate, knownKeys: schemaKeys } = manifestValidator();
  // Under agentskills the design's fields belong under metadata (skill/portable-manifest): they are not keys to suggest at the top level.
  const knownKeys = profile === "agentskills" ? schemaKeys.filter((key) => !DESIGN_FIELDS.some((spelling) => spelling.field === key)) : schemaKeys;
  if (validate(tree.value)) return [];
  const problems: YamlProblem[] = [];
  const reported = new Set<string>();
  for (const error of foldAlternatives(validate.errors ?? [])) {
    const problem = describeSchemaError(error, tree, opening, index, knownKeys, portableFields, profile);
    if (!problem) continue;
    // ajv can report several keywords for one value (pattern and maxLength); one finding per value and rule is enough.
    const key = `${error.instancePath}|${problem.ruleId}|${problem.message}`;
    const perValue = `${error.instancePath}|${problem.ruleId}`;
    if (reported.has(key) || (problem.ruleId === "skill/name-format" && reported.has(perValue))) continue;
    reported.add(key);
    reported.add(perValue);
    problems.push(problem);
  }
  return problems;
}

/**
 * One finding per value the schema gives alternatives for (`anyOf`, such as
 * argument-hint's "a string or a list of strings"): ajv reports every
 * branch's failure and the `anyOf` itself. The branch whose type the value
 * has, the one whose errors reach into the value, is the one the author
 * meant, and only its errors stay ("argument-hint[0]" is a mapping); a value
 * of no branch's type gets one error naming every type the branches allow.
 */
function foldAlternatives(errors: readonly ErrorObject[]): ErrorObject[] {
  let kept = [...errors];
  for (const alternatives of errors.filter((error) => error.keyword === "anyOf")) {
    const prefix = `${alternatives.schemaPath}/`;
    const branchOf = (error: ErrorObject): string | undefined => (error.schemaPath.startsWith(prefix) ? error.schemaPath.slice(prefix.length).split("/")[0] : undefined);
    const branches = kept.filter((error) => branchOf(error) !== undefined);
    const inside = branches.find((error) => error.instancePath.length > alternatives.instancePath.length);
    if (inside !== undefined) {
      const meant = branchOf(inside);
      kept = kept.filter((error) => error !== alternatives && (branchOf(error) === undefined || branchOf(error) === meant));
      continue;
    }
    const types = branches.filter((error) => error.keyword === "type" && error.instancePath === alternatives.instancePath).map((error) => String((error.params as { type: unknown }).type));
    const at = kept.indexOf(alternatives);
    kept = kept.filter((error) => error !== alternatives && branchOf(error) === undefined);
    if (types.length > 0) kept.splice(Math.min(at, kept.length), 0, { ...alternatives, keyword: "type", params: { type: types.join(",") } });
  }
  return kept;
}

function describeSchemaError(error: ErrorObject, tree: YamlTree, opening: Range, index: LineIndex, knownKeys: string[], portableFields: readonly DesignField[], profile: Profile): YamlProblem | undefined {
  const path = error.instancePath;
  const range = tree.valueRanges.get(path) ?? opening;
  const value = valueAt(tree.value, path);
  const params = error.params as Record<string, unknown>;
  const label = labelOf(path, portableFields);
  const portableKey = PORTABLE_LIST_KEYS.get(path);
  if (portableKey && error.keyword === "type") {
    // A design list under metadata is one string: a YAML list there is read by no Agent Skills tool as a list.
    return { ruleId: "skill/value-type", range, message: `Unexpected ${describeValue(value, sourceOf(range, index))} for ${quoted(label)}, expected one string of names separated by spaces, such as "a b"` };
  }
  switch (error.keyword) {
    case "required": {
      const missing = String(params["missingProperty"]);
      const where = path === "" ? "frontmatter" : quoted(label);
      return { ruleId: "skill/missing-key", range: path === "" ? opening : range, message: `Unexpected ${where} without "${missing}", expected ${KEY_HINTS[missing] ?? "the key to be present"}` };
    }
    case "additionalProperties": {
      const extra = String(params["additionalProperty"]);
      const keyRange = tree.keyRanges.get(`${path}/${extra.replace(/~/g, "~0").replace(/\//g, "~1")}`) ?? range;
      // A host's key is as likely a near miss as the manifest's own (`user_invocable`, `Version`).
      const hint = didYouMean(extra, [...knownKeys, ...HOST_KEYS.map((host) => host.key)]);
      const expected = hint === "" ? `one of the known keys (${knownKeys.join(", ")})` : "a known key";
      return { ruleId: "skill/unknown-key", range: keyRange, message: `Unexpected key ${quoted(extra)}, expected ${expected}${hint}` };
    }
    case "type": {
      // `type` has one finding whatever the value: its enum error, worded by skill/type-value below.
      if (path === "/type") return undefined;
      const written = describeValue(value, sourceOf(range, index));
      if (path === "/allowed-tools") {
        // A list of tool names or a comma-separated string is a question of form (a warning); any other value is no list of tools at all.
        return allowedToolsProblem(value, range) ?? { ruleId: "skill/value-type", range, message: `Unexpected ${written} for "allowed-tools", expected one space-separated string such as "Read Bash(git:*)"` };
      }
      const host = hostKeyOf(path);
      if (host) return { ruleId: "skill/host-key-value", range, message: `Unexpected ${written} for ${quoted(label)}, expected ${describeType(String(params["type"]), value, path)}, as read by ${host.hosts} (${host.meaning})` };
      return { ruleId: "skill/value-type", range, message: `Unexpected ${written} for ${quoted(label)}, expected ${describeType(String(params["type"]), value, path)}` };
    }
  }
  const host = hostKeyOf(path);
  if (host) return { ruleId: "skill/host-key-value", range, message: `Unexpected value for ${quoted(label)}: it ${error.message ?? "does not match the schema"}, as read by ${host.hosts}` };
  if (/^\/(requiresSkills|conflictsWith)(\/|$)/.test(path) && (error.keyword === "pattern" || error.keyword === "uniqueItems")) {
    // Reported with better context by the cross-reference rules (unknown name, repeated name).
    return undefined;
  }
  if (path === "/name") {
    const name = typeof value === "string" ? value : describeValue(value, undefined);
    const length = [...name].length;
    if (error.keyword === "maxLength") return { ruleId: "skill/name-format", range, message: `Unexpected name of ${length} code points, expected at most 64` };
    if (length === 0) return { ruleId: "skill/name-format", range, message: "Unexpected empty name, expected lowercase letters and digits in hyphen-separated words" };
    return { ruleId: "skill/name-format", range, message: `Unexpected name ${quoted(name)}, expected lowercase letters and digits in hyphen-separated words (^[a-z0-9]+(-[a-z0-9]+)*$)` };
  }
  if (path === "/type" && error.keyword === "enum") {
    const portable = portableFields.includes("type");
    if (typeof value !== "string") {
      return typeValueSeverity({ ruleId: "skill/type-value", range, message: `Unexpected ${describeValue(value, sourceOf(range, index))} for type, expected "workflow" or "reference"` }, portable, profile);
    }
    return typeValueSeverity(typeValueProblem(value, range, portable, profile), portable, profile);
  }
  if (path === "/description") {
    const description = typeof value === "string" ? value : "";
    if (error.keyword === "maxLength") {
      return { ruleId: "skill/description-length", range: pastLimitRange(range, index, description, 1024), message: `Unexpected description of ${[...description].length} code points, expected at most 1024` };
    }
    if (error.keyword === "minLength" || (error.keyword === "pattern" && error.schemaPath.endsWith("/allOf/0/pattern"))) {
      return { ruleId: "skill/description-empty", range, message: "Unexpected blank description, expected the task that triggers the skill in direct terms" };
    }
    if (error.keyword === "pattern") {
      return { ruleId: "skill/description-angle-bracket", range: bracketRange(range, index, description), message: "Unexpected angle bracket in description, expected plain text without < or > (the catalog is XML)" };
    }
  }
  if (error.keyword === "minLength" && typeof value === "string" && value === "") {
    return { ruleId: "skill/schema-violation", range, message: `Unexpected empty ${quoted(label)}, expected a non-empty string or no ${quoted(label)} key` };
  }
  if (error.keyword === "maxLength" && typeof value === "string") {
    return { ruleId: "skill/schema-violation", range: pastLimitRange(range, index, value, Number(params["limit"])), message: `Unexpected ${quoted(label)} of ${[...value].length} code points, expected at most ${String(params["limit"])}` };
  }
  return { ruleId: "skill/schema-violation", range, message: `Unexpected value for ${quoted(label)}: it ${error.message ?? "does not match the schema"}` };
}

/** Narrows a description's range to its first `<` or `>`, where it is written in any scalar style (a `>` block indicator is no bracket). */
function bracketRange(range: Range, index: LineIndex, value: string): Range {
  const wanted = [...value].findIndex((character) => character === "<" || character === ">");
  return wanted === -1 ? range : characterRange(range, index, value, wanted);
}

/**
 * The range of one character of a string value (its code point number
 * `wanted`, 0-based) where the source writes it: plain, quoted (escapes
 * included) or block. The whole value when the source cannot be matched to it.
 */
export function characterRange(range: Range, index: LineIndex, value: string, wanted: number): Range {
  const { start, end } = offsetsOf(range, index);
  const at = scalarCharacterOffset(index.text, start, end, value, wanted);
  return at === undefined ? range : index.range(at, at + 1);
}

/**
 * A too-long value's range from its first character past the limit to its
 * end: the part to cut, wherever the value is written (plain, quoted or a
 * block scalar). The whole value when the source cannot be matched to it.
 */
function pastLimitRange(range: Range, index: LineIndex, value: string, limit: number): Range {
  const { start, end } = offsetsOf(range, index);
  const at = Number.isInteger(limit) ? scalarCharacterOffset(index.text, start, end, value, limit) : undefined;
  return at === undefined ? range : index.range(at, end);
}

function offsetsOf(range: Range, index: LineIndex): { start: number; end: number } {
  return { start: index.lineStart(range.start.line) + range.start.column - 1, end: index.lineStart(range.end.line) + range.end.column - 1 };
}

export function valueAt(value: unknown, pointer: string): unknown {
  if (pointer === "") return value;
  let current = value;
  for (const raw of pointer.slice(1).split("/")) {
    const segment = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof current !== "object" || current === null || !Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** `/metadata/gamma-requires-skills` and the other design lists' portable keys. */
const PORTABLE_LIST_KEYS = new Map(DESIGN_FIELDS.filter((spelling) => spelling.list).map((spelling) => [`/metadata/${spelling.portableKey}`, spelling.portableKey]));

/** A pointer as a message names it (`requiresSkills[0]`); a field read from metadata by its key there (`metadata.gamma-requires-skills[0]`). */
function labelOf(pointer: string, portableFields: readonly DesignField[] = []): string {
  return pointer
    .slice(1)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((part, position) => (position === 0 && (portableFields as readonly string[]).includes(part) ? portableLabel(part as DesignField) : part))
    .map((part, position) => (position > 0 && /^\d+$/.test(part) ? `[${part}]` : position > 0 ? `.${part}` : part))
    .join("");
}

/** Scalars are shown as written (`1.10`, not the number 1.1 YAML made of it). */
function describeValue(value: unknown, written: string | undefined): string {
  if (value === null || value === undefined) return "empty value";
  if (Array.isArray(value)) return "list";
  // What a YAML tag makes of a scalar (`!!timestamp 2024-01-01`, `!!binary aGk=`) is no mapping, though it is an object.
  if (value instanceof Date) return written !== undefined && written.length <= 40 ? `timestamp ${written}` : "timestamp";
  if (ArrayBuffer.isView(value)) return "binary value";
  if (value instanceof Set) return "set";
  if (typeof value === "object") return "mapping";
  if (typeof value === "string") return `string ${quoted(value)}`;
  // Numbers, booleans and bigints only: objects were handled above (a null-prototype mapping has no toString).
  return `${typeof value} ${written !== undefined && written.length <= 40 ? written : String(value as number | boolean | bigint)}`;
}

function sourceOf(range: Range, index: LineIndex): string | undefined {
  if (range.start.line !== range.end.line) return undefined;
  const start = index.lineStart(range.start.line);
  return index.text.slice(start + range.start.column - 1, start + range.end.column - 1).trim();
}

/**
 * What the schema asks for, with the fix for the value found: quoting turns a
 * number or a boolean into the string it was meant to be, but not a list or a
 * mapping, whose parts must be written as one string (or, under metadata,
 * whose entries may each get a key of their own).
 */
function describeType(type: string, value: unknown, path: string): string {
  // Alternatives (foldAlternatives): as they read in a sentence, "a string or a list of strings".
  if (type.includes(",")) return type.split(",").map((one) => (one === "string" ? "a string" : one === "array" ? "a list of strings" : `a value of type ${one}`)).join(" or ");
  switch (type) {
    case "string": {
      const metadata = path.startsWith("/metadata/") ? "metadata maps keys to strings: " : "";
      if (value === null || value === undefined) return "a string";
      if (Array.isArray(value)) return `a string (${metadata}join the items into one, such as "a, b")`;
      if (value instanceof Date || ArrayBuffer.isView(value)) return "a string (write the value without its YAML tag)";
      if (typeof value === "object") return `a string (${metadata}${metadata === "" ? "write the value as one string" : "give each entry a metadata key of its own, or write them as one string"})`;
      return "a string (quote values such as 1.10)";
    }
    case "boolean":
      return "true or false (unquoted)";
    case "array":
      return "a list of skill names";
    case "object":
      return "a mapping of string keys to string values";
    default:
      return `a value of type ${type}`;
  }
}


/**
 * `type` is Gamma's contract key. A collection that already uses `type` for
 * its own categories is told so, with the way out, rather than a bare
 * "expected workflow or reference".
 */
function typeValueProblem(value: string, range: Range, portable: boolean, profile: Profile): YamlProblem {
  const near = suggest(value, ["workflow", "reference"]);
  if (near !== undefined) return { ruleId: "skill/type-value", range, message: `Unexpected type ${quoted(value)}, expected "workflow" or "reference"; did you mean "${near}"?` };
  if (portable) {
    return { ruleId: "skill/type-value", range, message: `Unexpected type ${quoted(value)} in metadata.gamma-type, expected "workflow" or "reference" (the skill's contract); a category of the collection's own belongs under another metadata key` };
  }
  return {
    ruleId: "skill/type-value",
    range,
    message:
      profile === "agentskills"
        ? `Unexpected type ${quoted(value)}, expected "workflow" or "reference" (Gamma's contract, written as "gamma-type" under metadata); a category of the collection's own belongs under another metadata key`
        : `Unexpected type ${quoted(value)}, expected "workflow" or "reference" (the skill's contract); a category of the collection's own belongs under metadata, or drop type under the agentskills profile`,
  };
}

/**
 * Under the agentskills profile a top-level `type` is no field of the Agent
 * Skills specification: a value other than Gamma's may be the collection's own
 * category, so the finding rests on a guess about someone else's field and is
 * a warning. `gamma-type` under metadata is Gamma's own key: there it stays an error.
 */
function typeValueSeverity(problem: YamlProblem, portable: boolean, profile: Profile): YamlProblem {
  if (profile !== "agentskills" || portable) return problem;
  return { ...problem, severity: "warning", message: `${problem.message} (a warning under the agentskills profile, as the Agent Skills specification defines no "type")` };
}
