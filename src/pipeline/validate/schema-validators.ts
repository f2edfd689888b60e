import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { AnySchemaObject, ValidateFunction } from "ajv";
import { packageRoot, packageSchemaUrl } from "../../package-paths.js";

/**
 * Validators for the package's own JSON Schemas (schemas/*.schema.json).
 *
 * The package build compiles each schema ahead of time into a standalone
 * module under lib/generated/schemas/ (scripts/compile-schemas.mjs), which
 * spares every command ajv's load and compile time. A generated module is
 * used only while the schema it was made from is byte for byte the schema on
 * disk; otherwise (a source checkout before its first build, an edited
 * schema) the schema is compiled here with the very same options, so results
 * never depend on which path ran.
 */

/** The one set of ajv options for every package schema: strict, all errors, no coercion, no defaults. */
export const PACKAGE_SCHEMA_OPTIONS = { strict: true, allErrors: true, coerceTypes: false, useDefaults: false, code: { source: true } } as const;

/** Where the build puts the standalone validator for one schema. */
export function generatedValidatorUrl(name: string): URL {
  return new URL(`lib/generated/schemas/${name}.cjs`, packageRoot);
}

/** The digest a generated module records of the schema bytes it was compiled from. */
export function schemaDigest(bytes: string | Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

interface GeneratedValidatorModule {
  schemaSha256: string;
  validate: ValidateFunction;
}

const requireHere = createRequire(import.meta.url);
const validators = new Map<string, ValidateFunction>();

/** The validator of schemas/<name>.schema.json, made once per process. */
export function packageSchemaValidator(name: string): ValidateFunction {
  let validate = validators.get(name);
  if (!validate) {
    const bytes = readFileSync(packageSchemaUrl(name));
    validate = loadGenerated(name, schemaDigest(bytes)) ?? compileAtRuntime(JSON.parse(bytes.toString("utf8")) as AnySchemaObject);
    validators.set(name, validate);
  }
  return validate;
}

const documents = new Map<string, unknown>();

/** schemas/<name>.schema.json as a JSON value, read once per process (for the keys a finding may suggest). */
export function packageSchemaDocument(name: string): unknown {
  if (!documents.has(name)) documents.set(name, JSON.parse(readFileSync(packageSchemaUrl(name), "utf8")) as unknown);
  return documents.get(name);
}

/** The schema's top-level property names (for "did you mean" hints), read from the same file. */
export function packageSchemaProperties(name: string): string[] {
  const schema = JSON.parse(readFileSync(packageSchemaUrl(name), "utf8")) as { properties?: Record<string, unknown> };
  return Object.keys(schema.properties ?? {});
}

function loadGenerated(name: string, digest: string): ValidateFunction | undefined {
  const url = generatedValidatorUrl(name);
  if (!existsSync(url)) return undefined;
  // A file path, not the URL's pathname: an install folder with a space in its name is `%20` in a URL.
  const generated = requireHere(fileURLToPath(url)) as Partial<GeneratedValidatorModule>;
  return generated.schemaSha256 === digest && typeof generated.validate === "function" ? generated.validate : undefined;
}

/** Compiles a package schema with the options the build uses; also what the agreement test compares against. */
export function compileAtRuntime(schema: AnySchemaObject): ValidateFunction {
  const { Ajv2020 } = requireHere("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  return new Ajv2020({ ...PACKAGE_SCHEMA_OPTIONS, code: {} }).compile(schema);
}
