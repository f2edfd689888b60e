/**
 * What a caught value says wherever a message quotes it (a store's refusal,
 * a database failure, a command's one line): never an empty reason, never
 * "[object Object]".
 */
import { describe, expect, it } from "vitest";
import { messageOf } from "../../src/protocol/error-message.js";

describe("messageOf", () => {
  it("an Error says its message", () => {
    expect(messageOf(new TypeError("bad input"))).toBe("bad input");
  });

  it("an AggregateError without a message says the messages of the errors it gathers, each once", () => {
    const refused = new AggregateError([new Error("connect ECONNREFUSED 127.0.0.1:5432"), new Error("connect ECONNREFUSED ::1:5432"), new Error("connect ECONNREFUSED 127.0.0.1:5432")], "");
    expect(messageOf(refused)).toBe("connect ECONNREFUSED 127.0.0.1:5432; connect ECONNREFUSED ::1:5432");
    expect(messageOf(new AggregateError([new AggregateError([new Error("inner")]), "a string"]))).toBe("inner; a string");
  });

  it("an AggregateError with a message of its own says that message", () => {
    expect(messageOf(new AggregateError([new Error("one")], "all failed"))).toBe("all failed");
  });

  it("an Error with no message and nothing gathered says its name", () => {
    expect(messageOf(new RangeError(""))).toBe("RangeError");
    expect(messageOf(new AggregateError([]))).toBe("AggregateError");
  });

  it("an object that is no Error says its message, or its JSON, cut when long", () => {
    expect(messageOf({ message: "from a worker", code: "E1" })).toBe("from a worker");
    expect(messageOf({ code: "E1", detail: "disk full" })).toBe('{"code":"E1","detail":"disk full"}');
    const long = { detail: "x".repeat(300) };
    expect(messageOf(long)).toBe(`${JSON.stringify(long).slice(0, 200)}… (${JSON.stringify(long).length} characters)`);
    expect(messageOf([1, "two"])).toBe('[1,"two"]');
  });

  it("an object without JSON or a text of its own says no more than before, and never throws", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    expect(messageOf(cyclic)).toBe("[object Object]");
    expect(messageOf(Object.create(null))).toBe("{}");
    expect(messageOf({ big: 1n })).toBe("[object Object]");
  });

  it("an object with a text of its own, and any other value, say it", () => {
    expect(messageOf(new URL("https://example.com/a"))).toBe("https://example.com/a");
    expect(messageOf("a thrown string")).toBe("a thrown string");
    expect(messageOf(undefined)).toBe("undefined");
    expect(messageOf(null)).toBe("null");
    expect(messageOf(42)).toBe("42");
    expect(messageOf(Symbol("s"))).toBe("Symbol(s)");
  });
});
