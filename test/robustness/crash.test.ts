/**
 * dist/ survives SIGKILL at every step of its transaction. Each case kills a
 * real `gamma-prompt build` process at an injected failpoint
 * (GAMMA_PROMPT_FAILPOINT, see src/pipeline/emit/failpoint.ts), never by
 * timing luck, then judges dist/: the complete old build, the complete new
 * one, or a journal that the runtime and `check` refuse. The next build must
 * recover it and leave nothing behind.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import type { Recovery } from "../../src/pipeline/emit/recovery.js";
import { JOURNAL_FILE } from "../../src/protocol/dist-journal.js";
import { InterruptedBuildError, loadArtifacts } from "../../src/runtime/artifacts.js";
import { cliPath, copyProject, removeTempDirs, snapshotTree } from "../build/helpers.js";

afterAll(removeTempDirs);

const RETIRED = "---\nname: retired\ntype: reference\ndescription: Use when reading retired notes.\n---\n\n# Retired\n\n- Old.\n";
const GLOSSARY = "---\nname: glossary\ntype: reference\ndescription: Use when a term needs its meaning.\n---\n\n# Glossary\n\n- Card: one slide.\n";
/** A skill without a description: a build with it fails after recovering dist/, and writes nothing. */
const BROKEN = "---\nname: broken\ntype: reference\n---\n\n# Broken\n";
const CARD_STYLE = "---\nname: card-style\ntype: reference\ndescription: Use when writing card text, changed.\n---\n\n# Card style\n\n- Titles are short.\n";

/** The old sources have a skill the new ones drop; the new ones add one and change another: removals, additions and replacements. */
async function useOldSources(root: string): Promise<void> {
  await mkdir(join(root, "skills/retired"), { recursive: true });
  await writeFile(join(root, "skills/retired/SKILL.md"), RETIRED);
}

async function useNewSources(root: string): Promise<void> {
  await rm(join(root, "skills/retired"), { recursive: true, force: true });
  await mkdir(join(root, "skills/glossary"), { recursive: true });
  await writeFile(join(root, "skills/glossary/SKILL.md"), GLOSSARY);
  await writeFile(join(root, "skills/card-style/SKILL.md"), CARD_STYLE);
}

async function builtSnapshot(prepare: (root: string) => Promise<void>): Promise<Record<string, string>> {
  const root = await copyProject("basic");
  await prepare(root);
  expect((await build({ root, persistentCache: false })).ok).toBe(true);
  return snapshotTree(join(root, "dist"));
}

async function restoreDist(dist: string, snapshot: Record<string, string>): Promise<void> {
  await rm(dist, { recursive: true, force: true });
  for (const [file, base64] of Object.entries(snapshot)) {
    await mkdir(dirname(join(dist, file)), { recursive: true });
    await writeFile(join(dist, file), Buffer.from(base64, "base64"));
  }
}

function killedBuild(root: string, failpoint: string): { status: number | null; signal: NodeJS.Signals | null } {
  const result = spawnSync(process.execPath, [cliPath, "build", "--root", root, "--format", "json"], {
    env: { ...process.env, GAMMA_PROMPT_FAILPOINT: failpoint },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, signal: result.signal };
}

/** Names next to dist/ that a build leaves only while it runs. */
function leftovers(root: string): string[] {
  return readdirSync(root).filter((name) => name.startsWith(".gamma-prompt-")).sort();
}

type Verdict = "old" | "new" | "journal";

async function judge(root: string, oldDist: Record<string, string>, newDist: Record<string, string>): Promise<Verdict> {
  const dist = join(root, "dist");
  const journaled = existsSync(join(dist, JOURNAL_FILE));
  if (!journaled) {
    const now = await snapshotTree(dist);
    if (JSON.stringify(now) === JSON.stringify(oldDist)) return "old";
    if (JSON.stringify(now) === JSON.stringify(newDist)) return "new";
    throw new Error("dist/ is neither the old nor the new build and carries no journal");
  }
  expect(() => loadArtifacts({ distDir: dist })).toThrow(InterruptedBuildError);
  expect(() => loadArtifacts({ distDir: dist })).toThrow("an interrupted build left dist/ half-replaced; run gamma-prompt build");
  const checked = await check({ root });
  expect(checked.diagnostics.map((d) => d.ruleId)).toEqual(["dist/interrupted-build"]);
  return "journal";
}

describe("a build killed at any step of the dist/ transaction", () => {
  it("leaves the old dist/, the new one or a refused journal, and the next build recovers with nothing left behind", async () => {
    const oldDist = await builtSnapshot(useOldSources);
    const newDist = await builtSnapshot(useNewSources);
    const root = await copyProject("basic");
    await useNewSources(root);
    const dist = join(root, "dist");
    const log: Array<{ failpoint: string; verdict: Verdict; leftovers: number; recovery: Recovery }> = [];

    const killAndRecover = async (failpoint: string, rollbackFailpoint?: string): Promise<boolean> => {
      await restoreDist(dist, oldDist);
      const run = killedBuild(root, failpoint);
      if (run.signal !== "SIGKILL") {
        expect(run.status).toBe(0);
        return false; // the failpoint lies past the last step: the build completed
      }
      let verdict = await judge(root, oldDist, newDist);
      const left = leftovers(root).length;
      let label = failpoint;
      if (rollbackFailpoint !== undefined && verdict === "journal") {
        // Kill the recovering build too, halfway through its rollback.
        const again = killedBuild(root, rollbackFailpoint);
        expect(again.signal).toBe("SIGKILL");
        verdict = await judge(root, oldDist, newDist);
        label = `${failpoint} then ${rollbackFailpoint}`;
      }
      // A build that fails on its sources still recovers dist/ first and then writes nothing: what it leaves is
      // the recovery alone, byte for byte the old build after a rollback and the new one after a roll forward.
      await mkdir(join(root, "skills/broken"), { recursive: true });
      await writeFile(join(root, "skills/broken/SKILL.md"), BROKEN);
      const failing = await build({ root, persistentCache: false });
      await rm(join(root, "skills/broken"), { recursive: true });
      expect(failing.ok, label).toBe(false);
      const recovery = failing.recovery ?? "none";
      expect(existsSync(join(dist, JOURNAL_FILE)), label).toBe(false);
      expect(await snapshotTree(dist), `${label}: dist/ after recovery "${recovery}"`).toEqual(recovery === "rolled-forward" || verdict === "new" ? newDist : oldDist);
      const rebuilt = await build({ root, persistentCache: false });
      expect(rebuilt.ok).toBe(true);
      expect(rebuilt.recovery).toBeUndefined();
      expect(await snapshotTree(dist)).toEqual(newDist);
      expect(existsSync(join(dist, JOURNAL_FILE))).toBe(false);
      expect(leftovers(root)).toEqual([]);
      log.push({ failpoint: label, verdict, leftovers: left, recovery });
      return true;
    };

    // Staging never touches dist/: two samples keep the suite fast (GAMMA_PROMPT_KILL_ALL=1 kills at every staging step).
    if (process.env["GAMMA_PROMPT_KILL_ALL"]) for (let step = 1; await killAndRecover(`stage@${step}`); step++);
    else for (const step of [1, 5]) await killAndRecover(`stage@${step}`);
    await killAndRecover("journal@1");
    for (let step = 1; await killAndRecover(`apply@${step}`); step++);
    await killAndRecover("commit@1");
    await killAndRecover("apply@3", "rollback@2");

    const verdicts = log.map((entry) => entry.verdict);
    // Staging kills leave the old dist/; kills inside the window leave a journal; none leaves a mix.
    expect(log.filter((entry) => entry.failpoint.startsWith("stage@")).every((entry) => entry.verdict === "old")).toBe(true);
    expect(log.filter((entry) => /^(journal|apply)@/.test(entry.failpoint)).every((entry) => entry.verdict === "journal")).toBe(true);
    expect(log.find((entry) => entry.failpoint === "commit@1")?.verdict).toBe("new");
    // The direction of each recovery: back to the old build until the new manifest (written last) is in place,
    // forward from then on; a rollback killed halfway is rolled back again.
    const recoveries = (pattern: RegExp) => log.filter((entry) => pattern.test(entry.failpoint)).map((entry) => entry.recovery);
    expect(recoveries(/^stage@/).every((recovery) => recovery === "none")).toBe(true);
    expect(recoveries(/^journal@1$/)).toEqual(["rolled-back"]);
    const applies = recoveries(/^apply@\d+$/);
    expect(applies.length).toBeGreaterThanOrEqual(3);
    expect(applies).toEqual([...Array(applies.length - 1).fill("rolled-back"), "rolled-forward"]);
    expect(recoveries(/^commit@1$/)).toEqual(["none"]);
    expect(recoveries(/ then rollback@/)).toEqual(["rolled-back"]);
    expect(verdicts.length).toBeGreaterThanOrEqual(14);
    // Every killed build left its staging folder (and lock); the recovering build removed them all.
    expect(log.every((entry) => entry.leftovers >= 1)).toBe(true);
    if (process.env["GAMMA_PROMPT_KILL_LOG"]) await writeFile(process.env["GAMMA_PROMPT_KILL_LOG"], `${JSON.stringify(log, null, 2)}\n`);
  }, 240_000);

  it("leaves no dist/ or the complete first build when the build that creates dist/ is killed", async () => {
    const newDist = await builtSnapshot(useNewSources);
    const root = await copyProject("basic");
    await useNewSources(root);
    const dist = join(root, "dist");
    const outcomes: Array<{ failpoint: string; dist: "none" | "new"; leftovers: number }> = [];
    // The first build stages every file, then renames the staging folder's new/ to dist/ in one step.
    for (const failpoint of ["stage@1", "stage@5", "commit@1"]) {
      await rm(dist, { recursive: true, force: true });
      const run = killedBuild(root, failpoint);
      expect(run.signal).toBe("SIGKILL");
      const present = existsSync(dist);
      if (present) expect(await snapshotTree(dist)).toEqual(newDist);
      outcomes.push({ failpoint, dist: present ? "new" : "none", leftovers: leftovers(root).length });
      expect((await build({ root, persistentCache: false })).ok).toBe(true);
      expect(await snapshotTree(dist)).toEqual(newDist);
      expect(leftovers(root)).toEqual([]);
    }
    expect(outcomes.map((outcome) => `${outcome.failpoint}: ${outcome.dist}`)).toEqual(["stage@1: none", "stage@5: none", "commit@1: new"]);
    expect(outcomes.every((outcome) => outcome.leftovers >= 1)).toBe(true);
  }, 120_000);
});
