import { createRequire } from "node:module";
import type { AnySchemaObject, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { packageSchemaValidator } from "./schema-validators.js";
import { messageOf } from "../../protocol/error-message.js";

/**
 * The build's own JSON Schemas (published under schemas/ so editors can use
 * them), each compiled once per process. Strict, all errors, no coercion.
 */
export type BuildSchemaName = "variants" | "injection-kinds" | "tool" | "config" | "manifest" | "knowledge-note" | "namespace";

let parametersChecker: Ajv2020 | undefined;
const requireHere = createRequire(import.meta.url);

export function buildSchemaValidator(name: BuildSchemaName): ValidateFunction {
  return packageSchemaValidator(name);
}

/**
 * A separate, permissive-about-keywords instance for checking tool parameter
 * schemas: authors may use any standard keyword, but a malformed schema
 * (wrong keyword types, bad $ref) must fail here rather than at the provider.
 */
export function checkParametersSchema(schema: unknown): string | undefined {
  // Strict compilation already rejects unknown keywords and mistyped keyword values;
  // validating against the draft 2020-12 meta-schema as well would cost more than every tool schema together.
  // Tool parameter schemas are the project's own input, so they are compiled here; ajv loads only when one is checked.
  const { Ajv2020: Checker } = requireHere("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  parametersChecker ??= new Checker({ strict: true, allErrors: true, validateSchema: false, addUsedSchema: false });
  const checker = parametersChecker;
  try {
    checker.compile(schema as AnySchemaObject);
    return undefined;
  } catch (error) {
    // The compiler's own stack giving out says nothing about the schema a user wrote: say what it means instead.
    if (error instanceof RangeError) return "a schema the compiler cannot follow to its end (its $ref chains or nesting go too deep), expected fewer levels";
    return messageOf(error);
  }
}

/**
 * Where in a parameters schema the problem the schema compiler gave sits, as
 * keys below `parameters`, when its message names what to look for: a keyword
 * strict mode does not know (`unknown keyword: "minLenght"`) or a `type` that
 * is no JSON type (`type must be JSONType or JSONType[]: strnig`). The
 * compiler's messages carry no path, so the first place in document order
 * that fits is taken; undefined when the message names nothing to look for.
 */
export function parametersProblemPath(parameters: unknown, problem: string): { path: Array<string | number>; key: boolean } | undefined {
  const unknownKeyword = /unknown keyword: "([^"]+)"/.exec(problem)?.[1];
  if (unknownKeyword !== undefined) {
    // The keyword itself is what is wrong: the finding points at the key.
    const path = findPath(parameters, (key) => key === unknownKeyword);
    return path && { path, key: true };
  }
  const badType = /^type must be JSONType or JSONType\[\]: (.+)$/m.exec(problem)?.[1];
  if (badType !== undefined) {
    const named = new Set(badType.split(","));
    const path = findPath(parameters, (key, value) => key === "type" && (typeof value === "string" ? named.has(value) : Array.isArray(value) && value.some((entry) => named.has(String(entry)))));
    return path && { path, key: false };
  }
  return undefined;
}

function findPath(value: unknown, fits: (key: string, value: unknown) => boolean, path: Array<string | number> = []): Array<string | number> | undefined {
  if (Array.isArray(value)) {
    for (const [index, entry] of value.entries()) {
      const found = findPath(entry, fits, [...path, index]);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  for (const [key, entry] of Object.entries(value)) {
    if (fits(key, entry)) return [...path, key];
    const found = findPath(entry, fits, [...path, key]);
    if (found) return found;
  }
  return undefined;
}
