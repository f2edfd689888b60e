/**
 * The manifest's JSON Schema check at load time. It uses the standalone
 * validator the package build compiles from schemas/manifest.schema.json
 * (scripts/compile-schemas.mjs), the one the build checks the manifest it
 * writes with: the runtime needs no schema compiler, and no manifest the
 * schema refuses is ever loaded.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { packageRootDir } from "./package-root.js";

export interface ManifestSchemaError {
  /** JSON Pointer of the offending value ("" for the manifest itself). */
  instancePath: string;
  message?: string;
}

type StandaloneValidator = ((value: unknown) => boolean) & { errors?: ManifestSchemaError[] | null };

const SCHEMA = join("schemas", "manifest.schema.json");
const GENERATED = join("lib", "generated", "schemas", "manifest.cjs");

let validator: StandaloneValidator | undefined;

/** Every way `value` fails the manifest schema; empty when it is valid. */
export function manifestSchemaErrors(value: unknown): ManifestSchemaError[] {
  validator ??= loadManifestValidator(packageRootDir());
  return validator(value) ? [] : [...(validator.errors ?? [])];
}

/**
 * The standalone validator under `root` (the package's folder), refused unless
 * it was compiled from the schema beside it. Exported for tests, which judge
 * copies of the package folder.
 */
export function loadManifestValidator(root: string | undefined): StandaloneValidator {
  if (root === undefined) throw new Error(`gamma-prompt: no package.json above ${fileURLToPath(import.meta.url)}; the package is incomplete`);
  const digest = createHash("sha256").update(readFileSync(join(root, SCHEMA))).digest("hex");
  const path = join(root, GENERATED);
  const generated = existsSync(path) ? (createRequire(import.meta.url)(path) as { validate?: unknown; schemaSha256?: unknown }) : {};
  if (typeof generated.validate !== "function" || generated.schemaSha256 !== digest) {
    // A source checkout before its build, or a schema edited since: never judge with a validator of another schema.
    throw new Error(`gamma-prompt: ${GENERATED} is missing or was compiled from another ${SCHEMA}; run \`npm run build:ts\``);
  }
  return generated.validate as StandaloneValidator;
}
