/**
 * `PostgresStateStore`, for a host that keeps leases of its own, refuses a
 * missing pool or lease, naming the argument and what a lease is, before any
 * statement is sent. No database is needed to be refused.
 */
import { describe, expect, it } from "vitest";
import { PostgresStateStore } from "../../src/runtime-postgres/index.js";

/** A value a plain JavaScript host passes, whatever the types say. */
const js = (value: unknown): never => value as never;
const LEASE = "a lease { sessionKey, owner, token } as gamma_sessions holds it (session_key, lease_owner, lease_token); see docs/guide/running-across-servers.md";

describe("new PostgresStateStore(pool, lease)", () => {
  const sent: unknown[] = [];
  const pool = { query: async (text: unknown) => (sent.push(text), { rows: [], rowCount: 0 }), connect: async () => ({}) };

  it.each([
    ["a connection string for the pool", () => new PostgresStateStore(js("postgres://x"), js(undefined)), 'Unexpected PostgresStateStore pool "postgres://x", expected a node-postgres pool (new pg.Pool({ connectionString }))'],
    ["no lease", () => new PostgresStateStore(js(pool), js(undefined)), `Unexpected PostgresStateStore lease undefined, expected ${LEASE}`],
    ["a lease without its session", () => new PostgresStateStore(js(pool), js({ owner: "web-1#3fa9c2", token: 1 })), `Unexpected lease.sessionKey undefined, expected the session's key, ${LEASE}`],
    ["a lease without its owner", () => new PostgresStateStore(js(pool), js({ sessionKey: "deck-42", token: 1 })), `Unexpected lease.owner undefined, expected the lease's holder, ${LEASE}`],
    ["options that are no object", () => new PostgresStateStore(js(pool), { sessionKey: "deck-42", owner: "web-1#3fa9c2", token: 1 }, js(5)), "Unexpected PostgresStateStore options 5, expected an object such as { compactAfterRecords: 1000 }"],
  ])("%s: a TypeError naming it", (_name, make, message) => {
    expect(make).toThrow(TypeError);
    expect(make).toThrow(message);
    expect(sent).toEqual([]);
  });

  it("takes a token as a number, as its decimal digits (node-postgres's reading of lease_token) or as a BigInt, sending nothing", () => {
    for (const token of [7, "7", "0", 7n, "9007199254740991"]) {
      expect(() => new PostgresStateStore(js(pool), js({ sessionKey: "deck-42", owner: "web-1#3fa9c2", token }))).not.toThrow();
    }
    expect(sent).toEqual([]);
  });

  it.each([
    ["a string that is no whole number", "1.5", '"1.5"'],
    ["a negative string", "-1", '"-1"'],
    ["digits with a leading zero", "07", '"07"'],
    ["digits with spaces", " 7", '" 7"'],
    ["an empty string", "", '""'],
    ["an exponent", "1e3", '"1e3"'],
    ["digits past the largest safe integer", "9007199254740993", '"9007199254740993"'],
    ["a fraction", 1.5, "1.5"],
    ["a negative number", -1, "-1"],
    ["a negative BigInt", -1n, "-1n"],
    ["no token", undefined, "undefined"],
  ])("a lease whose token is %s is a RangeError naming it", (_name, token, shown) => {
    expect(() => new PostgresStateStore(js(pool), js({ sessionKey: "deck-42", owner: "web-1#3fa9c2", token }))).toThrow(
      new RangeError(`Unexpected lease.token ${shown}, expected an integer, 0 or more: a number, or its decimal digits as node-postgres reads lease_token ("7")`),
    );
    expect(sent).toEqual([]);
  });
});
