import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { acceptInjection, checkInjection, InjectionRejectedError } from "../../src/runtime/injections/index.js";
import { kinds, listFixtures } from "./helpers/fixtures.js";

const schema = JSON.parse(readFileSync(new URL("../../schemas/runtime-injection.schema.json", import.meta.url), "utf8")) as object;
const ajv = new Ajv2020({ allErrors: true, strict: true });
const validateWithSchema = ajv.compile(schema);

const valid = listFixtures("envelopes/valid", ".json");
const invalid = listFixtures("envelopes/invalid", ".json");

describe("the envelope schema and the runtime's hand-written check agree", () => {
  it("has a corpus of both kinds", () => {
    expect(valid.length).toBeGreaterThanOrEqual(8);
    expect(invalid.length).toBeGreaterThanOrEqual(30);
  });

  it.each(valid)("accepts $name", ({ text }) => {
    const raw: unknown = JSON.parse(text);
    expect(validateWithSchema(raw), JSON.stringify(validateWithSchema.errors)).toBe(true);
    expect(checkInjection(raw).ok).toBe(true);
  });

  it.each(invalid)("refuses $name", ({ text }) => {
    const raw: unknown = JSON.parse(text);
    expect(validateWithSchema(raw)).toBe(false);
    const result = checkInjection(raw);
    expect(result.ok).toBe(false);
  });
});

describe("acceptInjection at the boundary", () => {
  it("names the bad field in the error", () => {
    const cases: Array<[string, string]> = [
      ["missing-id.json", "/id"],
      ["bad-delivery.json", "/delivery"],
      ["date-no-offset.json", "/occurredAt"],
      ["date-no-such-day.json", "/occurredAt"],
      ["subject-newline.json", "/subject/ref"],
      ["origin-extra.json", "/origin/trusted"],
      ["details-change-attr.json", "/details/change"],
      ["extra-property.json", "/trusted"],
      ["not-object.json", ""],
    ];
    for (const [name, field] of cases) {
      const fixture = invalid.find((entry) => entry.name === name);
      expect(fixture, name).toBeDefined();
      let caught: unknown;
      try {
        acceptInjection(JSON.parse(fixture?.text ?? "null"));
      } catch (error) {
        caught = error;
      }
      expect(caught, name).toBeInstanceOf(InjectionRejectedError);
      const rejected = caught as InjectionRejectedError;
      expect(rejected.field, name).toBe(field);
      expect(rejected.message, name).toMatch(/^(Unexpected|Missing) /);
      const where = field === "" ? "event" : field.slice(1).replaceAll("/", ".");
      expect(rejected.message, name).toContain(`(at ${where})`);
    }
  });

  it("returns a detached copy with only the envelope's fields", () => {
    const raw = JSON.parse(valid.find((entry) => entry.name === "brief-saved.json")?.text ?? "{}") as Record<string, unknown>;
    const accepted = acceptInjection(raw);
    expect(accepted).toEqual(raw);
    (raw["subject"] as Record<string, string>)["ref"] = "changed";
    (raw["details"] as Record<string, unknown>)["bytes"] = 0;
    expect(accepted.subject?.ref).toBe("file:gamma-agent/session/generations/q3/brief.xml");
    expect(accepted.details?.["bytes"]).toBe(1234);
  });

  it("refuses a kind the artifacts do not define when the kinds table is given", () => {
    const raw = JSON.parse(valid.find((entry) => entry.name === "minimal.json")?.text ?? "{}") as unknown;
    const withoutNotes = kinds.filter((entry) => entry.kind !== "system_note");
    expect(() => acceptInjection(raw, { kinds: withoutNotes })).toThrow(/dist\/injections\.json defines \(at kind\)/);
    expect(acceptInjection(raw, { kinds }).kind).toBe("system_note");
  });

  it("refuses details that are not JSON data", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    const raw = { ...JSON.parse(valid[0]?.text ?? "{}"), details: cyclic } as unknown;
    expect(() => acceptInjection(raw)).toThrow(InjectionRejectedError);
  });

  it("counts lengths in code points as JSON Schema does", () => {
    const base = JSON.parse(valid.find((entry) => entry.name === "minimal.json")?.text ?? "{}") as Record<string, unknown>;
    const fourThousandEmoji = { ...base, summary: "😀".repeat(4000) };
    expect(validateWithSchema(fourThousandEmoji)).toBe(true);
    expect(checkInjection(fourThousandEmoji).ok).toBe(true);
    const tooMany = { ...base, summary: "😀".repeat(4001) };
    expect(validateWithSchema(tooMany)).toBe(false);
    expect(checkInjection(tooMany).ok).toBe(false);
  });
});
