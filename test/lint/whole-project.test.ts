/**
 * `gamma-prompt lint` checks an agent project whole, as its build checks it
 * before rendering: a CI that runs lint does not pass a project whose build
 * then fails. Same rule ids, same positions.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { init } from "../../src/init.js";
import { lint } from "../../src/lint.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

const brief = (d: { file: string; line: number; column: number; ruleId: string }): string => `${d.file}:${d.line}:${d.column} ${d.ruleId}`;

describe("lint checks the whole agent project", () => {
  it("reports knowledge notes, variants, tool schemas and the config exactly as build does", async () => {
    const root = await tempDir("gamma-whole-project");
    expect((await init({ dir: root })).ok).toBe(true);
    mkdirSync(join(root, "knowledge"));
    writeFileSync(join(root, "knowledge", "bad.md"), "---\nid: Bad_Id\nname: Bad\n---\n");
    writeFileSync(join(root, "prompts", "variants.yaml"), "variants:\n  base:\n    preload: [no-such-skill]\n");
    writeFileSync(join(root, "schemas", "tools", "bash.json"), '{ "name": 3 }\n');
    writeFileSync(join(root, "gamma-prompt.config.json"), '{ "profile": "gamma", "budgets": { "prefixTokens": "many" } }\n');
    const linted = await lint({ root });
    const built = await build({ root, persistentCache: false });
    expect(built.ok).toBe(false);
    const rules = new Set(linted.diagnostics.map((d) => d.ruleId.split("/")[0]));
    for (const group of ["knowledge", "variant", "tool", "config"]) expect(rules, group).toContain(group);
    expect(linted.diagnostics.map(brief)).toEqual(built.diagnostics.map(brief));
    expect(linted.diagnostics).toEqual(built.diagnostics);
  });

  it("an agent init made around a plain collection is checked whole under the agentskills profile too", async () => {
    const root = await tempDir("gamma-agent-around-collection");
    mkdirSync(join(root, "skills", "pdf"), { recursive: true });
    writeFileSync(join(root, "skills", "pdf", "SKILL.md"), "---\nname: pdf\ndescription: Use when filling PDF forms.\n---\n\n# PDF\n");
    expect((await init({ dir: root, profile: "agentskills" })).ok).toBe(true);
    writeFileSync(join(root, "prompts", "variants.yaml"), "variants:\n  base:\n    preload: [no-such-skill]\n");
    const linted = await lint({ root });
    expect(linted.profile).toBe("agentskills");
    expect(linted.diagnostics.map((d) => d.ruleId)).toContain("variant/unknown-skill");
    // The flag says the same as the config.
    expect((await lint({ root, profile: "agentskills" })).diagnostics.map((d) => d.ruleId)).toContain("variant/unknown-skill");
  });

  it("the gamma profile named on a collection with an agent's prefix still checks the project whole", async () => {
    const root = await tempDir("gamma-flag-whole");
    expect((await init({ dir: root })).ok).toBe(true);
    writeFileSync(join(root, "prompts", "variants.yaml"), "variants:\n  base:\n    preload: [no-such-skill]\n");
    expect((await lint({ root, profile: "gamma" })).diagnostics.map((d) => d.ruleId)).toContain("variant/unknown-skill");
  });

  it("a plain skills collection is still checked as skills alone", async () => {
    const root = await tempDir("gamma-plain-lint");
    mkdirSync(join(root, "skills", "pdf"), { recursive: true });
    writeFileSync(join(root, "skills", "pdf", "SKILL.md"), "---\nname: pdf\ndescription: Use when filling PDF forms.\n---\n\n# PDF\n");
    mkdirSync(join(root, "knowledge"));
    writeFileSync(join(root, "knowledge", "notes.md"), "not a note\n");
    expect((await lint({ root })).diagnostics).toEqual([]);
  });
});
