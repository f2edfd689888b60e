// A watch session outlives its builds: a build that fails (a budget exceeded after every text was counted)
// ends its session's build as a successful one does, so the session holds one build's worth of token
// counts, not every failed rebuild's.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build, createBuildCache } from "../../src/build.js";
import { TOKEN_COUNTER } from "../../src/pipeline/compile/compile.js";
import type { BuildSession } from "../../src/pipeline/session/build-session.js";
import { copyProject, removeTempDirs } from "./helpers.js";

afterAll(removeTempDirs);

describe("a watch session whose builds fail", () => {
  it("holds one build's worth of token counts over many failed rebuilds, and the next good build is whole", async () => {
    const root = await copyProject("basic");
    const config = join(root, "gamma-prompt.config.json");
    const original = await readFile(config, "utf8").catch(() => "{}");
    await writeFile(config, JSON.stringify({ ...(JSON.parse(original) as object), budgets: { prefixTokens: 10 } }));
    const cache = createBuildCache();
    const skill = join(root, "skills", "outline-deck", "SKILL.md");
    const text = await readFile(skill, "utf8");
    const sizes: number[] = [];
    for (let edit = 1; edit <= 12; edit++) {
      await writeFile(skill, text.replace(/^description: (.*)$/m, `description: $1 Edit ${edit}.`));
      const result = await build({ root, cache, persistentCache: false });
      expect(result.diagnostics.map((diagnostic) => diagnostic.ruleId)).toContain("budget/prefix-exceeded");
      sizes.push((cache as BuildSession).find(TOKEN_COUNTER)?.size ?? 0);
    }
    expect(sizes[0]).toBeGreaterThan(0);
    expect(Math.max(...sizes)).toBe(sizes[0]);
    await writeFile(config, original);
    expect((await build({ root, cache, persistentCache: false })).ok).toBe(true);
  });
});
