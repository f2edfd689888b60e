/**
 * scripts/build-collections.mjs takes a folder of Agent Skills collections,
 * builds each as an agent and proves every supporting file byte for byte
 * (the README shows its run on the real collections). Here it runs on a
 * small collection shaped like theirs: no `type`, a folder that differs
 * from its name, nested binary files, and a skill with a true error (built
 * with a warning by default, left out under --strict).
 */
import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, repoRoot, tempDir } from "../build/helpers.js";

afterAll(removeTempDirs);

async function writeSkill(root: string, folder: string, frontmatter: string, files: Record<string, string | Buffer> = {}): Promise<void> {
  const dir = join(root, "skills", folder);
  await mkdir(dir, { recursive: true });
  // The body links scripts/run.py only where the skill has it: lint reports a link to a missing file (skill/broken-link).
  const link = "scripts/run.py" in files ? "\n\nSee scripts/run.py." : "";
  await writeFile(join(dir, "SKILL.md"), `---\n${frontmatter}\n---\n\n# ${folder}${link}\n`);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

describe("scripts/build-collections.mjs", () => {
  it("builds each collection as an agent and reports every supporting file byte-identical", async () => {
    const corpus = await tempDir();
    const collection = join(corpus, "acme-skills");
    await writeSkill(collection, "pdf", "name: pdf\ndescription: Use when working with PDF files.", {
      "scripts/run.py": "print('ok')\r\n",
      "assets/fonts/Inter.ttf": Buffer.from([0, 1, 0, 0, 0xff, 0xfe, 0x0d, 0x0a]),
      "reference/deep/er/notes.md": "# Notes\n",
    });
    await writeSkill(collection, "old-folder", "name: renamed-skill\ndescription: Use when a name differs from its folder.", { "LICENSE.txt": "MIT\n" });
    await writeSkill(collection, "broken", `name: broken\ndescription: Use for <tags> in a description.`, { "data.json": "{}\n" });

    // By default a finding about a skill's own text that leaves its artifacts intact is lowered to a warning: every file is proven.
    const run = spawnSync(process.execPath, [join(repoRoot, "scripts/build-collections.mjs"), corpus, "--json"], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([
      {
        collection: "acme-skills",
        skills: 3,
        built: 3,
        excluded: [],
        lowered: ["broken (skill/description-angle-bracket)"],
        supportingFiles: 5,
        // scripts/run.py's CRLF is written as LF (12 bytes); the font keeps its bytes, CRLF pair included.
        bytes: 12 + 8 + 8 + 4 + 3,
        identical: true,
        mismatches: [],
        checkOk: true,
        loadOk: true,
      },
    ]);

    // --strict lowers nothing: the skill with the error is left out and named.
    const strict = spawnSync(process.execPath, [join(repoRoot, "scripts/build-collections.mjs"), corpus, "--json", "--strict"], { encoding: "utf8" });
    expect(strict.stderr).toBe("");
    expect(strict.status).toBe(0);
    expect(JSON.parse(strict.stdout)).toEqual([
      {
        collection: "acme-skills",
        skills: 3,
        built: 2,
        excluded: ["broken (skill/description-angle-bracket)"],
        lowered: [],
        supportingFiles: 4,
        bytes: 12 + 8 + 8 + 4,
        identical: true,
        mismatches: [],
        checkOk: true,
        loadOk: true,
      },
    ]);
  });

  it("refuses a missing path as bad usage", () => {
    const run = spawnSync(process.execPath, [join(repoRoot, "scripts/build-collections.mjs"), join(repoRoot, "no-such-folder")], { encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("usage: node scripts/build-collections.mjs PATH");
  });
});
