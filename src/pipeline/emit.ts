import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, rmdir, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { MANIFEST_FILE } from "../protocol/manifest.js";
import { errorCode, isNotFound } from "./sources.js";

/**
 * Writes dist/ as one transaction. New bytes go to a temporary folder next to
 * dist/ (same filesystem, so renames are atomic), originals are moved aside
 * rather than overwritten, and the manifest is placed last. Any failure puts
 * every original back and removes the temporary folder: dist/ ends either
 * fully updated or byte-for-byte as it was. Unchanged files are not touched.
 */

export interface EmitResult {
  written: string[];
  removed: string[];
  unchanged: string[];
}

export class EmitError extends Error {
  override readonly name = "EmitError";
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

export async function emitArtifacts(outDir: string, artifacts: ReadonlyMap<string, string>): Promise<EmitResult> {
  const existing = await listTree(outDir);
  const paths = [...artifacts.keys()].sort();
  const changed: string[] = [];
  const unchanged: string[] = [];
  await Promise.all(
    paths.map(async (path) => {
      const current = existing.has(path) ? await readFile(join(outDir, path)).catch(() => undefined) : undefined;
      if (current !== undefined && current.equals(Buffer.from(artifacts.get(path) as string))) unchanged.push(path);
      else changed.push(path);
    }),
  );
  const orphans = [...existing].filter((path) => !artifacts.has(path)).sort();
  changed.sort();
  unchanged.sort();
  if (changed.length === 0 && orphans.length === 0) return { written: [], removed: [], unchanged };

  const staging = join(dirname(outDir), `.gamma-prompt-tmp-${basename(outDir)}-${process.pid}-${randomBytes(4).toString("hex")}`);
  const undo: Array<() => Promise<void>> = [];
  let current = "";
  try {
    for (const path of changed) {
      current = path;
      await mkdir(dirname(join(staging, "new", path)), { recursive: true });
      await writeFile(join(staging, "new", path), artifacts.get(path) as string);
    }
    for (const path of orphans) {
      current = path;
      await moveAside(outDir, staging, path, existing, undo);
    }
    await removeEmptyFolders(outDir, orphans);
    // The manifest is the commit point: it names only files already in place.
    const ordered = [...changed.filter((path) => path !== MANIFEST_FILE), ...changed.filter((path) => path === MANIFEST_FILE)];
    for (const path of ordered) {
      current = path;
      await moveAside(outDir, staging, path, existing, undo);
      const target = join(outDir, path);
      await mkdir(dirname(target), { recursive: true });
      await rename(join(staging, "new", path), target);
      undo.push(() => rm(target, { force: true }));
    }
  } catch (error) {
    for (const step of undo.reverse()) await step().catch(() => undefined);
    await rm(staging, { recursive: true, force: true });
    await removeEmptyFolders(outDir, changed).catch(() => undefined);
    throw new EmitError(`Unexpected failure writing this file (${errorCode(error)}), expected a writable output folder; dist/ was left as it was`, current);
  }
  await rm(staging, { recursive: true, force: true });
  return { written: changed, removed: orphans, unchanged };
}

/** Moves an existing file into the staging folder, recording how to put it back. */
async function moveAside(outDir: string, staging: string, path: string, existing: ReadonlySet<string>, undo: Array<() => Promise<void>>): Promise<void> {
  if (!existing.has(path)) return;
  const original = join(outDir, path);
  const aside = join(staging, "old", path);
  await mkdir(dirname(aside), { recursive: true });
  await rename(original, aside);
  undo.push(async () => {
    await mkdir(dirname(original), { recursive: true });
    await rename(aside, original);
  });
}

/** Every file under `dir` as a POSIX path relative to it; empty when `dir` does not exist. */
export async function listTree(dir: string): Promise<Set<string>> {
  const found = new Set<string>();
  const walk = async (relDir: string): Promise<void> => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(join(dir, relDir), { withFileTypes: true });
    } catch (error) {
      if (relDir === "" && (isNotFound(error) || errorCode(error) === "ENOTDIR")) return;
      throw error;
    }
    for (const entry of entries) {
      const rel = relDir === "" ? entry.name : `${relDir}/${entry.name}`;
      if (entry.isDirectory()) await walk(rel);
      else found.add(rel);
    }
  };
  await walk("");
  return found;
}

/** Removes folders the removed files leave empty, deepest first; never dist/ itself. */
async function removeEmptyFolders(outDir: string, removedFiles: readonly string[]): Promise<void> {
  const folders = new Set<string>();
  for (const path of removedFiles) {
    for (let folder = dirname(path); folder !== "." && folder !== ""; folder = dirname(folder)) folders.add(folder);
  }
  const deepestFirst = [...folders].sort((a, b) => b.split("/").length - a.split("/").length || (a < b ? 1 : -1));
  for (const folder of deepestFirst) {
    await rmdir(join(outDir, folder)).catch(() => undefined);
  }
}
