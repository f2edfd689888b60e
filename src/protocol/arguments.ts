/**
 * Checks of what a caller passes to a public entry point, for callers the
 * types do not reach (plain JavaScript, a value read from elsewhere): a wrong
 * type is a TypeError, a value out of range a RangeError, each naming the
 * argument or option and what it takes, before anything is changed or stored.
 */
import { fileURLToPath } from "node:url";

/** A value as an argument error shows it: a string quoted (and cut when long), an array, an object, a number as itself. */
export function shownValue(value: unknown): string {
  if (typeof value === "string") return value.length > 60 ? `${JSON.stringify(value.slice(0, 60))}… (${value.length} characters)` : JSON.stringify(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "function") return "a function";
  if (value instanceof URL) return `URL ${JSON.stringify(value.href.length > 60 ? `${value.href.slice(0, 60)}…` : value.href)}`;
  if (typeof value === "object" && value !== null) return "an object";
  if (typeof value === "bigint") return `${value}n`;
  return String(value);
}

/** Throws a TypeError naming `name` unless `value` is a plain object (not an array, not null). */
export function expectObject(value: unknown, name: string, expected = "an object"): asserts value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new TypeError(`Unexpected ${name} ${shownValue(value)}, expected ${expected}`);
}

/** Throws a TypeError naming `name` unless `value` is a string (non-empty unless `allowEmpty`). */
export function expectString(value: unknown, name: string, expected = "a string", allowEmpty = false): asserts value is string {
  if (typeof value !== "string" || (!allowEmpty && value === "")) throw new TypeError(`Unexpected ${name} ${shownValue(value)}, expected ${expected}`);
}

/**
 * A path given as a string or a `file:` URL (as Node's fs takes it), as the
 * path: a TypeError naming `name` for anything else, including a URL of
 * another scheme and a `file:` URL that names no local file (a host, an
 * encoded slash).
 */
export function expectPath(value: unknown, name: string, expected: string, allowEmpty = false): string {
  if (!(value instanceof URL)) {
    expectString(value, name, expected, allowEmpty);
    return value;
  }
  if (value.protocol !== "file:") throw new TypeError(`Unexpected ${name} ${shownValue(value)}, expected ${expected}`);
  try {
    return fileURLToPath(value);
  } catch (error) {
    throw new TypeError(`Unexpected ${name} ${shownValue(value)}, expected ${expected} (${(error as Error).message})`);
  }
}

/** Throws a TypeError naming `name` unless `value` is an array of strings (naming the first entry that is not). */
export function expectStringArray(value: unknown, name: string, expected = "an array of strings"): asserts value is string[] {
  if (!Array.isArray(value)) throw new TypeError(`Unexpected ${name} ${shownValue(value)}, expected ${expected}`);
  const index = value.findIndex((entry) => typeof entry !== "string");
  if (index !== -1) throw new TypeError(`Unexpected ${name}[${index}] ${shownValue(value[index])}, expected a string`);
}

/** Throws a TypeError naming `name` unless `value` is a function. */
export function expectFunction(value: unknown, name: string, expected = "a function"): asserts value is (...args: never[]) => unknown {
  if (typeof value !== "function") throw new TypeError(`Unexpected ${name} ${shownValue(value)}, expected ${expected}`);
}

/** Throws a TypeError naming `name` unless `value` is one of `choices`. */
export function expectOneOf<T extends string>(value: unknown, name: string, choices: readonly T[]): asserts value is T {
  if (!choices.includes(value as T)) throw new TypeError(`Unexpected ${name} ${shownValue(value)}, expected ${choices.map((choice) => JSON.stringify(choice)).join(" or ")}`);
}

/** Throws a RangeError naming `name` unless `value` is an integer from `min` up (to `max`, when given). */
export function expectInteger(value: unknown, name: string, min: number, max = Number.MAX_SAFE_INTEGER): asserts value is number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
    throw new RangeError(`Unexpected ${name} ${shownValue(value)}, expected an integer, ${range}`);
  }
}

/** Throws a TypeError naming `name` unless `value` is true or false. */
export function expectBoolean(value: unknown, name: string): asserts value is boolean {
  if (typeof value !== "boolean") throw new TypeError(`Unexpected ${name} ${shownValue(value)}, expected true or false`);
}

/** Throws a TypeError naming `name` unless `value` is a number (not NaN). */
export function expectNumber(value: unknown, name: string, expected = "a number"): asserts value is number {
  if (typeof value !== "number" || Number.isNaN(value)) throw new TypeError(`Unexpected ${name} ${shownValue(value)}, expected ${expected}`);
}

/** Throws a TypeError naming `name` unless `value` is an AbortSignal (any object with `aborted`, `throwIfAborted` and `addEventListener`). */
export function expectAbortSignal(value: unknown, name = "signal"): asserts value is AbortSignal {
  const signal = value as { aborted?: unknown; throwIfAborted?: unknown; addEventListener?: unknown } | null;
  if (typeof value !== "object" || signal === null || typeof signal.aborted !== "boolean" || typeof signal.throwIfAborted !== "function" || typeof signal.addEventListener !== "function") {
    throw new TypeError(`Unexpected ${name} ${shownValue(value)}, expected an AbortSignal, such as new AbortController().signal`);
  }
}

/** Throws a TypeError naming `name` unless `value` is a Map of strings to strings, naming the first entry that is not. */
export function expectStringMap(value: unknown, name: string, expected: string): asserts value is ReadonlyMap<string, string> {
  if (!(value instanceof Map)) throw new TypeError(`Unexpected ${name} ${shownValue(value)}, expected ${expected}`);
  for (const [key, text] of value as Map<unknown, unknown>) {
    if (typeof key !== "string") throw new TypeError(`Unexpected ${name} key ${shownValue(key)}, expected a string`);
    if (typeof text !== "string") throw new TypeError(`Unexpected ${name}.get(${JSON.stringify(key)}) ${shownValue(text)}, expected a string`);
  }
}

/** The folder option each kind of entry point takes, and how its message shows one. */
const FOLDER_OPTIONS = {
  root: 'the project\'s folder, such as "."',
  dir: 'the folder to set up, such as "."',
} as const;

/**
 * Throws a TypeError unless `options` is an object whose `root` (or, for
 * init, `dir`) is a folder's path, and whose `outDir`, when given, is one
 * too: what the library's project functions take.
 */
export function expectProjectOptions(options: unknown, entry: string, folder: keyof typeof FOLDER_OPTIONS = "root"): void {
  expectObject(options, `${entry} options`, `an object such as { ${folder}: "." }`);
  expectString(options[folder], folder, FOLDER_OPTIONS[folder], folder === "dir");
  if (options.outDir !== undefined) expectString(options.outDir, "outDir", 'the output folder, relative to the root unless absolute, such as "dist"', true);
}
