import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import type { FixedSkillFile } from "./fix-skills.js";
import { FileChangedError, replaceFileAtomically } from "./replace-file.js";

/**
 * A fixed file the file system refuses (a read-only folder, no permission to
 * create the temporary file beside it): a usage problem named by its file,
 * not a crash. The files written before it keep their fixes, and the message says which.
 */
export class FixWriteError extends Error {
  override readonly name = "FixWriteError";
  constructor(
    /** Root-relative path of the file that could not be written. */
    readonly file: string,
    /** The file system's error code (EACCES, EROFS). */
    readonly code: string,
    /** Root-relative paths of the files written before it, with their fixes. */
    readonly written: readonly string[],
  ) {
    super("");
    this.message = this.describe();
  }

  /**
   * The one-line message, with paths shown by `show` (the CLI's are relative
   * to the working folder) and the error code explained by `explain` when given.
   */
  describe(show: (file: string) => string = (file) => file, explain?: (code: string) => string): string {
    const before = this.written.length === 0 ? "nothing was written" : `the fixes to ${this.written.map(show).join(", ")} were written`;
    return `cannot write the fixes to ${show(this.file)}: ${explain ? `${explain(this.code)} (${this.code})` : this.code}; ${before}`;
  }
}

/**
 * Writes each fixed file whole, in order; a file its user may not write
 * stops the run before any is written, and the first that cannot be written
 * stops it with a {@link FixWriteError}. A file that no longer holds the
 * bytes its fixes were computed from (saved by an editor, checked out, moved
 * while lint ran) is left as it is, never overwritten: returns those files.
 */
export function writeFixedFiles(root: string, fixedFiles: readonly FixedSkillFile[]): string[] {
  const written: string[] = [];
  const changed: string[] = [];
  // The new file is renamed over the old, which the folder's permissions allow even for a file its user may not
  // write (mode 0444): a file that refuses writing is refused as an editor refuses it, before any is written.
  for (const fixed of fixedFiles) {
    try {
      accessSync(join(root, fixed.file), constants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      // A file gone meanwhile is told as changed, below.
      if (typeof code === "string" && code !== "ENOENT") throw new FixWriteError(fixed.file, code, written);
    }
  }
  for (const fixed of fixedFiles) {
    try {
      replaceFileAtomically(join(root, fixed.file), Buffer.from(fixed.after, "utf8"), Buffer.from(fixed.before, "utf8"));
    } catch (error) {
      if (error instanceof FileChangedError) {
        changed.push(fixed.file);
        continue;
      }
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      if (typeof code !== "string") throw error;
      throw new FixWriteError(fixed.file, code, written);
    }
    written.push(fixed.file);
  }
  return changed;
}
