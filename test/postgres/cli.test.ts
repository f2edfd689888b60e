// `gamma-prompt postgres migrate` on a real PostgreSQL server: applies, then
// finds the schema current (the CLI reference's transcript), prints the SQL,
// and says in one line why a database cannot be reached.
import { describe, expect, it } from "vitest";
import { docPage } from "../helpers/docs.js";
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

  it("prints the migrations' SQL without connecting", async () => {
    const printed = await runCliInProcess("postgres", "migrate", "--print", "--url", "postgres://nobody@127.0.0.1:1/none");
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/^-- migration 1: sessions\n-- gamma-prompt\/runtime\/postgres, migration 1/);
    expect(printed.stdout).toContain("create table gamma_events");
    expect(printed.stdout).toContain("-- migration 2: migration_checksums\n");
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
