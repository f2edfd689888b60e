import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { SkillParseCache } from "../../src/pipeline/lint-skills/checked-skill.js";
import { CHECKED_SKILLS, lintSkills } from "../../src/pipeline/lint-skills/lint-skills.js";
import { BuildSession } from "../../src/pipeline/session/build-session.js";
import { fixturesDir } from "./helpers.js";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

const root = join(fixturesDir, "requires-conflict");
const lint = ({ root, cache }: { root: string; cache: SkillParseCache }) => {
  const session = new BuildSession();
  session.keep(CHECKED_SKILLS, () => cache);
  return lintSkills(root, session);
};

describe("SkillParseCache", () => {
  it("serves unchanged files from the cache with identical results", async () => {
    const cache = new SkillParseCache();
    const first = await lint({ root, cache });
    expect(cache.size).toBe(3);
    const set = vi.spyOn(cache, "set");
    const second = await lint({ root, cache });
    expect(set).not.toHaveBeenCalled();
    expect(second).toEqual(first);
  });

  it("survives a JSON round trip", async () => {
    const cache = new SkillParseCache();
    const first = await lint({ root, cache });
    const restored = SkillParseCache.fromJSON(JSON.parse(JSON.stringify(cache)));
    expect(restored.size).toBe(3);
    const set = vi.spyOn(restored, "set");
    expect(await lint({ root, cache: restored })).toEqual(first);
    expect(set).not.toHaveBeenCalled();
  });

  it("starts empty from JSON of another version or format, or from garbage", () => {
    const json = JSON.parse(JSON.stringify(new SkillParseCache())) as Record<string, unknown>;
    expect(SkillParseCache.fromJSON({ ...json, version: "0.0.0-other" }).size).toBe(0);
    expect(SkillParseCache.fromJSON({ ...json, format: 999 }).size).toBe(0);
    expect(SkillParseCache.fromJSON("nonsense").size).toBe(0);
    expect(SkillParseCache.fromJSON({ ...json, entries: [["hash", { diagnostics: [{ ruleId: "no/such-rule" }], body: "", bodyStartLine: 1, opening: {} }]] }).size).toBe(0);
  });

  it("keeps one lint's worth: an edited file's earlier versions are dropped, so a long session does not grow", async () => {
    const copy = await tempDir("gamma parse cache");
    try {
      cpSync(root, copy, { recursive: true });
      const session = new BuildSession({ repeated: true });
      await lintSkills(copy, session);
      const cache = session.find(CHECKED_SKILLS);
      expect(cache?.size).toBe(3);
      const file = join(copy, "skills", readSkillFolder(copy), "SKILL.md");
      const original = readFileSync(file, "utf8");
      for (let edit = 1; edit <= 20; edit++) {
        writeFileSync(file, `${original}\nEdit ${edit}.\n`);
        await lintSkills(copy, session);
      }
      expect(cache?.size).toBe(3);
    } finally {
      await removeTempDirs();
    }
  });
});

/** The first skill folder of the fixture, by name. */
function readSkillFolder(project: string): string {
  return readdirSync(join(project, "skills")).sort()[0] ?? "";
}
