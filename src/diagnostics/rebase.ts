import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { Diagnostic } from "./diagnostic.js";
import { isInside } from "../protocol/within.js";

/**
 * Diagnostics name files relative to the project root; what a user reads
 * must be relative to the working folder, whatever `--root` is (for what
 * GitHub annotates, see {@link relativeForFormat}). Paths that would leave the working folder
 * stay `../`-relative; nothing absolute is printed.
 */
export function relativeToWorkingFolder(diagnostics: readonly Diagnostic[], root: string, cwd: string = process.cwd()): Diagnostic[] {
  if (resolve(cwd, root) === resolve(cwd)) return [...diagnostics];
  const rebase = workingFolderPath(root, cwd);
  return diagnostics.map((diagnostic) => {
    const moved: Diagnostic = { ...diagnostic, file: rebase(diagnostic.file) };
    if (diagnostic.related) moved.related = { ...diagnostic.related, file: rebase(diagnostic.related.file) };
    return moved;
  });
}

/** Turns a root-relative path into one relative to the working folder (the same rule as for diagnostics). */
export function workingFolderPath(root: string, cwd: string = process.cwd()): (file: string) => string {
  const base = resolve(cwd, root);
  const rebased = new Map<string, string>();
  return (file: string): string => {
    let result = rebased.get(file);
    if (result === undefined) {
      const rel = relative(cwd, resolve(base, file));
      result = isAbsolute(rel) ? file : rel.split(sep).join("/");
      rebased.set(file, result);
    }
    return result;
  };
}

/**
 * The findings as `--format github` and `sarif` name their files. GitHub
 * resolves an annotation's file, and a code-scanning result's URI, from the
 * repository's root (the workspace, GITHUB_WORKSPACE in Actions), not from
 * the folder the step ran in: a workspace script (`npm run -w`, `pnpm
 * --filter`) or a step's `working-directory:` runs in a package's folder.
 * So, when GITHUB_WORKSPACE is set and a file is inside it, its path is
 * relative to the workspace; otherwise, and for every other format, relative
 * to the working folder as {@link relativeToWorkingFolder} gives it.
 */
export function relativeForFormat(format: string, diagnostics: readonly Diagnostic[], root: string, cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): Diagnostic[] {
  const workspace = format === "github" || format === "sarif" ? workspaceRoot(env) : undefined;
  if (workspace === undefined) return relativeToWorkingFolder(diagnostics, root, cwd);
  const fromHere = workingFolderPath(root, cwd);
  const base = resolve(cwd, root);
  const place = (file: string): string => {
    const target = resolve(base, file);
    return isInside(workspace, target) ? relative(workspace, target).split(sep).join("/") : fromHere(file);
  };
  return diagnostics.map((diagnostic) => {
    const moved: Diagnostic = { ...diagnostic, file: place(diagnostic.file) };
    if (diagnostic.related) moved.related = { ...diagnostic.related, file: place(diagnostic.related.file) };
    return moved;
  });
}

/** GITHUB_WORKSPACE as the working folder spells it (the real path, as process.cwd() gives it); undefined when unset or not absolute. */
function workspaceRoot(env: NodeJS.ProcessEnv): string | undefined {
  const given = env["GITHUB_WORKSPACE"];
  if (given === undefined || given === "" || !isAbsolute(given)) return undefined;
  try {
    return realpathSync(given);
  } catch {
    return resolve(given);
  }
}
