import { createHash } from "node:crypto";
import { rename, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { copyParts, readTree, tempDir } from "../helpers/temp-project.js";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** The embedded default's sources, the project every watch test starts from. */
const PROJECT_SOURCES = ["skills", "prompts", join("schemas", "tools"), join("schemas", "namespaces")];

/** Copies the embedded default's sources into a fresh temp folder (whose name has a space, on purpose). */
export async function copyProject(from = repoRoot): Promise<string> {
  return copyParts(from, PROJECT_SOURCES, await tempDir("gamma watch"));
}

export { readTree, removeTempDirs as removeTempProjects } from "../helpers/temp-project.js";

/**
 * Asserts dist/ is exactly what its manifest describes: no temp file, no
 * orphan, no artifact whose bytes disagree with the recorded hash.
 */
export async function distProblems(distDir: string): Promise<string[]> {
  const tree = await readTree(distDir);
  const manifestBytes = tree.get("manifest.json");
  if (!manifestBytes) return ["manifest.json is missing"];
  const manifest = JSON.parse(manifestBytes.toString("utf8")) as { artifacts: Record<string, { sha256: string; bytes: number }> };
  const problems: string[] = [];
  for (const [path, bytes] of tree) {
    if (path === "manifest.json") continue;
    const entry = manifest.artifacts[path];
    if (!entry) problems.push(`${path} is not in the manifest`);
    else if (createHash("sha256").update(bytes).digest("hex") !== entry.sha256) problems.push(`${path} does not match its sha256`);
  }
  for (const path of Object.keys(manifest.artifacts)) if (!tree.has(path)) problems.push(`${path} is missing`);
  return problems;
}

/**
 * Polls `condition` until it holds. Nothing here depends on how fast the
 * machine is: the only bound is a hang guard just under vitest's 30 s test
 * timeout, so a failure names what it waited for.
 */
export async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 25_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Replaces the `description:` line of a SKILL.md's frontmatter. */
export function withDescription(skillText: string, description: string): string {
  return skillText.replace(/^description:.*$/m, `description: ${description}`);
}

/**
 * Saves `text` over `path` the way most editors do: a temp file (a dotfile, so
 * watch ignores it) renamed over the original. The watcher sees one change,
 * and a build never reads the file half-written: an in-place write truncates
 * first, and a machine under load can let a build in between.
 */
export async function saveAtomically(path: string, text: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.saving`);
  await writeFile(temp, text);
  await rename(temp, path);
}
