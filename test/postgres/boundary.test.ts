/**
 * The database client stays behind its own entry point: `pg` is imported only
 * by gamma-prompt/runtime/postgres (src/runtime-postgres/), and no other module
 * of src/ imports that entry point, except the command that migrates the
 * database, on demand. The core runtime (src/runtime, whose own boundary
 * test/runtime/import-boundary.test.ts keeps) and the compiler load no
 * database client.
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const src = join(root, "src");
const postgresDir = join(src, "runtime-postgres") + sep;
const migrateCommand = join(src, "cli", "commands", "postgres.ts");
const DATABASE_CLIENTS = ["pg", "pg-pool", "postgres", "@neondatabase/serverless"];
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^"';]*?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function specifiersOf(file: string): string[] {
  const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|(^|[^:])\/\/.*$/gm, "$1");
  return [...text.matchAll(IMPORT)].map((match) => match[1] ?? match[2] ?? "");
}

const packageName = (specifier: string): string => (specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] ?? specifier));

function allFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts"))
    .map((name) => join(dir, name));
}

describe("the PostgreSQL entry point's boundary", () => {
  it("no module of src/ outside runtime-postgres imports it or a database client (but the command that migrates the database, on demand)", () => {
    expect(specifiersOf(migrateCommand)).toContain("../../runtime-postgres/migrate.js");
    expect(readFileSync(migrateCommand, "utf8")).not.toMatch(/^import [^(]*runtime-postgres/m);
    const outside = allFiles(src).filter((file) => !file.startsWith(postgresDir) && file !== migrateCommand);
    const reaching = outside.flatMap((file) =>
      specifiersOf(file)
        .filter((specifier) => (specifier.startsWith(".") ? resolve(dirname(file), specifier).startsWith(postgresDir) : DATABASE_CLIENTS.includes(packageName(specifier))))
        .map((specifier) => `${relative(root, file)} imports "${specifier}"`),
    );
    expect(outside.length).toBeGreaterThan(100);
    expect(reaching).toEqual([]);
    expect(allFiles(postgresDir).some((file) => specifiersOf(file).includes("pg"))).toBe(true);
  });
});
