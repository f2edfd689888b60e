/**
 * Temporary folders and project copies for every test: one list of what was
 * created, one way to copy a project's parts, one way to read a tree back.
 */
import { mkdtempSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";

const created: string[] = [];

/** A fresh temporary folder; `name` may contain spaces on purpose. */
export async function tempDir(name = "gamma prompt build"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `${name}-`));
  created.push(dir);
  return dir;
}

/** The same, for callers that cannot wait. */
export function tempDirSync(name = "gamma-runtime"): string {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  created.push(dir);
  return dir;
}

/** Removes every folder made by `tempDir`/`tempDirSync` so far. */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Copies the named parts (folders or files) of a project into `into`; a part the project lacks is skipped. */
export async function copyParts(from: string, parts: readonly string[], into: string): Promise<string> {
  await mkdir(into, { recursive: true });
  for (const part of parts) {
    await cp(join(from, part), join(into, part), { recursive: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }
  return into;
}

/** Every file under `dir` as a sorted list of POSIX paths. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .sort();
}

/** Every file under `dir`, by POSIX path relative to it, with its bytes. */
export async function readTree(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const file of await listFiles(dir)) files.set(file, await readFile(join(dir, file)));
  return files;
}

/** Path → bytes (as base64 so equality is byte equality) for every file under `dir`. */
export async function snapshotTree(dir: string): Promise<Record<string, string>> {
  const snapshot: Record<string, string> = {};
  for (const [file, bytes] of await readTree(dir)) snapshot[file] = bytes.toString("base64");
  return snapshot;
}
