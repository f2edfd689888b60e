/**
 * `withAvailableFixes` (what the MCP lint tool attaches to each finding) says of each finding whether
 * `lint --fix` resolves it, and agrees with what `lint --fix` does: one move answers every finding about the
 * fields it moves, a finding whose lines another fix rewrote first is resolved in a later pass, and a finding
 * left for a person has no fix.
 */
import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { lint, withAvailableFixes } from "../../src/lint.js";
import { FIXABLE_RULES } from "../../src/pipeline/fix/fix-plan.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

const fixtures = fileURLToPath(new URL("../fixtures/fix", import.meta.url));

async function project(): Promise<string> {
  const dir = await tempDir("available fixes");
  await cp(join(fixtures, "suppression-in-list", "project"), dir, { recursive: true });
  await mkdir(join(dir, "skills", "moved"), { recursive: true });
  // Two fields to move (one fix, one site), and a flow list inside one of them (a fix the move overlaps).
  await writeFile(join(dir, "skills", "moved", "SKILL.md"), "---\nname: moved\ndescription: Use when two fields move at once.\ntype: reference\nconflictsWith: [s1]\n---\n\n# Moved\n\n- A fact.\n");
  return dir;
}

const key = (diagnostic: { file: string; ruleId: string; message: string }): string => `${diagnostic.file} ${diagnostic.ruleId} ${diagnostic.message}`;

describe("withAvailableFixes", () => {
  it("marks exactly the findings lint --fix resolves", async () => {
    const dir = await project();
    const found = await lint({ root: dir });
    const marked = await withAvailableFixes(dir, found.diagnostics, found.profile);
    const fixed = await lint({ root: await project(), fix: "write" });
    const left = new Set(fixed.diagnostics.map(key));
    const resolved = found.diagnostics.filter((diagnostic) => FIXABLE_RULES.has(diagnostic.ruleId) && !left.has(key(diagnostic))).map(key);
    expect(resolved.length).toBeGreaterThanOrEqual(3);
    expect(marked.filter((diagnostic) => diagnostic.fix !== undefined).map(key)).toEqual(resolved);
    // The move names both fields on each of their findings.
    for (const diagnostic of marked.filter((entry) => entry.file === "skills/moved/SKILL.md" && entry.ruleId === "skill/portable-manifest")) expect(diagnostic.fix).toContain("moved type and conflictsWith under metadata");
    // Left for a person (a suppression comment inside the list): no fix offered.
    expect(marked.filter((diagnostic) => diagnostic.file !== "skills/moved/SKILL.md" && diagnostic.fix !== undefined)).toEqual([]);
  });
});
