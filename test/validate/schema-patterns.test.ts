import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The package publishes schemas/ (the `./schemas/*` export) for any validator to load. JSON Schema asks for
// ECMA-262 patterns, but many validators compile them without JavaScript's Unicode mode (Ajv with
// `unicodeRegExp: false`, a plain `new RegExp(pattern)`) or are not JavaScript at all (Python's re). Every
// pattern of every published schema compiles in each of them, and JavaScript gives one answer with the `u`
// flag and without it.

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function* jsonFiles(folder: string): Generator<string> {
  for (const entry of readdirSync(folder).sort()) {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) yield* jsonFiles(path);
    else if (entry.endsWith(".json")) yield path;
  }
}

/** Every `pattern` value and `patternProperties` key in a schema, wherever it sits. */
function patternsOf(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) patternsOf(item, found);
  else if (typeof node === "object" && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === "pattern" && typeof value === "string") found.push(value);
      if (key === "patternProperties" && typeof value === "object" && value !== null) found.push(...Object.keys(value));
      patternsOf(value, found);
    }
  }
  return found;
}

const patterns = [...jsonFiles(join(root, "schemas"))].flatMap((file) => {
  const name = relative(root, file).split("\\").join("/");
  return patternsOf(JSON.parse(readFileSync(file, "utf8"))).map((pattern) => ({ name, pattern }));
});

/** Each character alone and between two letters: the C0 and C1 controls and the BMP's start, its specials, the surrogates alone, and the supplementary planes around the Tags block. */
const codePoints = [
  ...Array.from({ length: 0x3001 }, (_, index) => index),
  0xd7ff, 0xd800, 0xdb3f, 0xdb40, 0xdbff, 0xdc00, 0xdc7f, 0xdc80, 0xdfff, 0xe000, 0xfeff, 0xfffd, 0xfffe, 0xffff,
  0x10000, 0x1007f, 0x1f47f, 0x1f600, 0x2a6d6, 0xdfc00, 0xdfffe,
  ...Array.from({ length: 0x102 }, (_, index) => 0xdffff + index),
  0xe01ef, 0xe03ff, 0xe0400, 0xeffff, 0x10ffff,
];
const samples = [
  ...codePoints.flatMap((codePoint) => [String.fromCodePoint(codePoint), `a${String.fromCodePoint(codePoint)}b`]),
  "",
  "abc",
  "use-for-decks",
  "f".repeat(64),
  "2026-12-06",
  "2026-12-06T19:30:00.5+01:00",
  "gamma:deck",
  "draft-outline#3",
  "Use for a\u{E0041}\u{E0042}.",
  "\u{1F47F}\u{E0100}",
  "\uDB40",
  "\uDB40\uDB40\uDC41",
  "\uDC41\uDB40",
];

describe("published schema patterns", () => {
  it("are found (the walk reads every schema)", () => {
    expect(patterns.map(({ name }) => name)).toContain("schemas/knowledge-note.schema.json");
    expect(patterns.length).toBeGreaterThan(20);
  });

  it("compile with and without the u flag and give the same answer on every sample", () => {
    const disagreements: string[] = [];
    for (const { name, pattern } of patterns) {
      const plain = new RegExp(pattern);
      const unicode = new RegExp(pattern, "u");
      for (const sample of samples) {
        if (plain.test(sample) !== unicode.test(sample)) disagreements.push(`${name} ${pattern}: ${JSON.stringify(sample)}`);
      }
    }
    expect(disagreements.slice(0, 10)).toEqual([]);
  });

  it("compile in Python's re", () => {
    const script = "import json, re, sys\nfor pattern in json.load(sys.stdin):\n    re.compile(pattern)\nprint('ok')\n";
    const run = spawnSync("python3", ["-c", script], { input: JSON.stringify(patterns.map(({ pattern }) => pattern)), encoding: "utf8" });
    expect(run.error).toBeUndefined();
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("ok\n");
  });
});
