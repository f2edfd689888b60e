import { relativePosix } from "../pipeline/discover/relative-paths.js";
import { isWithin } from "../protocol/within.js";
import type { SkillLayout } from "../pipeline/discover/skill-folders.js";
import { CONFIG_FILE } from "../pipeline/discover/source-paths.js";
import { isByproductFile, isByproductFolder } from "../pipeline/discover/byproduct-names.js";

/** The sources a build reads, relative to the project root, besides the skill layout's folders. Everything else is ignored. */
export const WATCHED_FOLDERS = ["skills", "prompts", "schemas", "knowledge"] as const;

/**
 * The top-level folders the skill layout (the config's `skills`) reads from,
 * besides the fixed ones: `plugins` for `plugins/*\/skills/*`. A pattern that
 * starts with a glob (`*\/skills/*`, `**`) can match under any folder: then
 * every folder is watched ("any").
 */
export function layoutTopFolders(layout: SkillLayout): string[] | "any" {
  const tops = new Set<string>();
  for (const pattern of layout.skills) {
    const first = pattern.replace(/\\/g, "/").replace(/^\.\//, "").split("/")[0] ?? "";
    if (first === "" || /[*?[]/.test(first)) return "any";
    tops.add(first);
  }
  return [...tops].sort();
}

/** Root-relative POSIX form of an absolute path, or undefined when it lies outside the root. */
export function toRootRelative(root: string, absolutePath: string): string | undefined {
  return isWithin(root, absolutePath) ? relativePosix(root, absolutePath) : undefined;
}

/**
 * Decides whether a root-relative path is outside what a build reads
 * (`layoutTops` from {@link layoutTopFolders}; "any" watches every folder).
 * Directories on the way to a watched folder (the root itself) must pass, or
 * the watcher would never descend. Editor scratch files are ignored so a
 * save does not trigger one build for the temp file and another for the rename.
 */
export function isIgnoredSource(relPath: string, outDir: string | undefined, layoutTops: readonly string[] | "any" = [], kind: PathKind = "file"): boolean {
  if (relPath === "") return false;
  const segments = relPath.split("/");
  const top = segments[0] ?? "";
  if (relPath === CONFIG_FILE) return false;
  if (layoutTops !== "any" && !(WATCHED_FOLDERS as readonly string[]).includes(top) && !layoutTops.includes(top)) return true;
  if (outDir !== undefined && (relPath === outDir || relPath.startsWith(`${outDir}/`))) return true;
  return segments.some((name, index) => isNeverSource(name, index === segments.length - 1 ? kind : "folder"));
}

/**
 * What the last segment of a path names, as far as the caller knows: the
 * names of editor scratch files (`sedXXXXXX`, `4913`, `*.orig`) are ignored
 * only for a file, since a folder may be named so (`skills/sedan2024/`), and
 * the watcher asks first without knowing.
 */
export type PathKind = "file" | "folder" | "unknown";

/**
 * A path segment no build reads: a dotfile or dot-folder (vim's swap file,
 * emacs' lock, our own `.gamma-prompt-tmp-*`), or a byproduct by the list the
 * build itself skips: the folder list for any segment, the file list for a
 * file's own name.
 */
function isNeverSource(name: string, kind: PathKind): boolean {
  if (name.startsWith(".") || isByproductFolder(name)) return true;
  return kind === "file" && isByproductFile(name);
}
