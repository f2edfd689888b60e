import { isAbsolute, relative, resolve, sep } from "node:path";
import type { Diagnostic } from "./diagnostic.js";

/**
 * Diagnostics name files relative to the project root; what a user reads or
 * CI annotates must be relative to the working folder (the repository root
 * in CI), whatever `--root` is. Paths that would leave the working folder
 * stay `../`-relative; nothing absolute is printed.
 */
export function relativeToWorkingFolder(diagnostics: readonly Diagnostic[], root: string, cwd: string = process.cwd()): Diagnostic[] {
  const base = resolve(cwd, root);
  if (base === resolve(cwd)) return [...diagnostics];
  const rebased = new Map<string, string>();
  const rebase = (file: string): string => {
    let result = rebased.get(file);
    if (result === undefined) {
      const rel = relative(cwd, resolve(base, file));
      result = isAbsolute(rel) ? file : rel.split(sep).join("/");
      rebased.set(file, result);
    }
    return result;
  };
  return diagnostics.map((diagnostic) => {
    const moved: Diagnostic = { ...diagnostic, file: rebase(diagnostic.file) };
    if (diagnostic.related) moved.related = { ...diagnostic.related, file: rebase(diagnostic.related.file) };
    return moved;
  });
}
