// `gamma-prompt postgres migrate` on a real PostgreSQL server: applies, then
// finds the schema current (the CLI reference's transcript), prints SQL that
// migrates a database as the command does, and says in one line why a
// database cannot be reached.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ForeignMigrationError, migratePostgres, PostgresSessions, postgresMigrations } from "../../src/runtime-postgres/index.js";
import { docPage } from "../helpers/docs.js";
import { readGolden } from "../helpers/golden.js";
import { runCliInProcess } from "../helpers/cli.js";
import { usePostgres } from "./helpers.js";

const db = usePostgres({ migrate: false });
const reference = docPage("docs/reference/cli.md");

describe("gamma-prompt postgres migrate", () => {
  it("applies the migrations once, then finds the schema current, as the CLI reference shows", async () => {
    const url = db.server().url;
    const first = await runCliInProcess("postgres", "migrate", "--url", url);
    const second = await runCliInProcess("postgres", "migrate", "--url", url);
    expect(first).toEqual({ code: 0, stdout: "applied migrations 1, 2; schema at migration 2\n", stderr: "" });
    expect(second).toEqual({ code: 0, stdout: "schema is current: migration 2\n", stderr: "" });
    const shown = reference.blockStartingWith("$ npx gamma-prompt postgres migrate");
    const port = String(db.server().port);
    expect(shown.replaceAll("5432", port)).toBe(`$ npx gamma-prompt postgres migrate --url ${url}\n${first.stdout}$ npx gamma-prompt postgres migrate --url ${url}\n${second.stdout}`);
  });

  it("says so when a later version of the package migrated the database further, and applies nothing", async () => {
    const url = db.server().url.replace(/\/[^/]*$/, "/migrated_later");
    await db.createDatabase("migrated_later");
    expect((await runCliInProcess("postgres", "migrate", "--url", url)).code).toBe(0);
    const later = db.pool({ database: "migrated_later" });
    await later.query("insert into gamma_schema_migrations (version, name) values (3, 'from_a_later_release')");
    expect(await runCliInProcess("postgres", "migrate", "--url", url)).toEqual({
      code: 0,
      stdout: "schema is at migration 3, newer than the last this package ships (2): nothing to apply; a later gamma-prompt migrated it\n",
      stderr: "",
    });
  });

  it("refuses, in one line and exit 1, a database whose migrations table holds another application's row 1", async () => {
    const url = db.server().url.replace(/\/[^/]*$/, "/foreign_rows");
    await db.createDatabase("foreign_rows");
    const foreign = db.pool({ database: "foreign_rows" });
    await foreign.query("create table gamma_schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())");
    await foreign.query("insert into gamma_schema_migrations (version, name) values (1, 'users')");
    expect(await runCliInProcess("postgres", "migrate", "--url", url)).toEqual({
      code: 1,
      stdout: "",
      stderr:
        'gamma-prompt postgres migrate: Unexpected row in gamma_schema_migrations: migration 1 is recorded as "users" but gamma-prompt\'s migration 1 is "sessions"; the table holds migrations that are not gamma-prompt\'s, so nothing was applied (give gamma-prompt a database or schema of its own)\n',
    });
  });

  it("prints the migrations' SQL without connecting: one statement, the golden file", async () => {
    const printed = await runCliInProcess("postgres", "migrate", "--print", "--url", "postgres://nobody@127.0.0.1:1/none");
    expect(printed.code).toBe(0);
    expect(printed.stderr).toBe("");
    expect(printed.stdout).toBe(readGolden(join(import.meta.dirname, "golden", "migrate-print.sql"), printed.stdout));
    for (const migration of postgresMigrations()) expect(printed.stdout).toContain(`-- migration ${migration.version}: ${migration.name}\n`);
    expect(printed.stdout).toContain("create table gamma_events");
  });

  it("prints SQL that migrates a database as the command does: applied by a plain client to an empty database, servers start on it, the command finds it current, and applied again it changes nothing", async () => {
    const { stdout: script } = await runCliInProcess("postgres", "migrate", "--print");
    await db.createDatabase("printed_empty");
    const printed = db.pool({ database: "printed_empty" });
    await printed.query(script);
    const recorded = "select version, name, checksum, applied_at from gamma_schema_migrations order by version";
    const rows = (await printed.query(recorded)).rows;
    expect(rows.map(({ applied_at: _at, ...row }) => row)).toEqual(postgresMigrations().map(({ version, name, checksum }) => ({ version, name, checksum })));
    const sessions = await PostgresSessions.start({ pool: printed });
    await sessions.close();
    expect(await migratePostgres(printed)).toEqual({ applied: [], version: 2 });
    const url = db.server().url.replace(/\/[^/]*$/, "/printed_empty");
    expect(await runCliInProcess("postgres", "migrate", "--url", url)).toEqual({ code: 0, stdout: "schema is current: migration 2\n", stderr: "" });
    await printed.query(script);
    expect((await printed.query(recorded)).rows).toEqual(rows);

    // What the command leaves in a database it migrated is what the printed SQL leaves: the same tables and columns.
    await db.createDatabase("command_migrated");
    const commanded = db.pool({ database: "command_migrated" });
    await migratePostgres(commanded);
    const schema =
      "select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns where table_schema = 'public' order by table_name, ordinal_position";
    expect((await printed.query(schema)).rows).toEqual((await commanded.query(schema)).rows);
  });

  it("prints SQL that applies only what a database lacks (one the previous release migrated), and refuses another application's migrations table with the command's message, applying nothing", async () => {
    const { stdout: script } = await runCliInProcess("postgres", "migrate", "--print");
    const [sessions] = postgresMigrations();
    await db.createDatabase("printed_previous");
    const previous = db.pool({ database: "printed_previous" });
    await previous.query("create table gamma_schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())");
    await previous.query(sessions?.sql ?? "");
    await previous.query("insert into gamma_schema_migrations (version, name) values (1, 'sessions')");
    await previous.query(script);
    const rows = await previous.query("select version, name, checksum is null as unrecorded from gamma_schema_migrations order by version");
    expect(rows.rows).toEqual([
      { version: 1, name: "sessions", unrecorded: true },
      { version: 2, name: "migration_checksums", unrecorded: false },
    ]);
    expect(await migratePostgres(previous)).toEqual({ applied: [], version: 2 });

    await db.createDatabase("printed_foreign");
    const foreign = db.pool({ database: "printed_foreign" });
    await foreign.query("create table gamma_schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())");
    await foreign.query("insert into gamma_schema_migrations (version, name) values (1, 'users')");
    await expect(foreign.query(script)).rejects.toThrow(new ForeignMigrationError({ version: 1, name: "users", checksum: null }, sessions).message);
    expect((await foreign.query("select to_regclass('gamma_sessions') as sessions")).rows).toEqual([{ sessions: null }]);

    await db.createDatabase("printed_other_sql");
    const other = db.pool({ database: "printed_other_sql" });
    await migratePostgres(other);
    await other.query("update gamma_schema_migrations set checksum = repeat('0', 64) where version = 1");
    await expect(other.query(script)).rejects.toThrow(new ForeignMigrationError({ version: 1, name: "sessions", checksum: "0".repeat(64) }, sessions).message);
  });

  it("says in one line why the database cannot be reached, and exits 1", async () => {
    const refused = await runCliInProcess("postgres", "migrate", "--url", "postgres://nobody@127.0.0.1:1/none");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/^gamma-prompt postgres migrate: .*ECONNREFUSED.*\n$/);
  });

  it("refuses a --url that is no connection string as a usage error (exit 2), before looking up any host", async () => {
    const word = await runCliInProcess("postgres", "migrate", "--url", "notaurl");
    expect(word.code).toBe(2);
    expect(word.stderr).toContain("Expected a connection string such as postgres://user@host:5432/db");
  });
});
