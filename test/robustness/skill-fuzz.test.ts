/**
 * Lint takes any SKILL.md: mutants of the package's embedded skills (edits,
 * hostile characters, and link targets no file system can look up: a NUL
 * byte, a name over the system's limit) give findings, never a thrown error
 * and never `skill/parse-failure` (the rule for a checker that threw). The
 * mutations come from a seeded generator, so a failure names a case that
 * replays.
 */
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { lint } from "../../src/lint.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { seededRandom as random } from "../helpers/random.js";

afterAll(removeTempDirs);

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

const LONG_NAME = "a".repeat(300);
const LONG_PATH = `${"deep/".repeat(1_000)}x.md`;
/** Link targets and path mentions that no stat can answer, each in every place a path is read. */
const UNREADABLE_PATHS = [
  `references/bad\0name.md`,
  `references/${LONG_NAME}.md`,
  `scripts/${LONG_NAME}.py`,
  `references/${LONG_PATH}`,
  `assets/%00.png`,
  `references/${"%41".repeat(400)}.md`,
];
const PATH_SHAPES = [
  (path: string) => `[link](${path})`,
  (path: string) => `![image](${path})`,
  (path: string) => `[ref]: ${path}`,
  (path: string) => `Run \`${path}\` first.`,
  (path: string) => `See ${path} for details.`,
  (path: string) => `[link](<${path}>)`,
];
const HOSTILE_TEXT = ["\0", "\uFFFD", "](", "[", "`", "```", "---", ": ", "\t", ">", "<", "\\", "%", "${X}/", "../", "\r", "\u2028", "#"];

function mutate(text: string, next: () => number): { text: string; description: string } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const lines = text.split("\n");
  const at = Math.floor(next() * (lines.length + 1));
  const roll = next();
  if (roll < 0.5) {
    const path = pick(UNREADABLE_PATHS);
    const shape = pick(PATH_SHAPES);
    lines.splice(at, 0, shape(path));
    return { text: lines.join("\n"), description: `line ${at + 1}: ${JSON.stringify(shape(path).slice(0, 60))}` };
  }
  if (roll < 0.8) {
    const offset = Math.floor(next() * (text.length + 1));
    const insert = pick(HOSTILE_TEXT);
    return { text: text.slice(0, offset) + insert + text.slice(offset), description: `insert ${JSON.stringify(insert)} at ${offset}` };
  }
  if (roll < 0.9) {
    const offset = Math.floor(next() * text.length);
    const length = Math.floor(next() * 40);
    return { text: text.slice(0, offset) + text.slice(offset + length), description: `delete ${length} at ${offset}` };
  }
  lines.splice(at, 0, ...lines.slice(at, at + 3));
  return { text: lines.join("\n"), description: `repeat lines from ${at + 1}` };
}

describe("lint over mutants of the embedded skills", () => {
  it("reports hostile link targets and paths as findings, never a crash", async () => {
    const root = await tempDir("gamma-skill-fuzz");
    cpSync(join(repoRoot, "skills"), join(root, "skills"), { recursive: true });
    const skills = readdirSync(join(root, "skills")).sort();
    const originals = new Map(skills.map((name) => [name, readFileSync(join(root, "skills", name, "SKILL.md"), "utf8")]));
    const next = random(23);
    let unreadableFindings = 0;
    for (let round = 0; round < 240; round++) {
      const skill = skills[round % skills.length] ?? "";
      const original = originals.get(skill) ?? "";
      const { text, description } = mutate(original, next);
      const file = join(root, "skills", skill, "SKILL.md");
      writeFileSync(file, text);
      const context = `round ${round}, skills/${skill}: ${description}`;
      const result = await lint({ root, profile: "gamma" }).catch((error: unknown) => {
        throw new Error(`${context}: lint threw ${String(error)}`);
      });
      expect(result.diagnostics.filter((d) => d.ruleId === "skill/parse-failure"), context).toEqual([]);
      unreadableFindings += result.diagnostics.filter((d) => d.message.includes("no file system can look up")).length;
      writeFileSync(file, original);
    }
    // The generator did put unreadable targets where the checks read them.
    expect(unreadableFindings).toBeGreaterThan(20);
  }, 120_000);

  it("build reports a link no file system can look up as skill/broken-link", async () => {
    const root = await tempDir("gamma-skill-fuzz-build");
    cpSync(join(repoRoot, "skills"), join(root, "skills"), { recursive: true });
    cpSync(join(repoRoot, "prompts"), join(root, "prompts"), { recursive: true });
    const file = join(root, "skills", "gml-cli", "SKILL.md");
    writeFileSync(file, `${readFileSync(file, "utf8")}\nSee [the long one](references/${LONG_NAME}.md) and [the NUL one](references/a\0b.md).\n`);
    const result = await build({ root, persistentCache: false });
    const links = result.diagnostics.filter((d) => d.ruleId === "skill/broken-link");
    // The over-long name is not found (its folder does not exist) or refused by the file system: a finding either way.
    expect(links).toHaveLength(2);
    expect(links[1]?.message).toContain("no file system can look up");
  });
});
