// Compiles every schemas/*.schema.json into a standalone validator module
// under lib/generated/schemas/ (part of the package build, never edited by
// hand). Each module records the sha256 of the schema bytes it came from; the
// loader (src/pipeline/validate/schema-validators.ts) uses it only while that
// digest still matches the schema on disk.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const { PACKAGE_SCHEMA_OPTIONS } = await import(join(packageRoot, "lib", "pipeline", "validate", "schema-validators.js"));
const schemaDir = join(packageRoot, "schemas");
const outDir = join(packageRoot, "lib", "generated", "schemas");
mkdirSync(outDir, { recursive: true });

for (const file of readdirSync(schemaDir).filter((name) => name.endsWith(".schema.json")).sort()) {
  const name = file.slice(0, -".schema.json".length);
  const bytes = readFileSync(join(schemaDir, file));
  const ajv = new Ajv2020({ ...PACKAGE_SCHEMA_OPTIONS, code: { ...PACKAGE_SCHEMA_OPTIONS.code, source: true, esm: false } });
  const validate = ajv.compile(JSON.parse(bytes.toString("utf8")));
  const code = standaloneCode(ajv, validate);
  const digest = createHash("sha256").update(bytes).digest("hex");
  const module = `${code}\nmodule.exports.validate = module.exports.default ?? module.exports;\nmodule.exports.schemaSha256 = ${JSON.stringify(digest)};\n`;
  const target = join(outDir, `${name}.cjs`);
  writeFileSync(`${target}.tmp`, module);
  renameSync(`${target}.tmp`, target);
}
