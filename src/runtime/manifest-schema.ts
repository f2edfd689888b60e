/**
 * The manifest's JSON Schema check at load time. It uses the standalone
 * validator the package build compiles from schemas/manifest.schema.json
 * (scripts/compile-schemas.mjs), the schema the build checks the manifest it
 * writes with: the runtime needs no schema compiler, and no manifest the
 * schema refuses is ever loaded. The validator is an ES module imported here,
 * not a file found at run time, so a bundled runtime carries it along.
 */
import { validate } from "../generated/manifest-validator.js";

export interface ManifestSchemaError {
  /** JSON Pointer of the offending value ("" for the manifest itself). */
  instancePath: string;
  message?: string;
}

/** Every way `value` fails the manifest schema; empty when it is valid. */
export function manifestSchemaErrors(value: unknown): ManifestSchemaError[] {
  return validate(value) ? [] : [...(validate.errors ?? [])];
}
