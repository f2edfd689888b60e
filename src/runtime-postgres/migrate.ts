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
import { errorCode, expectPool, inTransaction, UNDEFINED_TABLE, type Pool, type Queryable } from "./database.js";
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
  expectPool(pool, "migratePostgres pool");
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
    await client.query(CREATE_MIGRATIONS_TABLE);
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

/** The statement that makes the bookkeeping table, in migratePostgres and in the printed script alike. */
const CREATE_MIGRATIONS_TABLE = "create table if not exists gamma_schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())";

/** A SQL string literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * What `gamma-prompt postgres migrate --print` prints: one statement (a `do`
 * block, so one transaction, inside a migration tool's own or alone) that does
 * what `migratePostgres` does, for a database migrated by a tool other than
 * this package: under the same advisory lock, it makes gamma_schema_migrations
 * when missing, refuses a table that holds migrations which are not this
 * package's (the ForeignMigrationError's message), applies each migration the
 * table does not record, in order, and records its version, name and
 * checksum. Applied again, it changes nothing; a server and `migratePostgres`
 * find the database it migrated current.
 */
export function migrationScript(migrations: readonly Migration[] = postgresMigrations()): string {
  const latest = Math.max(0, ...migrations.map((migration) => migration.version));
  const ours = migrations.map((migration) => `(${migration.version}, ${literal(migration.name)}, ${literal(migration.checksum)})`).join(", ");
  const quoted = (migration: Migration): string => {
    const tag = `$gamma_migration_${migration.version}$`;
    if (migration.sql.includes(tag)) throw new Error(`Unexpected ${tag} in migration ${migration.version}'s SQL, expected a dollar-quote tag it does not hold`);
    return `${tag}${migration.sql}${tag}`;
  };
  const lines = [
    `-- gamma-prompt/runtime/postgres: migrations 1 to ${latest}, as \`gamma-prompt postgres migrate\` applies them.`,
    "-- One statement, so one transaction: under the command's advisory lock it creates gamma_schema_migrations",
    "-- when missing, refuses a table that holds migrations which are not gamma-prompt's, applies each migration",
    "-- the table does not record, in order, and records its version, name and checksum. Applied again, it",
    "-- changes nothing; `gamma-prompt postgres migrate` and the servers find the database it migrated current.",
    "do $gamma_migrate$",
    "declare",
    "  recorded record;",
    "  applied integer[] := '{}';",
    "begin",
    `  perform pg_advisory_xact_lock(${MIGRATION_LOCK});`,
    `  ${CREATE_MIGRATIONS_TABLE};`,
    "  -- A row with one of gamma-prompt's versions but another name or checksum was written by something else.",
    "  for recorded in",
    "    select m.version, m.name, to_jsonb(m) ->> 'checksum' as checksum, ours.name as our_name, ours.checksum as our_checksum",
    `    from gamma_schema_migrations m left join (values ${ours}) as ours (version, name, checksum) on ours.version = m.version`,
    `    where m.version <= ${latest}`,
    "    order by m.version",
    "  loop",
    "    if recorded.our_name is null or recorded.our_name <> recorded.name or recorded.checksum <> recorded.our_checksum then",
    "      raise exception '%', format(",
    `        'Unexpected row in gamma_schema_migrations: migration %s is recorded as "%s" %s; the table holds migrations that are not gamma-prompt''s, so nothing was applied (give gamma-prompt a database or schema of its own)',`,
    "        recorded.version, recorded.name,",
    "        case",
    "          when recorded.our_name is null then 'which gamma-prompt never shipped'",
    `          when recorded.our_name <> recorded.name then format('but gamma-prompt''s migration %s is "%s"', recorded.version, recorded.our_name)`,
    "          else format('with checksum %s, but gamma-prompt''s has checksum %s', left(recorded.checksum, 12), left(recorded.our_checksum, 12))",
    "        end",
    "      ) using errcode = 'P0001';",
    "    end if;",
    "  end loop;",
  ];
  for (const migration of migrations) {
    lines.push(
      `  -- migration ${migration.version}: ${migration.name}`,
      `  if not exists (select 1 from gamma_schema_migrations where version = ${migration.version}) then`,
      `    execute ${quoted(migration)};`,
      `    insert into gamma_schema_migrations (version, name) values (${migration.version}, ${literal(migration.name)});`,
      `    applied := applied || ${migration.version};`,
      "  end if;",
    );
  }
  lines.push(
    "  -- The checksum column comes with migration 2: each migration applied here gets its checksum once it is there.",
    "  if exists (select 1 from pg_attribute where attrelid = to_regclass('gamma_schema_migrations') and attname = 'checksum' and not attisdropped) then",
    `    execute 'update gamma_schema_migrations m set checksum = ours.checksum from (values ${ours.replaceAll("'", "''")}) as ours (version, name, checksum) where m.version = ours.version and m.version = any($1)' using applied;`,
    "  end if;",
    "end",
    "$gamma_migrate$;",
  );
  return `${lines.join("\n")}\n`;
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
  let pg: { Pool: new (config?: { connectionString?: string }) => Pool & { on(event: "error", listener: (error: Error) => void): unknown; end(): Promise<void> } };
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
