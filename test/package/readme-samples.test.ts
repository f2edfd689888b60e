import { existsSync, readdirSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { lint } from "../../src/lint.js";
import { runCliInProcess } from "../helpers/cli.js";
import { docPage, manualPaths } from "../helpers/docs.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

/**
 * The manual's samples that are not a command's output: the configuration
 * files, frontmatter and layout it shows. Each is checked against what reads
 * it (its JSON Schema, lint, the repository), so a sample cannot describe a
 * key, a rule or a file that does not exist.
 */

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
async function schemaValidator(name: string): Promise<(value: unknown) => string[]> {
  const schema = JSON.parse(await readFile(join(repoRoot, "schemas", `${name}.schema.json`), "utf8")) as object;
  const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ""}`));
}

/** The YAML between a Markdown file's `---` lines. */
function frontmatterOf(markdown: string): unknown {
  const match = /^---\n([\s\S]*?)^---$/m.exec(markdown);
  expect(match, "a frontmatter block").not.toBeNull();
  return parseYaml(match?.[1] ?? "");
}

const skillsGuide = docPage("docs/guide/skills.md");

describe("manual samples", () => {
  it("shows configuration files that the config schema accepts", async () => {
    const validate = await schemaValidator("config");
    const configs = docPage("docs/reference/config.md").codeBlocks.filter((block) => block.language === "json" && /^\{\s*"(profile|budgets)"/.test(block.text));
    expect(configs).toHaveLength(2);
    for (const { text } of configs) expect(validate(JSON.parse(text)), text).toEqual([]);
  });

  it("shows skill and knowledge frontmatter that their schemas accept", async () => {
    const skill = skillsGuide.blockStartingWith("---\nname: deck-generation\n", "markdown");
    expect((await schemaValidator("skill-manifest"))(frontmatterOf(skill))).toEqual([]);
    const note = docPage("docs/guide/knowledge.md").blockStartingWith("---\nid: brand-images\n", "markdown");
    expect((await schemaValidator("knowledge-note"))(frontmatterOf(note))).toEqual([]);
  });

  it("shows inline suppression comments that silence exactly the rules they name", async () => {
    // The sample as a reference skill's frontmatter, with a numbered list in its body.
    const frontmatter = skillsGuide.blockStartingWith("---\nname: theme-factory\n", "yaml").replace(/^name: theme-factory\n/m, "$&type: reference\n");
    const body = "\n# Theme factory\n\nPick one theme:\n\n1. Ocean\n2. Forest\n3. Desert\n";
    const ruleIdsFor = async (text: string): Promise<string[]> => {
      const root = await tempDir("readme suppression");
      await mkdir(join(root, "skills", "theme-factory"), { recursive: true });
      await writeFile(join(root, "skills", "theme-factory", "SKILL.md"), text);
      return (await lint({ root, profile: "gamma" })).diagnostics.map((diagnostic) => diagnostic.ruleId);
    };
    const suppressed = ["skill/description-trigger", "skill/reference-checklist"];
    const withComments = await ruleIdsFor(frontmatter + body);
    const withoutComments = await ruleIdsFor(frontmatter.replace(/^# gamma-prompt-disable.*\n/gm, "") + body);
    expect(withoutComments).toEqual(expect.arrayContaining(suppressed));
    expect(withComments).toEqual(withoutComments.filter((ruleId) => !suppressed.includes(ruleId)));
  });

  it("names only scripts, examples and benches that exist", () => {
    const manual = manualPaths().map((path) => docPage(path).text).join("\n");
    const named = [...new Set(manual.match(/\b(?:scripts|examples|bench)\/[\w.-]+\.(?:mjs|js|ts)\b/g) ?? [])];
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter((path) => !existsSync(join(repoRoot, path)))).toEqual([]);
  });

  it("shows a project layout whose every entry exists in this repository or in a project `init` made", async () => {
    const scaffold = join(await tempDir("readme layout"), "my-agent");
    expect((await runCliInProcess("init", scaffold)).code).toBe(0);
    const layout = docPage("docs/reference/project-layout.md").blockStartingWith("skills/<name>/SKILL.md ");
    const paths = layout.split("\n").filter(Boolean).map((line) => line.split(/\s{2,}/)[0] as string);
    expect(paths.length).toBeGreaterThan(5);
    const missing = paths.filter((path) => {
      // `<name>` is any skill folder, `*.ext` any file of that kind in the folder.
      const inProject = (project: string): boolean => {
        const concrete = path.replace("<name>", readdirSync(join(project, "skills"))[0] ?? "");
        const star = /^(.*)\/\*(\.[a-z]+)$/.exec(concrete);
        if (star) return existsSync(join(project, star[1] as string)) && readdirSync(join(project, star[1] as string)).some((name) => name.endsWith(star[2] as string));
        return existsSync(join(project, concrete));
      };
      return !inProject(repoRoot) && !inProject(scaffold);
    });
    expect(missing).toEqual([]);
  });
});
