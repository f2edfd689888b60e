/**
 * The schema's versioned, forward-only migrations, written as
 * sql/postgres/NNNN_name.sql and embedded in the code at build time
 * (src/generated/postgres-migrations.ts), so a bundled server carries them and
 * never reads another project's sql/. `migratePostgres` applies them in order:
 * in one transaction, under an advisory lock, so two servers that start at
 * once apply each migration once, and a second call changes nothing. Every
 * recorded migration is compared with this package's by name (and checksum,
 * once migration 2 records them): a table that holds anything else is refused.
 */
import { POSTGRES_MIGRATIONS } from "../generated/postgres-migrations.js";
import { errorCode, inTransaction, UNDEFINED_TABLE, type Pool, type Queryable } from "./database.js";
import { ForeignMigrationError, SchemaNotMigratedError } from "./errors.js";

/** Any number: it names this package's migrations among the advisory locks of the database. */
const MIGRATION_LOCK = 4_207_316_613;

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** The sha256 (hex) of `sql`, as recorded in gamma_schema_migrations. */
  checksum: string;
}

/** The migrations this package ships, in version order. */
export function postgresMigrations(): Migration[] {
  return POSTGRES_MIGRATIONS.map((migration) => ({ ...migration }));
}

interface AppliedMigration {
  version: number;
  name: string;
  checksum: string | null;
}

/** The rows of gamma_schema_migrations; the checksum is null where it was recorded before migration 2 (or has no column yet). */
async function appliedMigrations(db: Queryable): Promise<AppliedMigration[]> {
  const result = await db.query<AppliedMigration>(
    "select version, name, to_jsonb(migration) ->> 'checksum' as checksum from gamma_schema_migrations migration order by version",
  );
  return result.rows;
}

/**
 * Refuses a table whose rows are not this package's migrations: a row with one
 * of our versions but another name or checksum was written by something else,
 * and applying (or trusting) anything on top of it would be a guess. Versions
 * past the last this package ships belong to a later release and are left alone.
 */
function refuseForeign(applied: readonly AppliedMigration[], migrations: readonly Migration[]): void {
  const latest = Math.max(0, ...migrations.map((migration) => migration.version));
  for (const row of applied) {
    if (row.version > latest) continue;
    const ours = migrations.find((migration) => migration.version === row.version);
    if (ours === undefined || ours.name !== row.name || (row.checksum !== null && row.checksum !== ours.checksum)) throw new ForeignMigrationError(row, ours);
  }
}

export interface MigrationResult {
  /** The versions this call applied (none when the schema was current). */
  applied: number[];
  /** The schema's version now. */
  version: number;
}

/**
 * Applies every migration the database lacks. Idempotent; safe when several
 * servers call it at once. A schema that is current is found so by reading
 * alone, so a server whose role may not create tables (a least-privilege
 * application role, a read-only default) can call it at every start.
 */
export async function migratePostgres(pool: Pool): Promise<MigrationResult> {
  const migrations = postgresMigrations();
  const current = await appliedMigrations(pool).catch((error: unknown) => {
    if (errorCode(error) === UNDEFINED_TABLE) return undefined;
    throw error;
  });
  if (current !== undefined) {
    refuseForeign(current, migrations);
    const done = new Set(current.map((row) => row.version));
    if (migrations.every((migration) => done.has(migration.version))) return { applied: [], version: Math.max(0, ...done) };
  }
  return inTransaction(pool, async (client) => {
    await client.query("select pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      "create table if not exists gamma_schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())",
    );
    const recorded = await appliedMigrations(client);
    refuseForeign(recorded, migrations);
    const done = new Set(recorded.map((row) => row.version));
    const applied: Migration[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query("insert into gamma_schema_migrations (version, name) values ($1, $2)", [migration.version, migration.name]);
      applied.push(migration);
    }
    // The checksum column comes with migration 2: each migration this call applied gets its checksum once it is there.
    const withChecksums = await client.query<{ has: boolean }>("select to_jsonb(migration) ? 'checksum' as has from gamma_schema_migrations migration limit 1");
    if (withChecksums.rows[0]?.has === true) {
      for (const migration of applied) {
        await client.query("update gamma_schema_migrations set checksum = $2 where version = $1", [migration.version, migration.checksum]);
      }
    }
    return { applied: applied.map((migration) => migration.version), version: Math.max(0, ...done, ...applied.map((migration) => migration.version)) };
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

/**
 * Refuses a database whose schema lacks this package's migrations, with a
 * message that says what to run, and one whose migrations table holds another
 * application's rows.
 */
export async function checkSchema(db: Queryable): Promise<void> {
  const migrations = postgresMigrations();
  const expected = latestMigration();
  const applied = await appliedMigrations(db).catch((error: unknown) => {
    // Only a missing table means "not migrated"; a refused connection or login is that failure, not a schema's.
    if (errorCode(error) === UNDEFINED_TABLE) return [];
    throw error;
  });
  refuseForeign(applied, migrations);
  const found = Math.max(0, ...applied.map((row) => row.version));
  if (found < expected) throw new SchemaNotMigratedError(found, expected);
}
