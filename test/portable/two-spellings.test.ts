/**
 * One manifest, two spellings: the design's fields at the top level
 * (`type`, `requiresSkills`, …) and under metadata (`gamma-type`,
 * `gamma-requires-skills`, …) give the same checks at the same token, the
 * same skills and graph, and the same compiled artifacts.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import type { Diagnostic } from "../../src/diagnostics/diagnostic.js";
import { lint } from "../../src/lint.js";
import { copyParts, readTree, removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { rewriteSkillsToTopLevel, toTopLevelSpelling } from "./spellings.js";

afterAll(removeTempDirs);

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const PROJECT_PARTS = ["skills", "prompts", "schemas", "knowledge"];

async function embeddedDefaultInBothSpellings(): Promise<{ portable: string; topLevel: string }> {
  const portable = await copyParts(repoRoot, PROJECT_PARTS, join(await tempDir("portable spelling"), "gamma"));
  const topLevel = await copyParts(repoRoot, PROJECT_PARTS, join(await tempDir("top-level spelling"), "gamma"));
  expect(rewriteSkillsToTopLevel(topLevel)).toBe(7);
  return { portable, topLevel };
}

interface Steps {
  skill: string;
  steps: Array<{ line: number }>;
}

describe("the embedded default in both spellings", () => {
  it("builds to the same dist/: every prompt byte, the catalog, tools and variants; checklist lines move with the frontmatter", async () => {
    const { portable, topLevel } = await embeddedDefaultInBothSpellings();
    for (const root of [portable, topLevel]) {
      const built = await build({ root, persistentCache: false });
      expect(built.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
      expect((await check({ root })).ok).toBe(true);
    }
    const a = await readTree(join(portable, "dist"));
    const b = await readTree(join(topLevel, "dist"));
    expect([...a.keys()]).toEqual([...b.keys()]);
    const differing = [...a.keys()].filter((path) => !a.get(path)?.equals(b.get(path) as Buffer)).sort();
    // The only files allowed to differ: each workflow's compiled checklist (its steps' SKILL.md lines) and the manifest's hashes of them.
    const stepFiles = [...a.keys()].filter((path) => /^skills\/[^/]+\.steps\.json$/.test(path)).sort();
    expect(stepFiles).toEqual(["skills/deck-generation.steps.json", "skills/drive-files.steps.json", "skills/gml-editing.steps.json", "skills/import.steps.json"]);
    expect(differing).toEqual(["manifest.json", ...stepFiles].sort());
    for (const path of [...a.keys()].filter((candidate) => !differing.includes(candidate))) expect(a.get(path)?.equals(b.get(path) as Buffer), path).toBe(true);
    expect([...a.keys()].filter((path) => /^(prefix\.md|catalog\.xml|tools\.json|cache-plan\.json|variants\/.*\.md|skills\/[^/]+\.md)$/.test(path)).length).toBeGreaterThan(10);

    // A checklist differs only in its steps' lines, each by the difference in frontmatter length.
    const linted = { portable: await lint({ root: portable }), topLevel: await lint({ root: topLevel }) };
    const bodyStart = (result: typeof linted.portable, name: string): number => result.skills.find((skill) => skill.name === name)?.bodyStartLine ?? Number.NaN;
    for (const path of stepFiles) {
      const left = JSON.parse(a.get(path)?.toString("utf8") ?? "") as Steps;
      const right = JSON.parse(b.get(path)?.toString("utf8") ?? "") as Steps;
      const shift = bodyStart(linted.topLevel, left.skill) - bodyStart(linted.portable, left.skill);
      expect(shift, path).not.toBe(0);
      expect({ ...right, steps: right.steps.map((step) => ({ ...step, line: step.line - shift })) }).toEqual(left);
    }
    // The manifest differs only in those files' hashes.
    const withoutStepHashes = (bytes: Buffer | undefined): string => {
      let text = bytes?.toString("utf8") ?? "";
      for (const path of stepFiles) {
        const sha = (JSON.parse(text) as { artifacts: Record<string, { sha256: string }> }).artifacts[path]?.sha256 ?? "";
        text = text.split(sha).join(`<sha256 of ${path}>`);
      }
      return text;
    };
    expect(withoutStepHashes(a.get("manifest.json"))).toBe(withoutStepHashes(b.get("manifest.json")));
  }, 120_000);

  it("lints to the same skills and the same graph, without a finding in either", async () => {
    const { portable, topLevel } = await embeddedDefaultInBothSpellings();
    const shape = async (root: string) => {
      const result = await lint({ root, profile: "gamma" });
      expect(result.diagnostics).toEqual([]);
      return result.skills.map(({ name, type, description, requiresSkills, conflictsWith, toolNamespaces, disableModelInvocation, checklist }) => ({
        name,
        type,
        description,
        requiresSkills,
        conflictsWith,
        toolNamespaces: toolNamespaces?.map((reference) => reference.name),
        disableModelInvocation,
        steps: checklist?.map(({ number, title, optional, verifies }) => ({ number, title, optional, verifies })),
      }));
    };
    const portableSkills = await shape(portable);
    expect(portableSkills.find((skill) => skill.name === "drive-files")).toMatchObject({ type: "workflow", requiresSkills: ["ask-user-questions"], toolNamespaces: ["drive"] });
    expect(await shape(topLevel)).toEqual(portableSkills);
  }, 60_000);
});

/** The same broken manifests, once per spelling: the findings must be the same rules at the same token. */
const BROKEN: Record<string, { topLevel: string; portable: string; body?: string }> = {
  deck: {
    topLevel: "type: workflow\nrequiresSkills:\n  - notes\n  - notse\n  - deck\n  - notes\nconflictsWith:\n  - other\ntoolNamespaces:\n  - Drive\n",
    portable: "metadata:\n  gamma-type: workflow\n  gamma-requires-skills: notes notse deck notes\n  gamma-conflicts-with: other\n  gamma-tool-namespaces: Drive\n",
    body: "# Steps\n\n1. Read the input.\n2. Write the output.\n3. Verify the output.\n",
  },
  notes: {
    topLevel: "type: tutorial\nconflictsWith:\n  - deck\n",
    portable: "metadata:\n  gamma-type: tutorial\n  gamma-conflicts-with: deck\n",
  },
  other: {
    topLevel: "type: reference\nrequiresSkills:\n  - other\n  - deck\n",
    portable: "metadata:\n  gamma-type: reference\n  gamma-requires-skills: \"other \\u0064eck\"\n",
  },
};

async function brokenProject(spelling: "topLevel" | "portable"): Promise<string> {
  const root = await tempDir(`broken ${spelling}`);
  for (const [name, written] of Object.entries(BROKEN)) {
    mkdirSync(join(root, "skills", name), { recursive: true });
    writeFileSync(join(root, "skills", name, "SKILL.md"), `---\nname: ${name}\ndescription: Use when comparing the spellings of ${name}.\n${written[spelling]}---\n\n${written.body ?? "# Notes\n\n- A fact.\n"}`);
  }
  return root;
}

/** What a finding says, with the key named as the top-level spelling names it, and the source text it points at. */
function described(root: string, diagnostic: Diagnostic): string {
  const lines = readFileSync(join(root, diagnostic.file), "utf8").split("\n");
  const at = diagnostic.line === diagnostic.endLine ? (lines[diagnostic.line - 1] ?? "").slice(diagnostic.column - 1, diagnostic.endColumn - 1) : `${diagnostic.line}-${diagnostic.endLine}`;
  const message = diagnostic.message
    .replace(/metadata\.gamma-requires-skills/g, "requiresSkills")
    .replace(/metadata\.gamma-conflicts-with/g, "conflictsWith")
    .replace(/metadata\.gamma-tool-namespaces/g, "toolNamespaces")
    .replace(/ in metadata\.gamma-type/g, "")
    .replace(/belongs under another metadata key$/, "belongs under metadata, or drop type under the agentskills profile");
  return `${diagnostic.file} ${diagnostic.ruleId} ${diagnostic.severity} "${at}" ${message}`;
}

describe("a broken manifest in both spellings", () => {
  it("gives the same findings, each pointing at the same token: inside the metadata string for the portable one", async () => {
    const topLevel = await brokenProject("topLevel");
    const portable = await brokenProject("portable");
    const findings = async (root: string): Promise<string[]> => (await lint({ root, profile: "gamma" })).diagnostics.map((diagnostic) => described(root, diagnostic));
    const expected = await findings(topLevel);
    // The escape \u0064 is the "d" of deck: the finding covers the escape as written.
    expect((await findings(portable)).map((line) => line.replace('"\\u0064eck"', '"deck"'))).toEqual(expected);
    expect(expected.map((line) => line.split(" ").slice(0, 2).join(" "))).toEqual([
      "skills/deck/SKILL.md skill/requires-conflict",
      "skills/deck/SKILL.md skill/reference-unknown",
      "skills/deck/SKILL.md skill/reference-self",
      "skills/deck/SKILL.md skill/reference-repeated",
      "skills/deck/SKILL.md skill/conflict-one-sided",
      "skills/deck/SKILL.md skill/schema-violation",
      "skills/notes/SKILL.md skill/type-value",
      "skills/notes/SKILL.md skill/conflict-one-sided",
      "skills/other/SKILL.md skill/reference-self",
      "skills/other/SKILL.md skill/requires-conflict",
    ]);
  });

  it("reads the portable spelling of the embedded default exactly as its own converter writes it back", () => {
    const deck = readFileSync(join(repoRoot, "skills/deck-generation/SKILL.md"), "utf8");
    expect(toTopLevelSpelling(deck)).toContain("\ntype: workflow\nrequiresSkills:\n  - gml-authoring\n  - gml-cli\n  - ask-user-questions\nconflictsWith:\n  - import\n---\n");
  });
});
