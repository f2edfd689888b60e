import { InvalidArgumentError, type Command } from "commander";
import { EXIT_FINDINGS, EXIT_OK, EXIT_USAGE } from "../../diagnostics/exit-code.js";
import { messageOf } from "../../protocol/error-message.js";
import { commandHelpFooter } from "../options.js";

interface MigrateOptions {
  url?: string;
  print?: boolean;
}

export function registerPostgresCommand(program: Command, result: { exitCode: number }): void {
  const postgres = program.command("postgres").description("Manage the PostgreSQL schema of gamma-prompt/runtime/postgres (sessions that outlive their server).");
  postgres
    .command("migrate")
    .description("Apply the schema's migrations the database lacks (idempotent, safe when several servers run it at once).")
    .option("--url <url>", "connection string (default: DATABASE_URL, then the PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD variables)", connectionString)
    .option("--print", "print, instead of applying it, one SQL statement that migrates a database as this command does (for a migration tool of your own, or psql)")
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `Needs node-postgres (npm install pg). Each migration is applied once, in order, in one
transaction under an advisory lock, and recorded in gamma_schema_migrations with its checksum; a table
that holds migrations which are not gamma-prompt's is refused, and nothing is applied. --print connects
to nothing: its statement does all of that in the database (applied again, it changes nothing).`,
        exitCodes: "0 applied or already current, 1 the database refused or could not be reached, or holds another application's migrations, 2 usage error (pg not installed).",
        examples: ["gamma-prompt postgres migrate --url postgres://agent@db.internal/agents", "gamma-prompt postgres migrate --print > gamma-prompt-schema.sql"],
      }),
    )
    .action(async (options: MigrateOptions) => {
      // The PostgreSQL entry point, and node-postgres through it, load only when this command runs.
      const { latestMigration, migrateDatabase, migrationScript, PgNotInstalledError } = await import("../../runtime-postgres/migrate.js");
      if (options.print) {
        process.stdout.write(migrationScript());
        result.exitCode = EXIT_OK;
        return;
      }
      try {
        const url = options.url ?? process.env["DATABASE_URL"];
        if (url !== undefined && !isConnectionString(url)) {
          process.stderr.write(`gamma-prompt postgres migrate: DATABASE_URL is not a connection string, expected one such as postgres://user@host:5432/db\n`);
          result.exitCode = EXIT_USAGE;
          return;
        }
        const migrated = await migrateDatabase(url);
        const shipped = latestMigration();
        process.stdout.write(
          migrated.applied.length > 0
            ? `applied migration${migrated.applied.length === 1 ? "" : "s"} ${migrated.applied.join(", ")}; schema at migration ${migrated.version}\n`
            : migrated.version > shipped
              ? `schema is at migration ${migrated.version}, newer than the last this package ships (${shipped}): nothing to apply; a later gamma-prompt migrated it\n`
              : `schema is current: migration ${migrated.version}\n`,
        );
        result.exitCode = EXIT_OK;
      } catch (error) {
        process.stderr.write(`gamma-prompt postgres migrate: ${messageOf(error)}\n`);
        result.exitCode = error instanceof PgNotInstalledError ? EXIT_USAGE : EXIT_FINDINGS;
      }
    });
}

/** node-postgres reads any text as a connection string: a word that is none would be looked up as a host. */
function isConnectionString(value: string): boolean {
  return /^(?:postgres|postgresql|socket):/i.test(value);
}

function connectionString(value: string): string {
  if (!isConnectionString(value)) throw new InvalidArgumentError("Expected a connection string such as postgres://user@host:5432/db (or socket:/path/to/socket?db=name).");
  return value;
}
