import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import { cliPath, copyProject, removeTempDirs, repoRoot } from "./helpers.js";

// check renders everything again but takes the token counts dist/ records for
// bytes that come out the same, so it needs no tokenizer on a current dist/.
// Where any counted text differs, the tokenizer loads and counts it; with
// --recount it counts everything.

afterAll(removeTempDirs);

const hook = join(repoRoot, "test/fixtures/hooks/report-tokenizer-load.cjs");

function checkProcess(root: string, ...args: string[]): { status: number | null; tokenizerLoaded: boolean; stdout: string } {
  const child = spawnSync(process.execPath, ["--require", hook, cliPath, "check", "--root", root, ...args], { encoding: "utf8" });
  return { status: child.status, tokenizerLoaded: child.stderr.includes("TOKENIZER LOADED"), stdout: child.stdout };
}

async function builtCopy(fixture: string): Promise<string> {
  const root = await copyProject(fixture);
  expect((await build({ root, persistentCache: false })).ok).toBe(true);
  return root;
}

describe("check with recorded token counts", () => {
  it("does not load the tokenizer when dist/ is current", async () => {
    const root = await builtCopy("basic");
    const result = checkProcess(root);
    expect(result.status).toBe(0);
    expect(result.tokenizerLoaded).toBe(false);
  });

  it("counts again what changed, and reports the drift", async () => {
    const root = await builtCopy("basic");
    const skill = join(root, "skills/outline-deck/SKILL.md");
    await writeFile(skill, `${await readFile(skill, "utf8")}\nOne more line for the body.\n`);
    const result = checkProcess(root);
    expect(result.status).toBe(1);
    expect(result.tokenizerLoaded).toBe(true);
  });

  it("counts everything with --recount", async () => {
    const root = await builtCopy("basic");
    const result = checkProcess(root, "--recount");
    expect(result.status).toBe(0);
    expect(result.tokenizerLoaded).toBe(true);
  });

  it("finds exactly what a full recount finds, current or drifted", async () => {
    const root = await builtCopy("basic");
    expect(await check({ root })).toEqual(await check({ root, recount: true }));
    const partial = join(root, "prompts/partials/intro.hbs");
    await writeFile(partial, (await readFile(partial, "utf8")).replace("Follow the skill contracts.", "Follow every skill contract."));
    const skill = join(root, "skills/outline-deck/SKILL.md");
    await writeFile(skill, `${await readFile(skill, "utf8")}\nOne more line for the body.\n`);
    const drifted = await check({ root });
    expect(drifted.ok).toBe(false);
    expect(drifted).toEqual(await check({ root, recount: true }));
  });

  it("takes a recorded count only for the bytes it was recorded for: --recount catches a hand-edited count", async () => {
    const root = await builtCopy("basic");
    const manifestPath = join(root, "dist/manifest.json");
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as { skills: Record<string, { tokens: number }> };
    const [name] = Object.keys(manifest.skills);
    (manifest.skills[name ?? ""] as { tokens: number }).tokens += 1;
    await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    expect((await check({ root, recount: true })).ok).toBe(false);
  });

  it("ignores records made by another tokenizer version", async () => {
    const root = await builtCopy("basic");
    const manifestPath = join(root, "dist/manifest.json");
    const text = await readFile(manifestPath, "utf8");
    const manifest = JSON.parse(text) as { tokenizer: { version: string } };
    await writeFile(manifestPath, text.replace(JSON.stringify(manifest.tokenizer.version), '"0.0.1"'));
    const result = checkProcess(root);
    expect(result.status).toBe(1); // the manifest names another tokenizer version: drift
    expect(result.tokenizerLoaded).toBe(true);
  });
});
