/**
 * An agent from a plain Agent Skills collection, unchanged: `init --profile
 * agentskills` in a folder that already holds skills adds the agent around
 * them (no `type` needed: the config's `skillTypes` gives one), and build,
 * check and loadArtifacts work, every file of every skill byte for byte. Run
 * on a real public collection from the shared corpus, read by path and copied
 * to a temporary folder outside the repository.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import { init } from "../../src/init.js";
import { lint } from "../../src/lint.js";
import { loadArtifacts, readSkillFile } from "../../src/runtime/artifacts.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const inCorpus = (name: string): string | undefined => [join(repoRoot, "..", "shared", "realworld-skills", name), join(repoRoot, "..", "..", "shared", "realworld-skills", name)].find((path) => existsSync(path));
const collection = inCorpus("openai-skills");
const superpowers = inCorpus("obra-superpowers");

/**
 * The type `lint --fix` inserts in each skill of a copy of `skillsDir` (gamma profile, so every skill without
 * a type gets one, or a line saying why none fits): the rule init must apply too. `left`: the skills it leaves
 * for a person, as either type would bring a finding.
 */
async function typesLintFixInserts(skillsDir: string): Promise<{ types: Record<string, string>; left: string[] }> {
  const copy = await tempDir("gamma-fix-types");
  cpSync(skillsDir, join(copy, "skills"), { recursive: true });
  const fixed = await runCliInProcessFrom(copy, "lint", "--fix", "--profile", "gamma");
  const types = [...fixed.stdout.matchAll(/^fixed skills\/([^/]+)\/SKILL\.md:\d+:\d+ {2}skill\/missing-key {2}inserted "(?:gamma-)?type: (workflow|reference)"/gm)].map((match) => [match[1] ?? "", match[2] ?? ""] as const);
  const left = [...fixed.stdout.matchAll(/^not fixed skills\/([^/]+)\/SKILL\.md: \d+:\d+ skill\/missing-key: the type is left for a person: no type fits/gm)].map((match) => match[1] ?? "");
  expect(types.length).toBeGreaterThan(0);
  return { types: Object.fromEntries(types.sort(([a], [b]) => (a < b ? -1 : 1))), left: left.sort() };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => statSync(join(dir, name)).isFile())
    .sort();
}

describe("an agent from plain Agent Skills", () => {
  it.skipIf(collection === undefined)("init --profile agentskills, build, check and loadArtifacts on a real collection, every file byte for byte", async () => {
    const source = join(collection ?? "", "skills");
    const root = await tempDir("gamma-plain-collection");
    cpSync(source, join(root, "skills"), { recursive: true });
    const result = await init({ dir: root, profile: "agentskills" });
    expect(result.ok).toBe(true);
    expect(result.written.filter((path) => path.startsWith("skills/"))).toEqual([]);
    const config = JSON.parse(readFileSync(join(root, "gamma-prompt.config.json"), "utf8")) as Record<string, unknown>;
    // One entry per skill; init is more wary of a workflow than lint --fix: a skill it makes one, --fix makes one too,
    // or leaves for a person when either type would bring a finding (init's config types are not written in the file).
    const { types: fixTypes, left } = await typesLintFixInserts(source);
    const types = Object.fromEntries(Object.entries(config["skillTypes"] as Record<string, string>).map(([folder, type]) => [folder.replace(/^skills\//, ""), type]));
    expect(Object.keys(types)).toEqual([...Object.keys(fixTypes), ...left].sort());
    for (const [name, type] of Object.entries(types)) if (type === "workflow" && !left.includes(name)) expect(fixTypes[name], name).toBe("workflow");

    const built = await build({ root, persistentCache: false });
    expect(built.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(built.ok).toBe(true);
    const checked = await check({ root });
    expect(checked.drift).toEqual([]);
    expect(checked.ok && checked.errorCount === 0).toBe(true);
    expect((await lint({ root })).errorCount).toBe(0);

    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    const files = filesUnder(source);
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) {
      const original = readFileSync(join(source, file));
      // The project's copy is untouched, dist/ holds the same bytes, and the runtime serves them (SKILL.md is served as the skill's body).
      expect(readFileSync(join(root, "skills", file)).equals(original), file).toBe(true);
      if (file.endsWith("SKILL.md")) continue;
      expect(readFileSync(join(root, "dist", "skills", file)).equals(original), file).toBe(true);
      expect(readSkillFile(artifacts, `skills/${file.split(sep).join("/")}`)?.bytes.equals(original), file).toBe(true);
    }
    expect(Object.fromEntries([...artifacts.skills.values()].map((skill) => [skill.name, skill.type]))).toEqual(types);
  }, 120_000);

  it.skipIf(superpowers === undefined)(
    "init in a copy of obra-superpowers makes a workflow only of a skill that declares its procedure, says why with the compiled step count, and lint warns only on the references it named with a list",
    async () => {
      const source = join(superpowers ?? "", "skills");
      const root = await tempDir("gamma-superpowers");
      cpSync(source, join(root, "skills"), { recursive: true });

      const created = await runCliInProcessFrom(root, "init");
      expect(created.stderr).toBe("");
      expect(created.code).toBe(0);
      const config = JSON.parse(readFileSync(join(root, "gamma-prompt.config.json"), "utf8")) as Record<string, unknown>;
      // A "Checklist" heading or "Step N" headings declare a procedure; numbered topics, a procedure's first phase
      // only ("Phase 1: …"), or a pattern's numbered parts do not.
      expect(config["skillTypes"]).toEqual({
        "skills/brainstorming": "workflow",
        "skills/dispatching-parallel-agents": "reference",
        "skills/executing-plans": "workflow",
        "skills/finishing-a-development-branch": "workflow",
        "skills/receiving-code-review": "reference",
        "skills/requesting-code-review": "reference",
        "skills/subagent-driven-development": "reference",
        "skills/systematic-debugging": "reference",
        "skills/test-driven-development": "reference",
        "skills/using-git-worktrees": "workflow",
        "skills/using-superpowers": "reference",
        "skills/verification-before-completion": "reference",
        "skills/writing-plans": "reference",
        "skills/writing-skills": "reference",
      });
      // One line per skill: its type and why.
      for (const [folder, type] of Object.entries(config["skillTypes"] as Record<string, string>)) {
        expect(created.stdout).toMatch(new RegExp(`^  ${folder} +${type} +\\((its checklist (of \\d+ steps is under "[^"]+"|is \\d+ "Step N" headings)|the body has no checklist of 3 or more steps|a list of \\d+ items(, no heading naming steps or a procedure| under "[^"]+", a heading with none of the English words Steps, Procedure, Process, Workflow, Checklist))\\)$`, "m"));
      }

      const built = await runCliInProcessFrom(root, "build", "--format", "json");
      expect(built.code).toBe(0);
      // The step count init prints is the one the build compiles, and so the one the runtime enforces.
      for (const match of created.stdout.matchAll(/^ {2}skills\/(\S+) +workflow +\(its checklist (?:of (\d+) steps|is (\d+) "Step N" headings)/gm)) {
        const steps = (JSON.parse(readFileSync(join(root, "dist", "skills", `${match[1] ?? ""}.steps.json`), "utf8")) as { steps: unknown[] }).steps;
        expect(steps.length, match[1]).toBe(Number(match[2] ?? match[3]));
      }
      // skill/reference-checklist warns on exactly the references init named with their list; no error, so init announced none.
      const findings = (JSON.parse(built.stdout) as { diagnostics: Array<{ file: string; severity: string; ruleId: string }> }).diagnostics;
      const warned = [...new Set(findings.filter((finding) => finding.ruleId === "skill/reference-checklist").map((finding) => finding.file.split("/")[1]))].sort();
      const named = [...created.stdout.matchAll(/^ {2}skills\/(\S+) +reference +\(a list of/gm)].map((match) => match[1]).sort();
      expect(warned).toEqual(named);
      expect(findings.filter((finding) => finding.severity === "error")).toEqual([]);
      expect(created.stdout).not.toContain("The first build will fail");
    },
    120_000,
  );

  it("init in a copy of a collection with true broken links (the labelled corpus's uipath-skills) names the errors that fail the first build and how to go on", async () => {
    const root = await tempDir("gamma-uipath");
    cpSync(join(repoRoot, "corpus", "uipath-skills", "skills"), join(root, "skills"), { recursive: true });
    const created = await runCliInProcessFrom(root, "init");
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    const config = JSON.parse(readFileSync(join(root, "gamma-prompt.config.json"), "utf8")) as Record<string, unknown>;

    // The first build fails with exactly the errors init announced.
    const built = await runCliInProcessFrom(root, "build", "--format", "json");
    expect(built.code).toBe(1);
    const findings = (JSON.parse(built.stdout) as { diagnostics: Array<{ file: string; line: number; column: number; severity: string; ruleId: string }> }).diagnostics;
    const errors = findings.filter((finding) => finding.severity === "error");
    expect(errors.map((error) => error.ruleId)).toContain("skill/broken-link");
    expect(created.stdout).toContain(`The first build will fail: lint finds ${errors.length} errors in the skills`);
    for (const error of errors) expect(created.stdout).toContain(`  ${error.file}:${error.line}:${error.column}  ${error.ruleId}`);

    // How to go on: fix them, or build without those skills for now with the "ignore" init prints.
    const ignore = /"ignore": (\[[^\]]*\])/.exec(created.stdout)?.[1];
    expect(ignore, created.stdout).toBeDefined();
    writeFileSync(join(root, "gamma-prompt.config.json"), `${JSON.stringify({ ...config, ignore: JSON.parse(ignore ?? "[]") as string[] }, null, 2)}\n`);
    const rebuilt = await runCliInProcessFrom(root, "build");
    expect(rebuilt.stderr.includes(" error "), rebuilt.stderr).toBe(false);
    expect(rebuilt.code).toBe(0);
  }, 120_000);

  it("a skill's own type wins, then metadata.type, then the first glob of skillTypes that matches", async () => {
    const root = await tempDir("gamma-skill-types");
    const skill = (folder: string, extra: string, body = "# Notes\n\n- A fact.\n"): void => {
      mkdirSync(join(root, folder), { recursive: true });
      const name = folder.split("/").at(-1) ?? "";
      writeFileSync(join(root, folder, "SKILL.md"), `---\nname: ${name}\ndescription: Use when testing types.\n${extra}---\n\n${body}`);
    };
    const steps = "# Steps\n\n1. Read the input.\n2. Write the output.\n3. Verify the output.\n";
    skill("skills/own", "type: reference\n");
    skill("skills/meta", "metadata:\n  type: workflow\n", steps);
    skill("vendor/a/flow", "", steps);
    skill("vendor/b/note", "");
    skill("skills/plain", "");
    writeFileSync(
      join(root, "gamma-prompt.config.json"),
      JSON.stringify({ skills: ["skills/*", "vendor/*/*"], skillTypes: { "vendor/a/**": "workflow", "vendor/**": "reference", "skills/own": "workflow" } }),
    );
    const result = await lint({ root, profile: "gamma" });
    expect(result.diagnostics.map((d) => `${d.file} ${d.ruleId}`)).toEqual(['skills/plain/SKILL.md skill/missing-key']);
    expect(Object.fromEntries(result.skills.map((s) => [s.name, s.type]))).toEqual({ own: "reference", meta: "workflow", flow: "workflow", note: "reference" });
  });

  it("a metadata.type of the collection's own (neither workflow nor reference) names no type: skillTypes applies, and init's first build passes", async () => {
    const root = await tempDir("gamma-metadata-category");
    const skill = (folder: string, category: string, body: string): void => {
      mkdirSync(join(root, folder), { recursive: true });
      writeFileSync(join(root, folder, "SKILL.md"), `---\nname: ${folder.split("/").at(-1) ?? ""}\ndescription: Use when integrating Vite with the local dev server.\nmetadata:\n  type: ${category}\n---\n\n${body}`);
    };
    skill("skills/vp", "vite-plugin", "# Vite Plugin\n\nSome text.\n");
    skill("skills/release", "ops", "# Release\n\n## Steps\n\n1. Tag the commit.\n2. Publish the package.\n3. Verify the published version.\n");
    const created = await runCliInProcessFrom(root, "init");
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/skills\/vp +reference/);
    expect(created.stdout).toMatch(/skills\/release +workflow/);
    expect(created.stdout).not.toContain("The first build will fail");
    const result = await lint({ root });
    expect(result.diagnostics).toEqual([]);
    expect(Object.fromEntries(result.skills.map((s) => [s.name, s.type]))).toEqual({ release: "workflow", vp: "reference" });
    expect((await runCliInProcessFrom(root, "build")).code).toBe(0);

    // Without a skillTypes entry, the message says the key is there and why it names no type.
    writeFileSync(join(root, "gamma-prompt.config.json"), JSON.stringify({ profile: "gamma" }));
    const untyped = await lint({ root });
    expect(untyped.diagnostics.map((d) => [d.file, d.ruleId, d.message])).toEqual([
      [
        "skills/release/SKILL.md",
        "skill/missing-key",
        'Unexpected frontmatter without "type", expected "workflow" or "reference" (or "gamma-type" under metadata, or the folder\'s type in "skillTypes" of gamma-prompt.config.json, which gamma-prompt init writes for an existing collection); "type" under metadata ("ops") is read only when it says "workflow" or "reference"',
      ],
      [
        "skills/vp/SKILL.md",
        "skill/missing-key",
        'Unexpected frontmatter without "type", expected "workflow" or "reference" (or "gamma-type" under metadata, or the folder\'s type in "skillTypes" of gamma-prompt.config.json, which gamma-prompt init writes for an existing collection); "type" under metadata ("vite-plugin") is read only when it says "workflow" or "reference"',
      ],
    ]);
  }, 60_000);
});
