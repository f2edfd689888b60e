/**
 * init scaffolds skills in the portable spelling, in block-style YAML: the
 * design's fields under metadata, no flow collection anywhere in the
 * frontmatter, clean under both profiles. A plain Agent Skills collection
 * (`--profile agentskills`) gets neither spelling.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { init, planScaffold } from "../../src/init.js";
import { lint } from "../../src/lint.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

const frontmatterOf = (text: string): string => text.slice(4, text.indexOf("\n---\n", 4) + 1);
const skillFiles = (files: Map<string, Uint8Array>): Array<[string, string]> =>
  [...files].filter(([path]) => path.endsWith("/SKILL.md")).map(([path, bytes]) => [path, Buffer.from(bytes).toString("utf8")]);

describe("init's skills are portable", () => {
  it("writes the design's fields under metadata, block style only, for the agent and the Gamma templates", () => {
    for (const template of ["agent", "gamma"] as const) {
      const skills = skillFiles(planScaffold({ template }));
      expect(skills.length).toBeGreaterThanOrEqual(2);
      for (const [path, text] of skills) {
        const frontmatter = frontmatterOf(text);
        expect(frontmatter, path).toMatch(/^metadata:\n {2}gamma-type: (workflow|reference)\n/m);
        expect(frontmatter, path).not.toMatch(/^(type|requiresSkills|conflictsWith|toolNamespaces):/m);
        expect(frontmatter, path).not.toMatch(/[[\]{}&*!\t]/);
      }
    }
    const outline = skillFiles(planScaffold({})).find(([path]) => path === "skills/draft-outline/SKILL.md")?.[1] ?? "";
    expect(frontmatterOf(outline)).toContain("metadata:\n  gamma-type: workflow\n  gamma-requires-skills: style-guide\n");
  });

  it("lints clean under both profiles, the portability rules included", async () => {
    const root = await tempDir("portable init");
    expect((await init({ dir: root })).ok).toBe(true);
    for (const profile of ["gamma", "agentskills"] as const) expect((await lint({ root, profile })).diagnostics, profile).toEqual([]);
  });

  it("leaves both spellings out of a plain Agent Skills collection", async () => {
    const root = await tempDir("plain init");
    expect((await init({ dir: root, profile: "agentskills" })).ok).toBe(true);
    for (const name of ["draft-outline", "style-guide"]) {
      const frontmatter = frontmatterOf(readFileSync(join(root, "skills", name, "SKILL.md"), "utf8"));
      expect(frontmatter).toMatch(/^name: .*\ndescription: .*\n$/);
    }
    expect((await lint({ root })).diagnostics).toEqual([]);
  });
});
