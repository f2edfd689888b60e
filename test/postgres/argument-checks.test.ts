/**
 * What a plain JavaScript host gets wrong at the PostgreSQL entry's public
 * functions is refused before any statement is sent, naming the argument or
 * option: a connection string where a pool belongs, a missing pool, callbacks
 * that are not functions. No database is needed to be refused.
 */
import { describe, expect, it } from "vitest";
import { migratePostgres, PostgresSessions, publishUpdate } from "../../src/runtime-postgres/index.js";

const untyped = (value: unknown): never => value as never;
const URL = "postgres://postgres@127.0.0.1:5432/postgres";

async function refusal(run: () => Promise<unknown>): Promise<Error> {
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TypeError);
  return error as Error;
}

describe("the PostgreSQL entry's functions, given no pool", () => {
  it("migratePostgres and publishUpdate name the argument and what it takes", async () => {
    expect((await refusal(() => migratePostgres(untyped(URL)))).message).toBe(`Unexpected migratePostgres pool ${JSON.stringify(URL)}, expected a node-postgres pool (new pg.Pool({ connectionString }))`);
    expect((await refusal(() => migratePostgres(untyped(undefined)))).message).toBe("Unexpected migratePostgres pool undefined, expected a node-postgres pool (new pg.Pool({ connectionString }))");
    expect((await refusal(() => migratePostgres(untyped({ query: () => undefined })))).message).toBe("Unexpected migratePostgres pool without query() and connect(), expected a node-postgres pool (new pg.Pool({ connectionString }))");
    expect((await refusal(() => publishUpdate(untyped(URL), "deck-42", { id: "evt_1" }))).message).toBe(
      `Unexpected publishUpdate db ${JSON.stringify(URL)}, expected a node-postgres pool or client (new pg.Pool({ connectionString }), or a client in a transaction)`,
    );
  });

  it("PostgresSessions.start names the option", async () => {
    expect((await refusal(() => PostgresSessions.start(untyped(undefined)))).message).toBe("Unexpected PostgresSessions.start options undefined, expected an object such as { pool }");
    expect((await refusal(() => PostgresSessions.start(untyped({})))).message).toBe("Unexpected pool undefined, expected a node-postgres pool (new pg.Pool({ connectionString }))");
    expect((await refusal(() => PostgresSessions.start(untyped({ pool: URL })))).message).toBe(`Unexpected pool ${JSON.stringify(URL)}, expected a node-postgres pool (new pg.Pool({ connectionString }))`);
    const pool = { query: async () => ({ rows: [], rowCount: 0 }), connect: async () => ({}) };
    expect((await refusal(() => PostgresSessions.start(untyped({ pool, onError: "log" })))).message).toBe('Unexpected onError "log", expected a function');
    expect((await refusal(() => PostgresSessions.start(untyped({ pool, onEventRefused: 1 })))).message).toBe("Unexpected onEventRefused 1, expected a function");
  });
});
