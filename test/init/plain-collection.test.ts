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
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const collection = [join(repoRoot, "..", "shared", "realworld-skills", "openai-skills"), join(repoRoot, "..", "..", "shared", "realworld-skills", "openai-skills")].find((path) => existsSync(path));

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
    const result = init({ dir: root, profile: "agentskills" });
    expect(result.ok).toBe(true);
    expect(result.written.filter((path) => path.startsWith("skills/"))).toEqual([]);
    const config = JSON.parse(readFileSync(join(root, "gamma-prompt.config.json"), "utf8")) as Record<string, unknown>;
    expect(config["skillTypes"]).toEqual({ "skills/*": "reference" });

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
    expect([...artifacts.skills.values()].every((skill) => skill.type === "reference")).toBe(true);
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
});
