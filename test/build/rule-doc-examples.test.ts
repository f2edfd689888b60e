/**
 * The examples `gamma-prompt explain` prints (and docs/rules/ holds) for the
 * rules of the prompt sources run as written: each is put where it belongs in
 * a project made by `init --template gamma`, and the bad one gives exactly
 * its rule while the good one builds clean. An annotation after three spaces,
 * `   (…)`, tells the reader where the example goes and is left out.
 */
import { appendFile, cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { RULE_DOCS } from "../../src/diagnostics/rules/docs.js";
import type { RuleId } from "../../src/diagnostics/rules/index.js";
import { init } from "../../src/init.js";
import { removeTempDirs, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

type Place = (root: string, example: string) => Promise<void>;

const withoutAnnotation = (example: string): string => example.replace(/ {3}\(.*\)$/gm, "");
const replace = (file: string): Place => (root, example) => writeFile(join(root, file), `${withoutAnnotation(example)}\n`);
const append = (file: string): Place => (root, example) => appendFile(join(root, file), `${withoutAnnotation(example)}\n`);

const PLACES: Partial<Record<RuleId, Place>> = {
  "source/invalid-yaml": replace("prompts/variants.yaml"),
  "variant/invalid": replace("prompts/variants.yaml"),
  "variant/unknown-skill": replace("prompts/variants.yaml"),
  "variant/conflicting-skills": replace("prompts/variants.yaml"),
  "template/missing-variable": append("prompts/variant.hbs"),
  "template/unknown-helper": append("prompts/prefix.hbs"),
  "template/non-scalar-value": append("prompts/prefix.hbs"),
  "template/render-error": append("prompts/prefix.hbs"),
  "tool/invalid": replace("schemas/tools/read.json"),
  "tool/invalid-parameters": replace("schemas/tools/read.json"),
  "tool/skill-name-parameter": replace("schemas/tools/skill.json"),
  "tool/knowledge-id-parameter": replace("schemas/tools/read_workspace_rule.json"),
  "tool/runtime-tool-parameters": replace("schemas/tools/message_user.json"),
  // The example is the namespace's `"description": …` entry: it replaces the drive namespace's own.
  "namespace/description-trigger": async (root, example) => {
    const file = join(root, "schemas/namespaces/drive/namespace.json");
    const declared = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    await writeFile(file, `${JSON.stringify({ ...declared, ...(JSON.parse(`{${example}}`) as Record<string, unknown>) }, null, 2)}\n`);
  },
  "knowledge/missing-key": async (root, example) => writeFile(join(root, "knowledge/brand-images.md"), `${example}\n\nUse the blue logo on dark backgrounds.\n`),
  "knowledge/scope-trigger": async (root, example) =>
    writeFile(join(root, "knowledge/brand-images.md"), `---\nid: brand-images\nname: Workspace image rules\n${example}\nsource: user\n---\n\nUse the blue logo on dark backgrounds.\n`),
};

let scaffold: string;
beforeAll(async () => {
  scaffold = await tempDir("rule examples");
  expect((await init({ dir: scaffold, template: "gamma" })).ok).toBe(true);
});

async function ruleIdsFor(rule: RuleId, side: "bad" | "good"): Promise<string[]> {
  const root = await tempDir(`${rule.replace("/", "-")} ${side}`);
  await cp(scaffold, root, { recursive: true });
  await PLACES[rule]?.(root, RULE_DOCS[rule]?.[side] ?? "");
  const result = await build({ root, persistentCache: false });
  return [...new Set(result.diagnostics.map((diagnostic) => diagnostic.ruleId))];
}

describe.each(Object.keys(PLACES) as RuleId[])("the examples of %s", (rule) => {
  it("bad gives exactly the rule, good builds clean", async () => {
    expect(await ruleIdsFor(rule, "bad")).toEqual([rule]);
    expect(await ruleIdsFor(rule, "good")).toEqual([]);
  });
});
