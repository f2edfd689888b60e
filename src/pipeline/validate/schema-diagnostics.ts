import type { ErrorObject } from "ajv";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { RuleId } from "../../diagnostics/rules/index.js";
import { rangeAt, valueAt, type PositionedSource, type PathSegment } from "../parse/positioned-source.js";
import { packageSchemaDocument } from "./schema-validators.js";
import { didYouMean } from "../../protocol/suggest.js";

/**
 * Turns ajv errors into diagnostics at the offending key or value. With the
 * package schema's name, an unknown key's finding names the keys allowed
 * there, or the near miss meant ("did you mean").
 */
export function schemaDiagnostics(
  ruleId: RuleId,
  located: PositionedSource,
  errors: readonly ErrorObject[] | null | undefined,
  what: string,
  schemaName?: string,
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  const all = errors ?? [];
  for (const error of all) {
    // Errors inside a propertyNames subschema are folded into their parent's message below.
    if (error.schemaPath.includes("/propertyNames/")) continue;
    const path = decodePointer(error.instancePath);
    let range = rangeAt(located, path);
    let message: string;
    const params = error.params as Record<string, unknown>;
    if (error.keyword === "additionalProperties" && typeof params["additionalProperty"] === "string") {
      const property = params["additionalProperty"];
      range = rangeAt(located, [...path, property], true);
      message = `Unexpected key \`${property}\` in ${describePath(path, what)}${expectedKeys(property, schemaName, path)}`;
    } else if (error.keyword === "propertyNames" && typeof params["propertyName"] === "string") {
      const property = params["propertyName"];
      range = rangeAt(located, [...path, property], true);
      const reason = all.find((inner) => inner !== error && inner.schemaPath.includes("/propertyNames/") && inner.instancePath === error.instancePath);
      const why = reason?.keyword === "not" ? "it is reserved" : `it ${reason?.message ?? "is not allowed"}`;
      message = `Unexpected key \`${property}\` in ${describePath(path, what)}: ${why}`;
    } else if (error.keyword === "required" && typeof params["missingProperty"] === "string") {
      message = `Unexpected ${path.length === 0 ? withoutArticle(what) : describePath(path, what)} without \`${params["missingProperty"]}\`, expected it to be present`;
    } else if (error.keyword === "const" && "allowedValue" in params) {
      message = `Unexpected value ${JSON.stringify(valueAt(located.value, path))} at ${describePath(path, what)}, expected ${JSON.stringify(params["allowedValue"])}`;
    } else if (error.keyword === "enum" && Array.isArray(params["allowedValues"])) {
      message = `Unexpected value ${JSON.stringify(valueAt(located.value, path))} at ${describePath(path, what)}, expected one of ${params["allowedValues"].map((v) => JSON.stringify(v)).join(", ")}`;
    } else if (error.keyword === "uniqueItems" && typeof params["i"] === "number" && typeof params["j"] === "number") {
      // Ajv names the two items by index ("items ## 1 and 0 are identical"): the value, at its second place, says it plainly.
      range = rangeAt(located, [...path, params["i"]]);
      message = `Unexpected ${JSON.stringify(valueAt(located.value, [...path, params["i"]]))} listed twice at ${describePath(path, what)}, expected each item once`;
    } else {
      message = `Unexpected value at ${describePath(path, what)}: it ${error.message ?? "does not match the schema"}`;
    }
    const dedupe = `${range.start.line}:${range.start.column}:${message}`;
    if (seen.has(dedupe)) continue;
    seen.add(dedupe);
    diagnostics.push(createDiagnostic(ruleId, located.file, range, message));
  }
  return diagnostics;
}

/**
 * `, expected …` for an unknown key: the keys the schema declares for the
 * object that holds it (its `properties`), or the one meant when the key is a
 * near miss. Empty when the schema is not named, or when its shape there is
 * not one plain object schema (a oneOf, pattern keys).
 */
function expectedKeys(property: string, schemaName: string | undefined, path: readonly PathSegment[]): string {
  if (schemaName === undefined) return "";
  const root = packageSchemaDocument(schemaName);
  let node = resolveRef(root, root);
  for (const segment of path) {
    if (node === undefined) return "";
    const properties = node["properties"];
    const items = node["items"];
    const additional = node["additionalProperties"];
    let next: unknown;
    if (typeof segment === "number") next = items;
    else if (isObject(properties) && Object.hasOwn(properties, segment)) next = properties[segment];
    else if (isObject(additional) && node["patternProperties"] === undefined) next = additional;
    node = resolveRef(root, next);
  }
  if (node === undefined || node["additionalProperties"] !== false || !isObject(node["properties"])) return "";
  const keys = Object.keys(node["properties"]);
  if (keys.length === 0) return "";
  const hint = didYouMean(property, keys);
  return `, expected ${hint === "" ? `one of ${keys.map((key) => `\`${key}\``).join(", ")}` : "a known key"}${hint}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A schema object, its local `$ref` (`#/$defs/…`) followed; undefined for anything else. */
function resolveRef(root: unknown, node: unknown): Record<string, unknown> | undefined {
  for (let hops = 0; isObject(node) && typeof node["$ref"] === "string" && hops < 16; hops++) {
    const reference = node["$ref"];
    if (!reference.startsWith("#")) return undefined;
    let target: unknown = root;
    for (const part of reference.slice(1).split("/")) {
      if (part === "") continue;
      target = isObject(target) ? target[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
    }
    node = target;
  }
  return isObject(node) ? node : undefined;
}

function decodePointer(pointer: string): PathSegment[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
}

/** "the tool" as a subject after "Unexpected": "Unexpected tool without `description`". */
function withoutArticle(what: string): string {
  return what.replace(/^the /, "");
}

function describePath(path: readonly PathSegment[], what: string): string {
  if (path.length === 0) return what;
  return `\`${path.map((segment) => (typeof segment === "number" ? `[${segment}]` : segment)).join(".").replace(/\.\[/g, "[")}\``;
}
