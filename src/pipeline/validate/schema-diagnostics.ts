import type { ErrorObject } from "ajv";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { RuleId } from "../../diagnostics/rules/index.js";
import { rangeAt, valueAt, type PositionedSource, type PathSegment } from "../parse/positioned-source.js";

/** Turns ajv errors into diagnostics at the offending key or value. */
export function schemaDiagnostics(
  ruleId: RuleId,
  located: PositionedSource,
  errors: readonly ErrorObject[] | null | undefined,
  what: string,
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
      message = `Unexpected key \`${property}\` in ${describePath(path, what)}`;
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
