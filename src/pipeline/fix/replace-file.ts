import { closeSync, fchmodSync, fsyncSync, lstatSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { removeLeftoverFiles } from "../../protocol/leftover-files.js";

/** Temporary files are named `.<name>.<pid>.<base-36 time>.tmp`, beside the file they replace. */
const TEMP_PREFIX = ".";
const TEMP_SUFFIX = ".tmp";
const TEMP_NAME = /^\.(.+)\.(\d+)\.[0-9a-z]+\.tmp$/;
/** A temporary file older than this is a leftover even when its pid runs again (pids are reused); as for build's staging folders. */
const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Removes the temporary files a write killed before its rename left in
 * `folder` (`.<name>.<pid>.<time>.tmp`, beside the file `<name>`, which is
 * still there): those of a process that is gone, and any older than an hour.
 * Never one of this process. Returns the names removed, sorted.
 */
export function removeStaleTempFiles(folder: string, now = Date.now()): string[] {
  return removeLeftoverFiles(
    folder,
    (name, names) => {
      const match = TEMP_NAME.exec(name);
      // Only beside the file it was to replace: a name of the same shape with no such file is someone else's.
      return match && names.includes(match[1] as string) ? Number(match[2]) : undefined;
    },
    STALE_TEMP_MS,
    now,
  );
}

/**
 * The file no longer holds the bytes its new content was computed from
 * (another program wrote, moved or removed it meanwhile): it was left as it is.
 */
export class FileChangedError extends Error {
  override readonly name = "FileChangedError";
  constructor(readonly path: string) {
    super(`${path} changed while its new content was being computed; it was left as it is`);
  }
}

/**
 * Replaces a file's content all at once: the new bytes go to a temporary
 * file beside it (same folder, so the rename is atomic), flushed, given the
 * old file's permissions, and renamed over it. A reader sees the old file or
 * the new one, never half of either; a failure leaves the old file as it was.
 * With `expected` (the bytes the new content was computed from), the file is
 * compared with them right before the rename and, when another program
 * changed it meanwhile, left as it is with a {@link FileChangedError}: a
 * change saved while the new content was computed is never overwritten.
 */
export function replaceFileAtomically(path: string, content: Uint8Array, expected?: Uint8Array): void {
  writeFileWhole(path, content, lstatSync(path).mode & 0o7777, expected);
}

/** Whether `path` is still a plain file (not a link) holding exactly `expected`. */
function stillHolds(path: string, expected: Uint8Array): boolean {
  try {
    if (!lstatSync(path).isFile()) return false;
    return Buffer.from(readFileSync(path)).equals(Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength));
  } catch {
    return false;
  }
}

/**
 * Writes a file all at once, whether or not it exists: as
 * {@link replaceFileAtomically}, with the old file's permissions when there is
 * one (`mode`), else a new file's usual permissions, and left as it is when it
 * no longer holds `expected` (when given). A failure leaves the old
 * file, or no file, and no temporary file.
 */
export function writeFileWhole(path: string, content: Uint8Array, mode?: number, expected?: Uint8Array): void {
  const temp = join(dirname(path), `${TEMP_PREFIX}${basename(path)}.${process.pid}.${Date.now().toString(36)}${TEMP_SUFFIX}`);
  let descriptor: number | undefined = openSync(temp, "wx", mode ?? 0o666);
  try {
    // The mode given to open is narrowed by the umask; the file keeps exactly the permissions it had.
    if (mode !== undefined) fchmodSync(descriptor, mode);
    for (let written = 0; written < content.length; ) written += writeSync(descriptor, content, written);
    fsyncSync(descriptor);
    closeSync(descriptor);
    descriptor = undefined;
    // As late as can be: the window left for another write is the rename's own.
    if (expected !== undefined && !stillHolds(path, expected)) throw new FileChangedError(path);
    renameSync(temp, path);
  } catch (error) {
    if (descriptor !== undefined) closeSync(descriptor);
    rmSync(temp, { force: true });
    throw error;
  }
}
