/**
 * Proven against the real validators: the Agent Skills reference validator
 * (skills-ref) and Anthropic's skill-creator quick_validate.py, kept
 * unchanged in test/fixtures/validators/ and run with a system Python, pass
 * every skill gamma-prompt writes or shows as valid: the embedded default,
 * init's scaffold, the skills guide's examples and the portability rules'
 * good examples. The rule for what the reference validator cannot read is
 * checked against it too: a warning exactly where skills-ref refuses the
 * frontmatter or reads something else than YAML does, or where skills-ref
 * reads it and a strict YAML 1.2 parser (the yaml package) refuses it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { RULE_DOCS } from "../../src/diagnostics/rules/docs.js";
import { init } from "../../src/init.js";
import { lint } from "../../src/lint.js";
import { parseSkillFile } from "../../src/pipeline/parse/parse.js";
import { docPage } from "../helpers/docs.js";
import { copyParts, removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { rewriteSkillsToTopLevel } from "../portable/spellings.js";
import { eachLimited, findPython, quickValidate, skillsRef, skillsRefProperties } from "./python.js";

afterAll(removeTempDirs);

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const fixtures = fileURLToPath(new URL("../fixtures/", import.meta.url));
const embeddedSkills = readdirSync(join(repoRoot, "skills")).sort();

/** Skill folders written from SKILL.md texts, each in a folder named after its `name`, as the specification requires. */
async function foldersFor(texts: readonly string[], label: string): Promise<{ root: string; folders: string[] }> {
  const root = await tempDir(label);
  const folders = texts.map((text) => {
    const name = /^name: ([a-z0-9-]+)$/m.exec(text)?.[1];
    if (name === undefined) throw new Error(`no name in ${text.slice(0, 80)}`);
    mkdirSync(join(root, name), { recursive: true });
    writeFileSync(join(root, name, "SKILL.md"), text.endsWith("\n") ? text : `${text}\n`);
    return name;
  });
  return { root, folders };
}

/** The SKILL.md examples the skills guide shows in the portable spelling, and the good examples of the portability rules. */
function documentedAsValid(): string[] {
  const guide = docPage("docs/guide/skills.md").codeBlocks.filter((block) => block.language === "markdown" && block.text.startsWith("---\nname: ") && block.text.includes("gamma-type:"));
  expect(guide.length).toBeGreaterThan(0);
  const rules = (["skill/manifest-spelling", "skill/portable-manifest", "skill/yaml-portable"] as const).map((id) => `${RULE_DOCS[id]?.good ?? ""}\n\n# Example\n`);
  return [...guide.map((block) => block.text), ...rules];
}

describe("the Agent Skills validators can run", () => {
  it("finds a Python with strictyaml, click and yaml (or fails saying what to install)", () => {
    const found = findPython();
    expect("problem" in found ? found.problem : "").toBe("");
  });
});

describe("skills-ref, the specification's reference validator", () => {
  it("passes every skill of the embedded default, printing exactly what the skills guide shows", async () => {
    const runs = await eachLimited(embeddedSkills, (name) => skillsRef(`skills/${name}`, repoRoot));
    for (const [position, run] of runs.entries()) expect({ skill: embeddedSkills[position], ...run }).toEqual({ skill: embeddedSkills[position], code: 0, stdout: `Valid skill: skills/${embeddedSkills[position] ?? ""}\n`, stderr: "" });
    expect(runs).toHaveLength(7);
    const guide = docPage("docs/guide/skills.md").blockStartingWith("$ for skill in skills/*/; do PYTHONPATH=test/fixtures/validators/skills-ref/src python3 -m skills_ref.cli validate");
    expect(guide.slice(guide.indexOf("\n") + 1)).toBe(runs.map((run) => run.stdout).join(""));
  });

  it("passes both skills init scaffolds", async () => {
    const root = await tempDir("init for skills-ref");
    expect((await init({ dir: root })).ok).toBe(true);
    const skills = readdirSync(join(root, "skills")).sort();
    expect(skills).toEqual(["draft-outline", "style-guide"]);
    for (const run of await eachLimited(skills, (name) => skillsRef(join("skills", name), root))) expect(run).toMatchObject({ code: 0, stderr: "" });
  });

  it("passes every SKILL.md the docs present as valid in the portable spelling, and the good portable fixture", async () => {
    const { root, folders } = await foldersFor(documentedAsValid(), "documented skills");
    for (const run of await eachLimited(folders, (folder) => skillsRef(folder, root))) expect(run).toMatchObject({ code: 0, stderr: "" });
    const good = join(fixtures, "lint/good-portable/skills");
    for (const run of await eachLimited(readdirSync(good), (folder) => skillsRef(folder, good))) expect(run).toMatchObject({ code: 0, stderr: "" });
  });

  it("refuses all 9 (the embedded default's 7, init's 2) when their fields are written at the top level", async () => {
    const embedded = await copyParts(repoRoot, ["skills"], await tempDir("top-level embedded"));
    const scaffold = await tempDir("top-level init");
    expect((await init({ dir: scaffold })).ok).toBe(true);
    expect(rewriteSkillsToTopLevel(embedded) + rewriteSkillsToTopLevel(scaffold)).toBe(9);
    const folders = [embedded, scaffold].flatMap((root) => readdirSync(join(root, "skills")).map((name) => ({ root, name })));
    const runs = await eachLimited(folders, ({ root, name }) => skillsRef(join("skills", name), root));
    expect(runs.map((run) => run.code)).toEqual(new Array<number>(9).fill(1));
    for (const run of runs) expect(run.stderr).toMatch(/Unexpected fields in frontmatter: .*type/);
  });

  it("refuses every skill before lint --fix moves its fields, and passes every one it left without an error after", async () => {
    const before = join(fixtures, "fix/portable-manifest/project/skills");
    const after = join(fixtures, "fix/portable-manifest/fixed/skills");
    const names = readdirSync(before).sort();
    for (const run of await eachLimited(names, (name) => skillsRef(name, before))) expect(run.code).toBe(1);
    const remaining = (await lint({ root: join(fixtures, "fix/portable-manifest/fixed") })).diagnostics.map((diagnostic) => diagnostic.file.split("/")[1]);
    expect(remaining).toEqual(["conflicting"]);
    const fixed = names.filter((name) => !remaining.includes(name));
    for (const run of await eachLimited(fixed, (name) => skillsRef(name, after))) expect(run).toMatchObject({ code: 0, stderr: "" });
  });
});

describe("quick_validate.py, Anthropic's skill-creator check", () => {
  it("passes the embedded default, init's scaffold and the documented examples", async () => {
    const scaffold = await tempDir("init for quick_validate");
    expect((await init({ dir: scaffold })).ok).toBe(true);
    const documented = await foldersFor(documentedAsValid(), "documented skills for quick_validate");
    const folders = [
      ...embeddedSkills.map((name) => ({ folder: `skills/${name}`, cwd: repoRoot })),
      ...readdirSync(join(scaffold, "skills")).map((name) => ({ folder: `skills/${name}`, cwd: scaffold })),
      ...documented.folders.map((folder) => ({ folder, cwd: documented.root })),
    ];
    expect(folders.length).toBeGreaterThanOrEqual(12);
    for (const [position, run] of (await eachLimited(folders, ({ folder, cwd }) => quickValidate(folder, cwd))).entries()) {
      expect({ ...folders[position], ...run }).toEqual({ ...folders[position], code: 0, stdout: "Skill is valid!\n", stderr: "" });
    }
  });
});

/** Each SKILL.md of a folder of skills, as lint's yaml-portable rule, skills-ref and a strict YAML 1.2 parser read it. */
async function judged(skillsDir: string): Promise<Array<{ name: string; warned: boolean; refused: boolean; misread: boolean; strictRefuses: boolean }>> {
  const root = join(skillsDir, "..");
  const warned = new Set((await lint({ root, profile: "agentskills" })).diagnostics.filter((diagnostic) => diagnostic.ruleId === "skill/yaml-portable").map((diagnostic) => diagnostic.file.split("/").at(-2)));
  const names = readdirSync(skillsDir).filter((name) => existsSync(join(skillsDir, name, "SKILL.md"))).sort();
  return eachLimited(names, async (name) => {
    const run = await skillsRefProperties(name, skillsDir);
    const bytes = readFileSync(join(skillsDir, name, "SKILL.md"));
    const parsed = await parseSkillFile({ path: `skills/${name}/SKILL.md`, text: bytes.toString("utf8").replace(/^\ufeff/, "").replace(/\r\n?/g, "\n"), contentHash: "" });
    const properties = run.code === 0 ? (JSON.parse(run.stdout) as { name?: string; description?: string }) : undefined;
    const tree = parsed.tree && !Array.isArray(parsed.tree.value) ? (parsed.tree.value as Record<string, unknown>) : {};
    const misread = properties !== undefined && (properties.name !== tree["name"] || properties.description !== tree["description"]);
    const frontmatter = /^---\n([\s\S]*?\n)---\n/.exec(bytes.toString("utf8").replace(/^\ufeff/, "").replace(/\r\n?/g, "\n"))?.[1] ?? "";
    const strictRefuses = parseDocument(frontmatter, { strict: true, uniqueKeys: true }).errors.length > 0;
    return { name, warned: warned.has(name), refused: run.code !== 0, misread, strictRefuses };
  });
}

describe("skill/yaml-portable, against skills-ref", () => {
  it("warns on a skill exactly when skills-ref refuses its frontmatter or reads another name or description, or a strict YAML 1.2 parser refuses what skills-ref reads", async () => {
    const cases = [
      ...(await judged(join(fixtures, "lint/yaml-portable/skills"))),
      ...(await judged(join(fixtures, "fix/yaml-portable/project/skills"))),
      ...(await judged(join(fixtures, "lint/yaml-portable-margin/skills"))),
    ];
    expect(cases.filter((item) => item.warned).length).toBeGreaterThanOrEqual(6);
    expect(cases.filter((item) => !item.warned).length).toBeGreaterThanOrEqual(1);
    for (const item of cases) expect({ name: item.name, warned: item.warned }).toEqual({ name: item.name, warned: item.refused || item.misread || item.strictRefuses });
    expect(cases.find((item) => item.name === "dashes")).toMatchObject({ warned: true, refused: false, misread: true });
    // A quoted description wrapped at the margin: skills-ref reads the same value gamma-prompt reads, the yaml package refuses it.
    expect(cases.find((item) => item.name === "rust-router")).toMatchObject({ warned: true, refused: false, misread: false, strictRefuses: true });
  });

  const corpus = [join(repoRoot, "..", "shared", "realworld-skills"), join(repoRoot, "..", "..", "shared", "realworld-skills")].find((path) => existsSync(path));
  it.skipIf(corpus === undefined)("warns on none of the 98 skills of the seven shared collections, all of which skills-ref reads as YAML does", async () => {
    const collections = readdirSync(corpus ?? "").filter((name) => existsSync(join(corpus ?? "", name, "skills"))).sort();
    expect(collections).toHaveLength(7);
    const cases = (await Promise.all(collections.map((name) => judged(join(corpus ?? "", name, "skills"))))).flat();
    expect(cases).toHaveLength(98);
    expect(cases.filter((item) => item.warned || item.refused || item.misread)).toEqual([]);
  }, 120_000);
});
