import { isWithin, relativePosix } from "../pipeline/discover/relative-paths.js";
import { CONFIG_FILE } from "../pipeline/discover/source-paths.js";

/** The sources a build reads, relative to the project root. Everything else is ignored. */
export const WATCHED_FOLDERS = ["skills", "prompts", "schemas", "knowledge"] as const;

/** Root-relative POSIX form of an absolute path, or undefined when it lies outside the root. */
export function toRootRelative(root: string, absolutePath: string): string | undefined {
  return isWithin(root, absolutePath) ? relativePosix(root, absolutePath) : undefined;
}

/**
 * Decides whether a root-relative path is outside what a build reads.
 * Directories on the way to a watched folder (the root itself) must pass, or
 * the watcher would never descend. Editor scratch files are ignored so a
 * save does not trigger one build for the temp file and another for the rename.
 */
export function isIgnoredSource(relPath: string, outDir: string | undefined): boolean {
  if (relPath === "") return false;
  const segments = relPath.split("/");
  const top = segments[0] ?? "";
  if (relPath === CONFIG_FILE) return false;
  if (!(WATCHED_FOLDERS as readonly string[]).includes(top)) return true;
  if (outDir !== undefined && (relPath === outDir || relPath.startsWith(`${outDir}/`))) return true;
  return segments.some(isScratchName);
}

function isScratchName(name: string): boolean {
  return (
    name.startsWith(".") || // dotfiles, emacs `.#lock`, vim `.swp`, our own `.gamma-prompt-tmp-*`
    name === "node_modules" ||
    name === "4913" || // vim's probe file when checking a folder is writable
    name.endsWith("~") ||
    /\.sw[a-z]$/.test(name) || // vim swap files: .swp, .swo, ...
    (name.startsWith("#") && name.endsWith("#")) // emacs auto-save
  );
}
