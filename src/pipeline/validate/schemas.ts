import { packageSchemaUrl } from "../../package-paths.js";
import { readFileSync } from "node:fs";
import type { AnySchemaObject, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";

/**
 * The build's own JSON Schemas (published under schemas/ so editors can use
 * them), each compiled once per process. Strict, all errors, no coercion.
 */
export type BuildSchemaName = "variants" | "injection-kinds" | "tool" | "config" | "manifest";

let ajv: Ajv2020 | undefined;
let parametersChecker: Ajv2020 | undefined;
const compiled = new Map<BuildSchemaName, ValidateFunction>();

export function buildSchemaValidator(name: BuildSchemaName): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    const schema = JSON.parse(readFileSync(packageSchemaUrl(name), "utf8")) as AnySchemaObject;
    validate = sharedAjv().compile(schema);
    compiled.set(name, validate);
  }
  return validate;
}

/**
 * A separate, permissive-about-keywords instance for checking tool parameter
 * schemas: authors may use any standard keyword, but a malformed schema
 * (wrong keyword types, bad $ref) must fail here rather than at the provider.
 */
export function checkParametersSchema(schema: unknown): string | undefined {
  // Strict compilation already rejects unknown keywords and mistyped keyword values;
  // validating against the draft 2020-12 meta-schema as well would cost more than every tool schema together.
  parametersChecker ??= new Ajv2020({ strict: true, allErrors: true, validateSchema: false, addUsedSchema: false });
  const checker = parametersChecker;
  try {
    checker.compile(schema as AnySchemaObject);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function sharedAjv(): Ajv2020 {
  // Our own schemas are fixed and covered by tests; skipping meta-schema validation saves start-up time.
  ajv ??= new Ajv2020({ strict: true, allErrors: true, coerceTypes: false, useDefaults: false, validateSchema: false });
  return ajv;
}
