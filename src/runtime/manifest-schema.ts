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
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

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
  validator ??= loadValidator();
  return validator(value) ? [] : [...(validator.errors ?? [])];
}

/**
 * The package root holds the schema and, once built, its compiled validator.
 * Found by walking up from this module: it runs from src/runtime under the
 * test runner, lib/runtime when installed, and from a chunk at the top of
 * lib/ inside the bundled CLI.
 */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, SCHEMA)) && existsSync(join(dir, "package.json"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`gamma-prompt: ${SCHEMA} not found above ${fileURLToPath(import.meta.url)}; the package is incomplete`);
    dir = parent;
  }
}

function loadValidator(): StandaloneValidator {
  const root = packageRoot();
  const digest = createHash("sha256").update(readFileSync(join(root, SCHEMA))).digest("hex");
  const path = join(root, GENERATED);
  const generated = existsSync(path) ? (createRequire(import.meta.url)(path) as { validate?: unknown; schemaSha256?: unknown }) : {};
  if (typeof generated.validate !== "function" || generated.schemaSha256 !== digest) {
    // A source checkout before its build, or a schema edited since: never judge with a validator of another schema.
    throw new Error(`gamma-prompt: ${GENERATED} is missing or was compiled from another ${SCHEMA}; run \`npm run build:ts\``);
  }
  return generated.validate as StandaloneValidator;
}
