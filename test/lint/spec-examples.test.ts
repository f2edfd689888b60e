/**
 * Every rule over the Agent Skills specification's own examples
 * (agentskills/agentskills docs/specification.mdx at 69ef37e, CC-BY-4.0):
 * what the specification shows as valid passes under the agentskills
 * profile, and what it shows as invalid or poor is reported by the rule that
 * says so, and by no other.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lint } from "../../src/lint.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

/** A collection with one skill folder and the files beside its SKILL.md; the findings as `rule line:column`. */
async function findings(folder: string, skill: string, files: Record<string, string> = {}): Promise<string[]> {
  const root = await tempDir("gamma-spec-example");
  for (const [path, text] of Object.entries({ "SKILL.md": skill, ...files })) {
    mkdirSync(dirname(join(root, "skills", folder, path)), { recursive: true });
    writeFileSync(join(root, "skills", folder, path), text);
  }
  const result = await lint({ root, profile: "agentskills" });
  return result.diagnostics.map((diagnostic) => `${diagnostic.ruleId} ${diagnostic.line}:${diagnostic.column}`);
}

const skill = (frontmatter: string, body = "# Skill\n"): string => `---\n${frontmatter}\n---\n\n${body}`;
const PDF = "name: pdf-processing\ndescription: Extract PDF text, fill forms, merge files. Use when handling PDFs.";

describe("the specification's examples", () => {
  it("the minimal example", async () => {
    expect(await findings("skill-name", skill("name: skill-name\ndescription: A description of what this skill does and when to use it."))).toEqual([]);
  });

  it("the example with optional fields", async () => {
    expect(await findings("pdf-processing", skill(`${PDF}\nlicense: Apache-2.0\nmetadata:\n  author: example-org\n  version: "1.0"`))).toEqual([]);
  });

  it("the valid names", async () => {
    for (const name of ["pdf-processing", "data-analysis", "code-review"]) {
      expect(await findings(name, skill(`name: ${name}\ndescription: Use when a task needs ${name}.`)), name).toEqual([]);
    }
  });

  it("the invalid names: uppercase, a leading hyphen, consecutive hyphens", async () => {
    for (const name of ["PDF-Processing", "-pdf", "pdf--processing"]) {
      // The folder carries the same name, so only the name's form is wrong.
      expect(await findings(name, skill(`name: ${name}  # invalid\ndescription: Use when a task needs PDFs.`)), name).toEqual(["skill/name-format 2:7"]);
    }
  });

  it("the good and the poor description", async () => {
    const good = "Extracts text and tables from PDF files, fills PDF forms, and merges multiple PDFs. Use when working with PDF documents or when the user mentions PDFs, forms, or document extraction.";
    expect(await findings("pdf-processing", skill(`name: pdf-processing\ndescription: ${good}`))).toEqual([]);
    expect(await findings("pdf-processing", skill("name: pdf-processing\ndescription: Helps with PDFs."))).toEqual(["skill/description-trigger 3:14"]);
  });

  it("the license, compatibility, metadata and allowed-tools examples", async () => {
    const fields = [
      "license: Proprietary. LICENSE.txt has complete terms",
      "compatibility: Designed for Claude Code (or similar products)",
      "compatibility: Requires git, docker, jq, and access to the internet",
      "compatibility: Requires Python 3.14+ and uv",
      "metadata:\n  author: example-org\n  version: \"1.0\"",
      "allowed-tools: Bash(git:*) Bash(jq:*) Read",
    ];
    for (const field of fields) expect(await findings("pdf-processing", skill(`${PDF}\n${field}`)), field).toEqual([]);
  });

  it("the file references example, with its files and without them", async () => {
    const body = "# PDF\n\nSee [the reference guide](references/REFERENCE.md) for details.\n\nRun the extraction script:\nscripts/extract.py\n";
    expect(await findings("pdf-processing", skill(PDF, body), { "references/REFERENCE.md": "# Reference\n", "scripts/extract.py": "print()\n" })).toEqual([]);
    expect(await findings("pdf-processing", skill(PDF, body))).toEqual(["skill/broken-link 8:27", "skill/unresolved-path 11:1"]);
  });

  it("the directory structure: scripts/, references/ and assets/ beside SKILL.md", async () => {
    const body = "# PDF\n\nRun `python scripts/fill.py`, read [the forms](references/FORMS.md) and copy [the template](assets/template.pdf).\n";
    expect(await findings("pdf-processing", skill(PDF, body), { "scripts/fill.py": "", "references/FORMS.md": "# Forms\n", "assets/template.pdf": "" })).toEqual([]);
  });
});
