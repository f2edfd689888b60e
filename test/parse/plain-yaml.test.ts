import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { nearMisses, type LineEdit } from "../helpers/near-misses.js";
import { readPlainYaml } from "../../src/pipeline/parse/plain-yaml.js";
import { parseYamlSource, rangeAt } from "../../src/pipeline/parse/positioned-source.js";

// prompts/variants.yaml and prompts/injections.yaml are read without the YAML
// library when they are plain data. Wherever that reader answers, its value
// must be the library's value, and the library must find the text free of
// errors. Checked over every YAML file in the fixtures, the embedded default
// and the init templates, and over near misses made from each of them.

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function* yamlFiles(folder: string): Generator<string> {
  if (!existsSync(folder)) return;
  for (const entry of readdirSync(folder).sort()) {
    const path = join(folder, entry);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory() && entry !== "node_modules") yield* yamlFiles(path);
    else if (stat?.isFile() && /\.ya?ml$/.test(entry)) yield path;
  }
}

/** Both readers on one text; true when the plain reader answered. */
function agree(text: string, label: string): boolean {
  const plain = readPlainYaml(text);
  if (!plain) return false;
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  expect(document.errors.map((error) => error.message), label).toEqual([]);
  expect(plain.value, label).toStrictEqual(document.toJS({ maxAliasCount: 100 }));
  return true;
}

/** Changes to one line that YAML may read differently (for nearMisses). */
const NEAR_MISS_EDITS: LineEdit[] = [
  (line: string) => `${line} `,
  (line: string) => ` ${line}`,
  (line: string) => line.slice(1),
  (line: string) => line.replace(": ", ":  "),
  (line: string) => line.replace(": ", ":"),
  (line: string) => line.replace(/: (.*)/, ": $1 # note"),
  (line: string) => line.replace(/: (.)/, ": 1$1"),
  (line: string) => line.replace(/: .*/, ": true"),
  (line: string) => line.replace(/: .*/, ":"),
  (line: string) => line.replace(/: .*/, ": ~"),
  (line: string) => line.replace(/: (.*)/, ': "$1"'),
  (line: string) => line.replace(/: (.*)/, ": '$1'"),
  (line: string) => line.replace(/: (.*)/, ": [$1]"),
  (line: string) => line.replace(/\[(.*)\]/, "[$1, 12]"),
  (line: string) => line.replace(/\[(.*)\]/, "[$1,x]"),
  (line: string) => line.replace(/\[(.*)\]/, "[ $1 ]"),
  (line: string) => line.replace("- ", "-  "),
  (line: string) => line.replace("- ", "- - "),
  (line: string) => line.replace("- ", "-\n    "),
  (line: string) => line.replace(/^( *)/, "$1$1"),
  (line: string) => line.replace(/: (.*)/, ": $1:"),
  (line: string) => line.replace(/: (.*)/, ":\n  $1"),
  (line: string) => `${line}\n${line}`,
  (line: string) => `${line}\n`,
  (line: string) => `# ${line}`,
];

describe("plain YAML data reader", () => {
  const files = [...yamlFiles(join(root, "test", "fixtures")), ...yamlFiles(join(root, "prompts")), ...yamlFiles(join(root, "templates"))];

  it("gives the YAML library's value wherever it answers, and reads the project's own files", () => {
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) agree(readFileSync(file, "utf8"), file);
    for (const file of [...yamlFiles(join(root, "prompts")), ...yamlFiles(join(root, "templates"))]) {
      expect(readPlainYaml(readFileSync(file, "utf8")), file).toBeDefined();
    }
  });

  it("agrees with the library on near misses of every file", () => {
    let answered = 0;
    let tried = 0;
    for (const file of files) {
      for (const variant of nearMisses(readFileSync(file, "utf8"), NEAR_MISS_EDITS)) {
        tried++;
        if (agree(variant, `${file} (near miss)\n${variant}`)) answered++;
      }
    }
    // Both sides are exercised: many near misses are still plain, many are left to the library.
    expect(answered).toBeGreaterThan(tried / 10);
    expect(answered).toBeLessThan(tried);
  });

  it("leaves to the library what only it can read", () => {
    for (const text of [
      "a: 'it''s'\n",
      'a: "a\\tb"\n',
      "a: b # note\n",
      "a: 1.10\n",
      "a: true\n",
      "a:\n",
      "a: b\na: c\n",
      "a: |\n  x\n",
      "a: {b: c}\n",
      "a: &x y\nb: *x\n",
      "a: !!str b\n",
      "a: b\n  c\n",
      "a:\tb\n",
      "a: b\r\n",
      "---\na: b\n",
      "  a: b\n",
      "- a\n-\n",
      "a: [b, null]\n",
      "null: a\n",
      "",
    ]) {
      expect(readPlainYaml(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  it("still points findings at their place: positions come from the library on demand", () => {
    const text = "variants:\n  base:\n    preload: [nope]\n";
    const located = parseYamlSource({ path: "prompts/variants.yaml", text } as Parameters<typeof parseYamlSource>[0]);
    if (!("document" in located)) throw new Error("expected a parsed source");
    expect(located.value).toStrictEqual({ variants: { base: { preload: ["nope"] } } });
    expect(rangeAt(located, ["variants", "base", "preload", 0])).toEqual({ start: { line: 3, column: 15 }, end: { line: 3, column: 19 } });
  });
});
