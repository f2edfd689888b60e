import { moduleRoot } from "../../package-paths.js";
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { mkdir, readdir, rename, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { readRegularFile, statIfPossible } from "../../protocol/regular-file.js";
import { packageVersion } from "../../version.js";
import { findSkillFolders, SKILL_FILE } from "../discover/discover.js";
import { readSkillLayout, type UnreadableFolder } from "../discover/skill-folders.js";
import { listProjectSourcePaths } from "../discover/project-sources.js";
import { listSupportingEntries, walkSupportingFolder, type SupportingWalk } from "../discover/supporting-files.js";
import { sha256Hex } from "../discover/read-source.js";
import type { Existence } from "../discover/path-probes.js";

/**
 * The persistent cache behind a fast no-change build. Its key hashes every
 * source byte, the source listing, the output folder and the compiler
 * itself; an entry records the artifact hashes that key produced. A hit is
 * only trusted after dist/ is read back and every file matches, so the cache
 * can make a build faster but never make it wrong.
 */

/** v2: entries record the lookups of paths outside the sources that their findings depend on. */
export const CACHE_FORMAT = "gamma-prompt/build-cache/v2";
export const CACHE_DIR = "node_modules/.cache/gamma-prompt";

export interface PersistedBuild {
  format: typeof CACHE_FORMAT;
  key: string;
  artifacts: Record<string, { sha256: string; bytes: number }>;
  diagnostics: Diagnostic[];
  /** Paths outside the sources the findings depend on (link targets, plugins) and what each lookup found: a hit needs each to find the same again. */
  probes: Array<[string, Existence]>;
}

/**
 * Where a project's cache entry for one output folder is kept. In the
 * project root's `node_modules/.cache/gamma-prompt/` when the root is a
 * package (it holds a package.json, or already a node_modules). An agent
 * folder inside a package (`packages/agent-c/agent/`, with no package.json
 * of its own) would become one to npm, which takes the nearest folder with a
 * package.json or a node_modules as the package's root: there the entry goes
 * to the `node_modules/.cache/gamma-prompt/` of the nearest folder above with
 * a package.json (up to the repository's top, the folder holding `.git`),
 * keyed by the project's path relative to it too. With none, in the root.
 */
export function cacheFile(root: string, outDirRelative: string): string {
  const project = resolve(root);
  if (isPackageRoot(project)) return join(project, CACHE_DIR, `build-${sha256Hex(outDirRelative).slice(0, 16)}.json`);
  const owner = enclosingPackage(project);
  if (owner === undefined) return join(project, CACHE_DIR, `build-${sha256Hex(outDirRelative).slice(0, 16)}.json`);
  // "\0" keeps apart a project "agent" building to "dist" and the package's own project building to "agent/dist".
  const from = relative(owner, project).split(sep).join("/");
  return join(owner, CACHE_DIR, `build-${sha256Hex(`${from}\0${outDirRelative}`).slice(0, 16)}.json`);
}

function isPackageRoot(folder: string): boolean {
  return statIfPossible(join(folder, "package.json"))?.isFile() === true || statIfPossible(join(folder, "node_modules"))?.isDirectory() === true;
}

/** The nearest folder above `folder` with a package.json, not past the repository's top; undefined when there is none. */
function enclosingPackage(folder: string): string | undefined {
  for (let current = folder; ; ) {
    if (statIfPossible(join(current, ".git")) !== undefined) return undefined;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
    if (statIfPossible(join(current, "package.json"))?.isFile() === true) return current;
  }
}

export interface InputKey {
  /** Hash of every source byte, the listing, the output folder and the compiler. */
  key: string;
  /** Hash of every source's size and modification time, to notice edits made while a build runs. */
  stamp: string;
  /** Hash of every source byte and the listing alone: the build's snapshot of its sources (see sourceSnapshot). */
  content: string;
  /** The root-relative paths listed: stamping them again tells whether any was touched since. */
  paths: readonly string[];
  /**
   * Each skill folder's walk that the listing was made from, by root-relative folder: a build whose sources
   * this key snapshots lints from these walks instead of listing every folder again (the snapshot taken after
   * the compile still lists them afresh, so a file added meanwhile makes the build start over).
   */
  walks: ReadonlyMap<string, SupportingWalk>;
}

/** Undefined when the project cannot be listed (the full build reports why). */
export async function computeInputKey(root: string, outDirRelative: string): Promise<InputKey | undefined> {
  const listing = await listInputs(root, outDirRelative);
  if (!listing) return undefined;
  const compiler = await compilerFingerprint();
  // Without a fingerprint a cached entry could belong to another compiler: build without the cache.
  if (compiler === undefined) return undefined;
  const content = contentDigest(root, listing);
  const key = sha256Hex(`${CACHE_FORMAT}\n${packageVersion}\n${compiler}\n${outDirRelative}\n${content}`);
  return { key, stamp: stampSources(root, listing.paths), content, paths: listing.paths, walks: listing.walks };
}

/**
 * A fingerprint of every source as it is now: "content" hashes every byte,
 * "stamp" only sizes and modification times (cheap enough for every watch
 * rebuild). A build takes one before it reads its sources and compares it
 * with a fresh one just before it writes dist/.
 */
export async function sourceSnapshot(root: string, mode: "content" | "stamp", outDirRelative: string): Promise<string | undefined> {
  const listing = await listInputs(root, outDirRelative);
  if (!listing) return undefined;
  return mode === "content" ? contentDigest(root, listing) : stampSources(root, listing.paths);
}

function contentDigest(root: string, listing: InputListing): string {
  const hash = createHash("sha256");
  /** Each skill folder's names, listed once, and only when one of its files is missing (a folder of 20,000 files is listed once, not 20,000 times). */
  const names = new Map<string, string>();
  const folderNames = (folder: string): string => {
    let listed = names.get(folder);
    if (listed === undefined) names.set(folder, (listed = listNames(join(root, folder))));
    return listed;
  };
  // Synchronous reads: for a thousand small files they beat fs/promises several times over.
  for (const path of listing.paths) {
    if (listing.special.has(path)) {
      // A link or a FIFO beside SKILL.md: never read (it could block); its presence is what the build reports.
      hash.update(`\n${path}\n-special`);
      continue;
    }
    // A folder without SKILL.md (its listing decides what lint reports) or a FIFO (never read) hashes as absent.
    const read = readRegularFile(join(root, path));
    if (read.kind === "file") hash.update(`\n${path}\n${sha256Hex(read.bytes)}`);
    else hash.update(`\n${path}\n-${listing.inSkillFolders.has(path) ? folderNames(dirname(path)) : ""}`);
  }
  return hash.digest("hex");
}

/** Every source path, in order; which of them lie in skill folders; which are links or special files; each skill folder's walk. */
interface InputListing {
  paths: string[];
  inSkillFolders: Set<string>;
  special: Set<string>;
  walks: Map<string, SupportingWalk>;
}

async function listInputs(root: string, outDirRelative: string): Promise<InputListing | undefined> {
  let folders: string[];
  const unlisted: UnreadableFolder[] = [];
  try {
    // Where the config's `skills` and `ignore` say, as lint and the build look.
    folders = findSkillFolders(root, { ...readSkillLayout(root), outDir: outDirRelative }, unlisted);
  } catch {
    return undefined;
  }
  // A folder that cannot be listed is a finding of the full run, never an empty listing to key a cache by.
  if (unlisted.length > 0) return undefined;
  const paths: string[] = [];
  const special = new Set<string>();
  const walks = new Map<string, SupportingWalk>();
  for (const folder of folders) {
    paths.push(`${folder}/${SKILL_FILE}`);
    const walked = walkSupportingFolder(root, folder);
    walks.set(folder, walked);
    for (const entry of listSupportingEntries(root, folder, walked)) {
      paths.push(entry.path);
      if (!entry.regular) special.add(entry.path);
    }
  }
  // What the source folders hold and the build does not read is a finding of the build: the key covers it too.
  const ignored: string[] = [];
  const sourcePaths = await listProjectSourcePaths(root, unlisted, ignored);
  if (unlisted.length > 0) return undefined;
  return { paths: [...paths, ...sourcePaths, ...ignored], inSkillFolders: new Set(paths), special, walks };
}

/** Sizes and modification times of exactly these root-relative paths (a missing one stamps as absent). */
export function stampSources(root: string, paths: readonly string[]): string {
  const stamps = paths.map((path) => {
    const info = statIfPossible(join(root, path));
    return [path, info?.size ?? -1, info?.mtimeMs ?? -1];
  });
  return sha256Hex(JSON.stringify(stamps));
}

function listNames(dir: string): string {
  try {
    return readdirSync(dir).sort().join("/");
  } catch {
    return "";
  }
}

export async function readPersistedBuild(file: string): Promise<PersistedBuild | undefined> {
  try {
    const read = readRegularFile(file);
    if (read.kind !== "file") return undefined;
    const parsed = JSON.parse(read.bytes.toString("utf8")) as PersistedBuild;
    return parsed.format === CACHE_FORMAT && Array.isArray(parsed.probes) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export async function writePersistedBuild(file: string, entry: PersistedBuild): Promise<void> {
  try {
    await mkdir(dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify(entry));
    await rename(temp, file);
  } catch {
    // A cache that cannot be written only costs speed.
  }
}

let fingerprint: Promise<string | undefined> | undefined;

/**
 * Size and mtime of every compiled module plus the versions of the template
 * engine and tokenizer and the Unicode version of Node's ICU: a changed
 * compiler never reuses an old entry. The tokenizer splits text by Unicode
 * letter and number classes, which V8 takes from ICU, so a letter new in a
 * later Unicode version counts differently under an older Node.
 */
function compilerFingerprint(): Promise<string | undefined> {
  fingerprint ??= (async () => {
    const libRoot = fileURLToPath(moduleRoot);
    const entries = await readdir(libRoot, { recursive: true, withFileTypes: true });
    // The runtime and watch modules never shape artifacts.
    const files = entries
      .filter((entry) => entry.isFile() && /\.(js|ts)$/.test(entry.name))
      .map((entry) => join(entry.parentPath, entry.name))
      .filter((file) => !/[\\/](runtime|watch)[\\/]/.test(file.slice(libRoot.length - 1)))
      .sort();
    const stats = await Promise.all(files.map((file) => stat(file)));
    const require = createRequire(import.meta.url);
    const versions = ["handlebars/package.json", "gpt-tokenizer/package.json"].map((name) => (require(name) as { version: string }).version);
    return sha256Hex(JSON.stringify([versions, process.versions.unicode ?? "", files.map((file, index) => [file.slice(libRoot.length), stats[index]?.size, stats[index]?.mtimeMs])]));
  })().catch(() => undefined); // e.g. a module vanished while lib/ was being recompiled
  return fingerprint;
}
