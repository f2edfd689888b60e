import { closeSync, fchmodSync, fsyncSync, lstatSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Replaces a file's content all at once: the new bytes go to a temporary
 * file beside it (same folder, so the rename is atomic), flushed, given the
 * old file's permissions, and renamed over it. A reader sees the old file or
 * the new one, never half of either; a failure leaves the old file as it was.
 */
export function replaceFileAtomically(path: string, content: Uint8Array): void {
  const mode = lstatSync(path).mode & 0o7777;
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  let descriptor: number | undefined = openSync(temp, "wx", mode);
  try {
    // The mode given to open is narrowed by the umask; the file keeps exactly the permissions it had.
    fchmodSync(descriptor, mode);
    for (let written = 0; written < content.length; ) written += writeSync(descriptor, content, written);
    fsyncSync(descriptor);
    closeSync(descriptor);
    descriptor = undefined;
    renameSync(temp, path);
  } catch (error) {
    if (descriptor !== undefined) closeSync(descriptor);
    rmSync(temp, { force: true });
    throw error;
  }
}
