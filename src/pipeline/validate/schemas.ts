import { createRequire } from "node:module";
import type { AnySchemaObject, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { packageSchemaValidator } from "./schema-validators.js";

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
    return error instanceof Error ? error.message : String(error);
  }
}
