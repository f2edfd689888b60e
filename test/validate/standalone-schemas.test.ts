import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import {
  compileAtRuntime,
  generatedValidatorUrl,
  packageSchemaValidator,
  schemaDigest,
} from "../../src/pipeline/validate/schema-validators.js";

// The package build compiles every schemas/*.schema.json ahead of time into a
// standalone validator (lib/generated/schemas/). These tests hold the two paths
// to one answer: on every instance the fixtures, the embedded default and
// hostile values give, the standalone validator and a runtime-compiled one
// agree on validity and on every error.

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const requireHere = createRequire(import.meta.url);
const schemaNames = readdirSync(join(root, "schemas"))
  .filter((name) => name.endsWith(".schema.json"))
  .map((name) => name.slice(0, -".schema.json".length))
  .sort();

function* walk(folder: string): Generator<string> {
  for (const entry of readdirSync(folder).sort()) {
    const path = join(folder, entry);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) yield* walk(path);
    else if (stat?.isFile()) yield path;
  }
}

function frontmatter(text: string): unknown {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  return match ? parse(match[1] ?? "", { uniqueKeys: false }) : undefined;
}

/** Which package schema a file is an instance of, by where it sits; undefined when none. */
function schemaFor(path: string): string | undefined {
  const name = basename(path);
  const rel = relative(root, path).split("\\").join("/");
  if (name.toLowerCase() === "skill.md") return "skill-manifest";
  if (name === "variants.yaml") return "variants";
  if (name === "injections.yaml") return "injection-kinds";
  if (name === "gamma-prompt.config.json") return "config";
  if (name === "manifest.json") return "manifest";
  if (name === "cache-plan.json") return "cache-plan";
  if (/(^|\/)schemas\/tools\/[^/]+\.json$/.test(rel)) return "tool";
  if (/(^|\/)schemas\/namespaces\/[^/]+\/namespace\.json$/.test(rel)) return "namespace";
  if (/(^|\/)schemas\/namespaces\/[^/]+\/tools\/[^/]+\.json$/.test(rel)) return "tool";
  if (/(^|\/)knowledge\/[^/]+\.md$/.test(rel) && !/(^|\/)(dist|expected)\//.test(rel)) return "knowledge-note";
  if (/fixtures\/injections\/.+\.json$/.test(rel) && !name.startsWith("expected")) return "runtime-injection";
  if (/^evals\/[^/]+\.yaml$/.test(rel) || /fixtures\/evals\/[^/]+\/scenario\.yaml$/.test(rel)) return "eval-scenario";
  return undefined;
}

function instances(): Map<string, { label: string; value: unknown }[]> {
  const found = new Map<string, { label: string; value: unknown }[]>(schemaNames.map((name) => [name, []]));
  for (const folder of ["test/fixtures", "skills", "prompts", "schemas/tools", "schemas/namespaces", "knowledge", "dist", "evals"]) {
    for (const path of walk(join(root, folder))) {
      const schema = schemaFor(path);
      if (!schema || !found.has(schema)) continue;
      const text = readFileSync(path, "utf8");
      let value: unknown;
      try {
        value = path.endsWith(".json") ? JSON.parse(text) : path.toLowerCase().endsWith(".md") ? frontmatter(text) : parse(text);
      } catch {
        continue; // not parseable: the parse stage reports it, no schema ever sees it
      }
      const label = relative(root, path);
      found.get(schema)?.push({ label, value }, ...mutations(label, value));
    }
  }
  const hostile: unknown[] = [null, [], 0, 1.5, true, "text", {}, JSON.parse('{"__proto__": {"polluted": true}}'), { name: { toString: null } }, [null, {}]];
  for (const list of found.values()) hostile.forEach((value, index) => list.push({ label: `hostile #${index}`, value }));
  return found;
}

/** Near-misses of a real instance: each top-level key dropped, emptied and given the wrong type in turn. */
function mutations(label: string, value: unknown): { label: string; value: unknown }[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
  const out: { label: string; value: unknown }[] = [];
  for (const key of Object.keys(value)) {
    const { [key]: _dropped, ...rest } = value as Record<string, unknown>;
    out.push({ label: `${label} without ${key}`, value: rest });
    out.push({ label: `${label} with ${key}: null`, value: { ...rest, [key]: null } });
    out.push({ label: `${label} with ${key}: 7`, value: { ...rest, [key]: 7 } });
  }
  return out;
}

describe("standalone schema validators", () => {
  const all = instances();

  it("are generated for every package schema, from the schema bytes on disk", () => {
    for (const name of schemaNames) {
      const generated = requireHere(fileURLToPath(generatedValidatorUrl(name))) as { schemaSha256: string; validate: unknown };
      expect(generated.schemaSha256, name).toBe(schemaDigest(readFileSync(join(root, "schemas", `${name}.schema.json`))));
      // The loader really uses the generated module (not a runtime compile) while the digest matches.
      expect(packageSchemaValidator(name), name).toBe(generated.validate);
    }
  });

  it("cover every schema with fixture instances, valid and invalid", () => {
    for (const name of ["skill-manifest", "variants", "injection-kinds", "tool", "manifest", "runtime-injection", "eval-scenario"]) {
      const values = (all.get(name) ?? []).filter((entry) => !entry.label.startsWith("hostile") && !entry.label.includes(" with"));
      expect(values.length, name).toBeGreaterThan(0);
    }
  });

  for (const name of schemaNames) {
    it(`agree with the runtime-compiled ${name} schema on every instance`, () => {
      const standalone = packageSchemaValidator(name);
      const runtime = compileAtRuntime(JSON.parse(readFileSync(join(root, "schemas", `${name}.schema.json`), "utf8")) as object);
      let valid = 0;
      let invalid = 0;
      for (const { label, value } of all.get(name) ?? []) {
        const expected = runtime(value);
        expect(standalone(value), label).toBe(expected);
        expect(standalone.errors ?? null, label).toEqual(runtime.errors ?? null);
        if (expected) valid++;
        else invalid++;
      }
      expect(invalid).toBeGreaterThan(0);
      if (name !== "runtime-injection" && name !== "config") expect(valid).toBeGreaterThan(0);
    });
  }
});
