/**
 * The boundary check for runtime injections. It follows
 * schemas/runtime-injection.schema.json rule for rule (a test runs ajv over the
 * same corpus and asserts both agree); it is hand-written because the runtime
 * must not depend on the compiler's schema validator.
 */
import type { InjectionKindArtifact } from "../../protocol/dist-manifest.js";
import {
  INJECTION_ACTORS,
  INJECTION_DELIVERIES,
  INJECTION_KINDS,
  INJECTION_SOURCES,
  type RuntimeInjection,
} from "./types.js";

/** Why an event was refused; `field` is a JSON pointer into the event ("" for the event itself). */
export class InjectionRejectedError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.name = "InjectionRejectedError";
    this.field = field;
  }
}

// The same expressions as the schema. ajv compiles them with the "u" flag; these
// classes only name BMP characters, so without it they match the same strings
// (a surrogate pair is two units outside every class) and run faster.
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
/** RFC 3339 with an explicit offset, on a day its month has (29 February in leap years only), as the schema's pattern. */
const DATE_TIME_PATTERN =
  /^(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$/;
const SINGLE_LINE_PATTERN = /^[^\u0000-\u001F\u007F]*$/;
const SUMMARY_PATTERN = /^(?=[\s\S]*\S)[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]*$/;
const CHANGE_PATTERN = /^[a-z][a-z0-9_]*$/;

const TOP_LEVEL_KEYS = new Set([
  "id", "kind", "occurredAt", "source", "delivery", "requiresDecision",
  "summary", "dedupeKey", "subject", "origin", "details",
]);
const REQUIRED_KEYS = ["id", "kind", "occurredAt", "source", "delivery", "requiresDecision", "summary"] as const;
const SUBJECT_KEYS = new Set(["ref", "path", "revision"]);
const ORIGIN_KEYS = new Set(["actor", "interactionId", "toolCallId"]);

export interface AcceptInjectionOptions {
  /**
   * The kinds of dist/injections.json. When given, an event whose kind the
   * artifacts do not define is refused too (the prompt could not explain it).
   */
  kinds?: readonly InjectionKindArtifact[];
}

/**
 * Validates an untrusted event and returns a detached copy holding only the
 * envelope's fields. Throws InjectionRejectedError naming the first bad field.
 */
export function acceptInjection(raw: unknown, options: AcceptInjectionOptions = {}): RuntimeInjection {
  const event = expectObject(raw, "");
  for (const key of Object.keys(event)) {
    if (!TOP_LEVEL_KEYS.has(key)) reject(pointer("", key), `Unexpected property ${quote(key)}, expected only the envelope's fields`);
  }
  // Like ajv, a property holding undefined counts as absent.
  for (const key of REQUIRED_KEYS) {
    if (event[key] === undefined) reject(pointer("", key), `Missing required property ${quote(key)}`);
  }

  const id = expectString(event["id"], "/id", { maxLength: 128, pattern: ID_PATTERN, expected: "letters, digits and . _ : - (starting with a letter or digit)" });
  const kind = expectEnum(event["kind"], "/kind", INJECTION_KINDS);
  const occurredAt = expectString(event["occurredAt"], "/occurredAt", { pattern: DATE_TIME_PATTERN, expected: "an RFC 3339 date-time on a day its month has, such as 2026-01-31T09:30:00Z" });
  const source = expectEnum(event["source"], "/source", INJECTION_SOURCES);
  const delivery = expectEnum(event["delivery"], "/delivery", INJECTION_DELIVERIES);
  const requiresDecision = event["requiresDecision"];
  if (typeof requiresDecision !== "boolean") reject("/requiresDecision", `Unexpected ${describe(requiresDecision)}, expected a boolean`);
  const summary = expectString(event["summary"], "/summary", { minLength: 1, maxLength: 4000, pattern: SUMMARY_PATTERN, expected: "some text, with no control characters other than tab and line breaks" });

  const accepted: RuntimeInjection = { id, kind, occurredAt, source, delivery, requiresDecision, summary };
  if (event["dedupeKey"] !== undefined) accepted.dedupeKey = expectKey(event["dedupeKey"], "/dedupeKey");
  if (event["subject"] !== undefined) accepted.subject = acceptSubject(event["subject"]);
  if (event["origin"] !== undefined) accepted.origin = acceptOrigin(event["origin"]);
  if (event["details"] !== undefined) accepted.details = acceptDetails(event["details"]);

  if (options.kinds && !options.kinds.some((entry) => entry.kind === kind)) {
    reject("/kind", `Unexpected kind ${quote(kind)}, expected one that dist/injections.json defines`);
  }
  return accepted;
}

/** Like acceptInjection, but returns the refusal instead of throwing. */
export function checkInjection(
  raw: unknown,
  options: AcceptInjectionOptions = {},
): { ok: true; injection: RuntimeInjection } | { ok: false; error: InjectionRejectedError } {
  try {
    return { ok: true, injection: acceptInjection(raw, options) };
  } catch (error) {
    if (error instanceof InjectionRejectedError) return { ok: false, error };
    throw error;
  }
}

function acceptSubject(raw: unknown): NonNullable<RuntimeInjection["subject"]> {
  const subject = expectObject(raw, "/subject");
  onlyKeys(subject, "/subject", SUBJECT_KEYS);
  const result: NonNullable<RuntimeInjection["subject"]> = {};
  for (const key of ["ref", "path", "revision"] as const) {
    if (subject[key] !== undefined) {
      result[key] = expectString(subject[key], `/subject/${key}`, { minLength: 1, maxLength: 1000, pattern: SINGLE_LINE_PATTERN, expected: "one line of text" });
    }
  }
  return result;
}

function acceptOrigin(raw: unknown): NonNullable<RuntimeInjection["origin"]> {
  const origin = expectObject(raw, "/origin");
  onlyKeys(origin, "/origin", ORIGIN_KEYS);
  const result: NonNullable<RuntimeInjection["origin"]> = {};
  if (origin["actor"] !== undefined) result.actor = expectEnum(origin["actor"], "/origin/actor", INJECTION_ACTORS);
  if (origin["interactionId"] !== undefined) result.interactionId = expectKey(origin["interactionId"], "/origin/interactionId");
  if (origin["toolCallId"] !== undefined) result.toolCallId = expectKey(origin["toolCallId"], "/origin/toolCallId");
  return result;
}

function acceptDetails(raw: unknown): Record<string, unknown> {
  const details = expectObject(raw, "/details");
  if (details["change"] !== undefined) {
    expectString(details["change"], "/details/change", { maxLength: 64, pattern: CHANGE_PATTERN, expected: "a snake_case category such as content_saved" });
  }
  if (details["jobId"] !== undefined) expectKey(details["jobId"], "/details/jobId");
  // Pending events are persisted as JSON, so details must be plain JSON data.
  const copy = copyJson(details, 0);
  if (copy === NOT_JSON) reject("/details", "Unexpected value that is not JSON data, expected a JSON object");
  return copy as Record<string, unknown>;
}

const NOT_JSON = Symbol("not JSON");
const MAX_DEPTH = 64;

/** A detached copy of JSON data, or NOT_JSON for anything JSON cannot hold (functions, cycles, NaN...). */
function copyJson(value: unknown, depth: number): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : NOT_JSON;
  if (typeof value !== "object" || depth > MAX_DEPTH) return NOT_JSON;
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) {
      const copied = copyJson(item, depth + 1);
      if (copied === NOT_JSON) return NOT_JSON;
      items.push(copied);
    }
    return items;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return NOT_JSON;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copied = copyJson((value as Record<string, unknown>)[key], depth + 1);
    if (copied === NOT_JSON) return NOT_JSON;
    // defineProperty keeps a "__proto__" key an ordinary property, as JSON.parse does.
    if (key === "__proto__") Object.defineProperty(copy, key, { value: copied, enumerable: true, writable: true, configurable: true });
    else copy[key] = copied;
  }
  return copy;
}

interface StringRule {
  minLength?: number;
  maxLength?: number;
  pattern?: RegExp;
  expected: string;
}

function expectString(value: unknown, field: string, rule: StringRule): string {
  if (typeof value !== "string") reject(field, `Unexpected ${describe(value)}, expected a string`);
  // JSON Schema lengths count code points, not UTF-16 units (counted only when the units leave doubt).
  if (rule.minLength !== undefined && value.length < 2 * rule.minLength && codePointLength(value) < rule.minLength) {
    reject(field, `Unexpected empty string, expected ${rule.expected}`);
  }
  if (rule.maxLength !== undefined && value.length > rule.maxLength) {
    const length = codePointLength(value);
    if (length > rule.maxLength) reject(field, `Unexpected string of ${length} characters, expected at most ${rule.maxLength}`);
  }
  if (rule.pattern && !rule.pattern.test(value)) reject(field, `Unexpected value ${preview(value)}, expected ${rule.expected}`);
  return value;
}

function expectKey(value: unknown, field: string): string {
  return expectString(value, field, { minLength: 1, maxLength: 200, pattern: SINGLE_LINE_PATTERN, expected: "one line of text" });
}

function expectEnum<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    reject(field, `Unexpected ${typeof value === "string" ? `value ${preview(value)}` : describe(value)}, expected one of ${allowed.join(", ")}`);
  }
  return value as T;
}

function expectObject(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    reject(field, `Unexpected ${describe(value)}, expected an object`);
  }
  return value as Record<string, unknown>;
}

function onlyKeys(object: Record<string, unknown>, field: string, allowed: ReadonlySet<string>): void {
  for (const key of Object.keys(object)) {
    if (!allowed.has(key)) reject(pointer(field, key), `Unexpected property ${quote(key)}, expected only ${[...allowed].join(", ")}`);
  }
}

function reject(field: string, message: string): never {
  const where = field === "" ? "event" : field.slice(1).replaceAll("/", ".");
  throw new InjectionRejectedError(field, `${message} (at ${where})`);
}

function pointer(base: string, key: string): string {
  return `${base}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

function preview(text: string): string {
  return quote(text);
}
