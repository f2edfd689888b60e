/**
 * The schema's versioned, forward-only migrations, shipped in the package as
 * sql/postgres/NNNN_name.sql and applied in order by `migratePostgres`: in one
 * transaction, under an advisory lock, so two servers that start at once
 * apply each migration once, and a second call changes nothing.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRootDir } from "../runtime/package-root.js";
import { errorCode, inTransaction, UNDEFINED_TABLE, type Pool, type Queryable } from "./database.js";
import { SchemaNotMigratedError } from "./errors.js";

/** Any number: it names this package's migrations among the advisory locks of the database. */
const MIGRATION_LOCK = 4_207_316_613;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The migrations this package ships, in version order. */
export function postgresMigrations(): Migration[] {
  const folder = join(packageRootDir() ?? ".", "sql", "postgres");
  return readdirSync(folder)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 4)), name: file.slice(5, -4), sql: readFileSync(join(folder, file), "utf8") }));
}

export interface MigrationResult {
  /** The versions this call applied (none when the schema was current). */
  applied: number[];
  /** The schema's version now. */
  version: number;
}

/** Applies every migration the database lacks. Idempotent; safe when several servers call it at once. */
export async function migratePostgres(pool: Pool): Promise<MigrationResult> {
  const migrations = postgresMigrations();
  return inTransaction(pool, async (client) => {
    await client.query("select pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      "create table if not exists gamma_schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())",
    );
    const done = new Set((await client.query<{ version: number }>("select version from gamma_schema_migrations")).rows.map((row) => row.version));
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query("insert into gamma_schema_migrations (version, name) values ($1, $2)", [migration.version, migration.name]);
      applied.push(migration.version);
    }
    return { applied, version: Math.max(0, ...done, ...applied) };
  });
}

/** Thrown when node-postgres, an optional peer dependency, is not installed. */
export class PgNotInstalledError extends Error {
  override readonly name = "PgNotInstalledError";
  constructor() {
    super("node-postgres is not installed: npm install pg");
  }
}

/**
 * `migratePostgres` on a pool of its own, from a connection string (or, without
 * one, node-postgres's PG* environment variables): what the command line runs.
 */
export async function migrateDatabase(connectionString: string | undefined): Promise<MigrationResult> {
  let pg: { Pool: new (config?: { connectionString?: string }) => Pool };
  try {
    pg = ((await import("pg")) as { default: typeof pg }).default;
  } catch {
    throw new PgNotInstalledError();
  }
  const pool = new pg.Pool(connectionString === undefined ? {} : { connectionString });
  pool.on("error", () => {});
  try {
    return await migratePostgres(pool);
  } finally {
    await pool.end().catch(() => {});
  }
}

/** The version of the newest migration this package ships. */
export function latestMigration(): number {
  return Math.max(0, ...postgresMigrations().map((migration) => migration.version));
}

/** Refuses a database whose schema lacks this package's migrations, with a message that says what to run. */
export async function checkSchema(db: Queryable): Promise<void> {
  const expected = latestMigration();
  const found = await db.query<{ version: number | null }>("select max(version) as version from gamma_schema_migrations").then(
    (result) => result.rows[0]?.version ?? 0,
    (error: unknown) => {
      // Only a missing table means "not migrated"; a refused connection or login is that failure, not a schema's.
      if (errorCode(error) === UNDEFINED_TABLE) return 0;
      throw error;
    },
  );
  if (found < expected) throw new SchemaNotMigratedError(found, expected);
}
