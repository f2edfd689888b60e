import { spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
export const fixturesDir = join(repoRoot, "test/fixtures/build");
export const cliPath = join(repoRoot, "lib/cli/index.js");
export const updateGolden = process.env["UPDATE_GOLDEN"] === "1";

const created: string[] = [];

/** A fresh temporary folder; `name` may contain spaces on purpose. */
export async function tempDir(name = "gamma prompt build"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `${name.replace(/\s/g, " ")}-`));
  created.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Copies the sources of a fixture project (not its expected output) into a new temp root. */
export async function copyProject(fixture: string, into?: string): Promise<string> {
  const root = into ?? join(await tempDir(), "project root");
  await mkdir(root, { recursive: true });
  for (const part of ["skills", "prompts", "schemas", "knowledge", "gamma-prompt.config.json"]) {
    await cp(join(fixturesDir, fixture, part), join(root, part), { recursive: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }
  return root;
}

/** The basic project with a case folder's files laid over it (every file but expected.json). */
export async function projectWithOverlay(caseDir: string): Promise<string> {
  const root = await copyProject("basic");
  const files = await listFiles(caseDir);
  for (const file of files) {
    if (file === "expected.json") continue;
    await mkdir(dirname(join(root, file)), { recursive: true });
    await writeFile(join(root, file), await readFile(join(caseDir, file)));
  }
  return root;
}

/** Every file under `dir` as a sorted list of POSIX paths. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .sort();
}

/** Path → bytes (as base64 so equality is byte equality) for every file under `dir`. */
export async function snapshotTree(dir: string): Promise<Record<string, string>> {
  const snapshot: Record<string, string> = {};
  for (const file of await listFiles(dir)) snapshot[file] = (await readFile(join(dir, file))).toString("base64");
  return snapshot;
}

/** Runs the compiled CLI in a child process, as a user or CI would. */
export function spawnCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env },
    encoding: "utf8",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
