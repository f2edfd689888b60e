/**
 * `build` into an output folder that is a mount point: a Docker volume or a
 * bind mount (`docker run -v $PWD/out:/app/dist`), a tmpfs. No file can be
 * renamed into such a folder from its parent, so the build stages inside it;
 * the guarantees stay those of any build (docs/reference/manifest-and-artifacts.md):
 * the same bytes as a build into a plain folder, a journal that `check` and
 * the runtime refuse when the build is killed, recovery by the next build, and
 * nothing left behind. The mounts are real, so the suite needs root on Linux;
 * elsewhere it is skipped with the reason. test/build/emit-transaction.test.ts
 * covers the same in process, with the file system's EXDEV simulated.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import { JOURNAL_FILE } from "../../src/protocol/dist-journal.js";
import { InterruptedBuildError, loadArtifacts } from "../../src/runtime/artifacts.js";
import { cliPath, copyProject, removeTempDirs, snapshotTree, tempDir } from "../build/helpers.js";

const mounted: string[] = [];

afterAll(async () => {
  for (const target of mounted.reverse()) spawnSync("umount", ["-l", target]);
  await removeTempDirs();
});

function mount(args: string[], target: string): void {
  const result = spawnSync("mount", [...args, target], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`mount ${args.join(" ")} ${target} failed: ${result.stderr || result.error?.message}`);
  mounted.push(target);
}

function unmount(target: string): void {
  expect(spawnSync("umount", [target]).status).toBe(0);
  mounted.splice(mounted.indexOf(target), 1);
}

/** Why real mounts cannot be made here, or undefined when they can. */
function whyNoMounts(): string | undefined {
  if (process.platform !== "linux") return "mounting a folder is tested on Linux only";
  if (process.getuid?.() !== 0) return "mounting a folder needs root";
  const probe = spawnSync("sh", ["-c", 'd=$(mktemp -d) && mount -t tmpfs tmpfs "$d" && umount "$d" && rmdir "$d"'], { encoding: "utf8" });
  if (probe.status !== 0) return `this system refuses mount (${(probe.stderr || "no reason given").trim()})`;
  return undefined;
}

const skipReason = whyNoMounts();

const GLOSSARY = "---\nname: glossary\ntype: reference\ndescription: Use when a term needs its meaning.\n---\n\n# Glossary\n\n- Card: one slide.\n";

/** The second build: a skill added, so files are added and replaced. */
async function changeSources(root: string): Promise<void> {
  await mkdir(join(root, "skills/glossary"), { recursive: true });
  await writeFile(join(root, "skills/glossary/SKILL.md"), GLOSSARY);
}

async function plainBuild(prepare?: (root: string) => Promise<void>): Promise<Record<string, string>> {
  const root = await copyProject("basic");
  await prepare?.(root);
  expect((await build({ root, persistentCache: false })).ok).toBe(true);
  return snapshotTree(join(root, "dist"));
}

function cliBuild(root: string, env: NodeJS.ProcessEnv = {}): { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cliPath, "build", "--root", root], { env: { ...process.env, ...env }, encoding: "utf8", timeout: 60_000 });
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

/** Names a build leaves only while it runs: beside dist/ and inside it. */
function leftovers(root: string): string[] {
  const inside = existsSync(join(root, "dist")) ? readdirSync(join(root, "dist")).map((name) => `dist/${name}`) : [];
  return [...readdirSync(root), ...inside].filter((name) => /(^|\/)\.gamma-prompt-/.test(name)).sort();
}

type Mount = "a bind mount of the same file system" | "a tmpfs";

/** A project whose dist/ is a fresh mount of that kind. */
async function projectWithMountedDist(kind: Mount): Promise<string> {
  const root = await copyProject("basic");
  const dist = join(root, "dist");
  mkdirSync(dist);
  if (kind === "a tmpfs") mount(["-t", "tmpfs", "tmpfs"], dist);
  else {
    const volume = join(await tempDir("gamma volume"), "volume");
    mkdirSync(volume);
    mount(["--bind", volume], dist);
  }
  return root;
}

describe.skipIf(skipReason !== undefined)(`build into a dist/ that is a mount point${skipReason ? ` (skipped: ${skipReason})` : ""}`, () => {
  it.each<Mount>(["a bind mount of the same file system", "a tmpfs"])("writes and rewrites the build into %s: exit 0, the bytes of a plain build, nothing left behind", async (kind) => {
    const first = await plainBuild();
    const second = await plainBuild(changeSources);
    const root = await projectWithMountedDist(kind);
    const run = cliBuild(root);
    expect(run.stderr).not.toContain("EXDEV");
    expect(run.status).toBe(0);
    expect(await snapshotTree(join(root, "dist"))).toEqual(first);
    expect(leftovers(root)).toEqual([]);
    await changeSources(root);
    expect(cliBuild(root).status).toBe(0);
    expect(await snapshotTree(join(root, "dist"))).toEqual(second);
    expect(leftovers(root)).toEqual([]);
    expect((await check({ root })).ok).toBe(true);
  }, 120_000);

  it.each<Mount>(["a bind mount of the same file system", "a tmpfs"])("in %s, a build killed mid-replacement leaves a journal that check and the runtime refuse, and the next build recovers it", async (kind) => {
    const first = await plainBuild();
    const second = await plainBuild(changeSources);
    const root = await projectWithMountedDist(kind);
    const dist = join(root, "dist");
    expect(cliBuild(root).status).toBe(0);
    await changeSources(root);
    for (const failpoint of ["journal@1", "apply@2"]) {
      const killed = cliBuild(root, { GAMMA_PROMPT_FAILPOINT: failpoint });
      expect(killed.signal, failpoint).toBe("SIGKILL");
      const journal = JSON.parse(readFileSync(join(dist, JOURNAL_FILE), "utf8")) as { staging: string; stagingInOutput?: boolean };
      expect(journal.stagingInOutput).toBe(true);
      expect(leftovers(root)).toContain(`dist/${journal.staging}`);
      expect(() => loadArtifacts({ distDir: dist })).toThrow(InterruptedBuildError);
      expect((await check({ root })).diagnostics.map((d) => d.ruleId)).toEqual(["dist/interrupted-build"]);
      // Recovery alone: the next build rolls back to the first build, then writes the second.
      await rm(join(root, "skills/glossary"), { recursive: true });
      const recovered = await build({ root, persistentCache: false });
      expect(recovered.recovery, failpoint).toBe("rolled-back");
      expect(await snapshotTree(dist)).toEqual(first);
      expect(leftovers(root)).toEqual([]);
      await changeSources(root);
      expect(cliBuild(root).status).toBe(0);
      expect(await snapshotTree(dist)).toEqual(second);
      await rm(join(root, "skills/glossary"), { recursive: true });
      expect(cliBuild(root).status).toBe(0);
      expect(await snapshotTree(dist)).toEqual(first);
      await changeSources(root);
    }
  }, 240_000);

  it("says a read-only mounted dist/ is not writable (EROFS), and leaves it as it was", async () => {
    const root = await projectWithMountedDist("a bind mount of the same file system");
    const dist = join(root, "dist");
    expect(cliBuild(root).status).toBe(0);
    const first = await snapshotTree(dist);
    expect(spawnSync("mount", ["-o", "remount,ro,bind", dist]).status).toBe(0);
    await changeSources(root);
    const run = cliBuild(root);
    // dist/write-failed: the environment failed, not the sources (exit 2, not the 1 of findings).
    expect(run.status).toBe(2);
    expect(`${run.stdout}${run.stderr}`).toContain("Unexpected failure writing this file (EROFS), expected a writable output folder; the output folder was left as it was");
    expect(await snapshotTree(dist)).toEqual(first);
    expect(leftovers(root)).toEqual([]);
  }, 120_000);

  it("a file of dist/ bind-mounted on its own (docker run -v catalog.xml:/app/dist/catalog.xml) fails the build at that file, and dist/ is the previous build", async () => {
    const first = await plainBuild();
    const second = await plainBuild(changeSources);
    const root = await copyProject("basic");
    const dist = join(root, "dist");
    expect(cliBuild(root).status).toBe(0);
    // The last file the second build replaces, so the ones before it are renamed in first and must be put back.
    const replaced = Object.keys(first).filter((path) => path !== "manifest.json" && second[path] !== undefined && second[path] !== first[path]).sort();
    expect(replaced.length).toBeGreaterThan(1);
    const held = replaced[replaced.length - 1] as string;
    const hostFile = join(await tempDir("gamma host file"), "held");
    cpSync(join(dist, held), hostFile);
    mount(["--bind", hostFile], join(dist, held));
    await changeSources(root);
    for (const attempt of [1, 2]) {
      const run = cliBuild(root);
      expect(run.status, `attempt ${attempt}`).toBe(2);
      expect(`${run.stdout}${run.stderr}`).toContain(`dist/${held}`);
      expect(`${run.stdout}${run.stderr}`).toContain("expected a writable output folder; the output folder was left as it was");
      expect(`${run.stdout}${run.stderr}`).not.toContain("internal error");
      expect(await snapshotTree(dist)).toEqual(first);
      expect(leftovers(root)).toEqual([]);
    }
    unmount(join(dist, held));
    expect(cliBuild(root).status).toBe(0);
    expect(await snapshotTree(dist)).toEqual(second);
  }, 120_000);

  it("a killed build whose rollback meets a file that cannot be renamed over: a finding naming the journal, the journal kept, and recovery once the file is free", async () => {
    const first = await plainBuild();
    const root = await copyProject("basic");
    const dist = join(root, "dist");
    expect(cliBuild(root).status).toBe(0);
    await changeSources(root);
    expect(cliBuild(root, { GAMMA_PROMPT_FAILPOINT: "apply@2" }).signal).toBe("SIGKILL");
    const current = await snapshotTree(dist);
    const applied = Object.keys(first).filter((path) => path !== "manifest.json" && current[path] !== undefined && current[path] !== first[path]);
    expect(applied.length).toBeGreaterThan(0);
    const hostFile = join(await tempDir("gamma host file"), "held");
    cpSync(join(dist, applied[0] as string), hostFile);
    mount(["--bind", hostFile], join(dist, applied[0] as string));
    await rm(join(root, "skills/glossary"), { recursive: true });
    const blocked = await build({ root, persistentCache: false });
    expect(blocked.ok).toBe(false);
    expect(blocked.diagnostics.map((diagnostic) => [diagnostic.ruleId, diagnostic.file])).toEqual([["dist/write-failed", `dist/${JOURNAL_FILE}`]]);
    expect(blocked.diagnostics[0]?.message).toContain("the output folder stays marked as interrupted, which check and the runtime refuse");
    const run = cliBuild(root);
    expect(run.status).toBe(2);
    expect(run.stderr).not.toContain("internal error");
    expect((await check({ root })).diagnostics.map((d) => d.ruleId)).toEqual(["dist/interrupted-build"]);
    unmount(join(dist, applied[0] as string));
    const recovered = await build({ root, persistentCache: false });
    expect(recovered.recovery).toBe("rolled-back");
    expect(await snapshotTree(dist)).toEqual(first);
    expect(leftovers(root)).toEqual([]);
  }, 120_000);

  it("names the cause when a folder inside dist/ is another mount, and leaves dist/ as it was", async () => {
    const root = await copyProject("basic");
    expect(cliBuild(root).status).toBe(0);
    const dist = join(root, "dist");
    const first = await snapshotTree(dist);
    // dist/skills/ becomes a bind mount holding the same files.
    const volume = join(await tempDir("gamma volume"), "volume");
    cpSync(join(dist, "skills"), volume, { recursive: true });
    mount(["--bind", volume], join(dist, "skills"));
    await changeSources(root);
    const run = cliBuild(root);
    expect(run.status).toBe(2);
    expect(`${run.stdout}${run.stderr}`).toContain(
      "Unexpected move across file systems (EXDEV): a folder on this file's path inside the output folder is on a different file system from the output folder (a mount point inside it), expected the output folder and everything in it on one file system (mount the output folder itself, not a folder inside it); the output folder was left as it was",
    );
    expect(`${run.stdout}${run.stderr}`).not.toContain("expected a writable output folder");
    expect(await snapshotTree(dist)).toEqual(first);
    expect(leftovers(root)).toEqual([]);
    unmount(join(dist, "skills"));
  }, 120_000);
});
