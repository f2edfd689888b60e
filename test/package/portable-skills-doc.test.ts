/**
 * The skills guide's section on the two spellings shows what the CLI prints:
 * lint, --fix-dry-run and --fix under the agentskills profile on a copy of
 * test/fixtures/readme/portable-fix (a project in the top-level spelling),
 * and the result reads back as the portable spelling with nothing left to fix.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { docPage } from "../helpers/docs.js";
import { copyParts, removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

const guide = docPage("docs/guide/skills.md");
const fixture = fileURLToPath(new URL("../fixtures/readme/portable-fix", import.meta.url));

async function copy(): Promise<string> {
  return copyParts(fixture, ["skills"], await tempDir("portable fix"));
}

describe("docs/guide/skills.md: moving a project to the portable spelling", () => {
  it("shows the project's two skills as the fixture holds them (the page's reader writes them from the page)", () => {
    for (const name of ["changelog-style", "release-notes"]) {
      expect(guide.blockStartingWith(`---\nname: ${name}\n`, "markdown"), name).toBe(readFileSync(join(fixture, "skills", name, "SKILL.md"), "utf8"));
    }
  });

  it("shows lint's findings under the agentskills profile exactly as printed", async () => {
    const command = "$ gamma-prompt lint --profile agentskills\n";
    const { code, stdout } = await runCliInProcessFrom(await copy(), "lint", "--profile", "agentskills");
    expect(code).toBe(0);
    expect(guide.blockStartingWith(command)).toBe(`${command}${stdout}`);
    expect(stdout).toContain("skill/portable-manifest");
    expect(stdout).toContain("skill/yaml-portable");
  });

  it("shows --fix-dry-run's diff and --fix's changes exactly as printed, and the fixed project lints clean in both profiles", async () => {
    for (const flag of ["--fix-dry-run", "--fix"]) {
      const root = await copy();
      const command = `$ gamma-prompt lint --profile agentskills ${flag}\n`;
      const { code, stdout } = await runCliInProcessFrom(root, "lint", "--profile", "agentskills", flag);
      expect(code).toBe(0);
      expect(guide.blockStartingWith(command)).toBe(`${command}${stdout}`);
      if (flag !== "--fix") continue;
      expect(readFileSync(join(root, "skills/release-notes/SKILL.md"), "utf8")).toContain("metadata:\n  gamma-type: workflow # an ordered procedure\n  # loaded together with this skill\n  gamma-requires-skills: changelog-style\n---\n");
      for (const profile of ["agentskills", "gamma"]) expect((await runCliInProcessFrom(root, "lint", "--profile", profile)).stdout).toBe(`✔ no problems · 2 skills, profile ${profile}\n`);
    }
  });

  it("shows the embedded default's deck-generation frontmatter as the format's example", () => {
    const example = guide.blockStartingWith("---\nname: deck-generation\n", "markdown");
    const actual = readFileSync(fileURLToPath(new URL("../../skills/deck-generation/SKILL.md", import.meta.url)), "utf8");
    const [name, , metadata, type, requires, conflicts] = example.split("\n").slice(1, 7);
    for (const line of [name, metadata, type, conflicts]) expect(actual).toContain(`\n${line ?? "?"}\n`);
    expect(requires).toBe("  gamma-requires-skills: gml-authoring gml-cli");
    expect(actual).toContain("\n  gamma-requires-skills: gml-authoring gml-cli ask-user-questions\n");
  });
});
