/**
 * Reading that never blocks on a FIFO, a socket or a device: the file is
 * opened non-blocking and checked with fstat before a single byte is read, so
 * a FIFO left where a source or an artifact belongs is refused at once
 * instead of hanging the process. Shared by the compiler and the runtime.
 */
import { constants as bufferConstants } from "node:buffer";
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync, type Stats } from "node:fs";

/** Larger files are refused unread: a skill body or prompt is meant to be read whole by a model. */
export const MAX_SOURCE_BYTES = 1024 * 1024;

/**
 * The largest file that can be read as one string (V8's longest string, in
 * UTF-16 code units, which a UTF-8 file of that many bytes never exceeds):
 * a larger one is refused unread, never read to fail inside the decoder.
 */
export const MAX_TEXT_FILE_BYTES = bufferConstants.MAX_STRING_LENGTH;

export type RegularRead =
  | { kind: "file"; bytes: Buffer }
  | { kind: "missing" }
  /** Something other than a regular file: `what` names it (FIFO, socket, device, folder, symlink). */
  | { kind: "not-a-file"; what: string }
  | { kind: "too-large"; size: number }
  | { kind: "error"; code: string };

export interface RegularReadOptions {
  /** Refuse a symlink at the last path component instead of following it. */
  noFollow?: boolean;
  /** Refuse larger files unread. */
  maxBytes?: number;
}

/**
 * What is at a path, or undefined when nothing is there or the file system
 * refuses to look (a NUL byte, a name over the system's limit, a folder
 * without permission): a path written by a user must never end a run.
 */
export function statIfPossible(path: string, options: { noFollow?: boolean } = {}): Stats | undefined {
  try {
    return options.noFollow ? lstatSync(path, { throwIfNoEntry: false }) : statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

export function readRegularFile(path: string, options: RegularReadOptions = {}): RegularRead {
  let descriptor: number;
  try {
    descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow ? constants.O_NOFOLLOW : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
    // A path no file system can look up (a NUL byte, a name over the limit) names no file either.
    if (code === "ENOENT" || code === "ENOTDIR" || code === "ENAMETOOLONG" || code === "ERR_INVALID_ARG_VALUE") return { kind: "missing" };
    // ENXIO: a socket (or a FIFO with no writer opened for writing); ELOOP: a symlink under noFollow.
    if (code === "ENXIO" || code === "ELOOP" || code === "EISDIR") {
      const stats = statIfPossible(path, { noFollow: true });
      if (stats) return { kind: "not-a-file", what: describeEntry(stats) };
    }
    return { kind: "error", code };
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) return { kind: "not-a-file", what: describeEntry(stats) };
    if (options.maxBytes !== undefined && stats.size > options.maxBytes) return { kind: "too-large", size: stats.size };
    return { kind: "file", bytes: readUpTo(descriptor, stats.size) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
    // Some file systems open a name that is not there and fail only at fstat or read (Yarn Plug'n'Play's,
    // inside a zip archive): nothing there is "missing" whichever step finds it.
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    return { kind: "error", code };
  } finally {
    closeQuietly(descriptor);
  }
}

/** Closes a descriptor only read from: a failure to close loses nothing, and must not replace the result. */
function closeQuietly(descriptor: number): void {
  try {
    closeSync(descriptor);
  } catch {
    // Nothing was written through it.
  }
}

/** Whether a regular file begins with these bytes (false for anything else: missing, a FIFO, unreadable). */
export function fileStartsWith(path: string, prefix: Uint8Array): boolean {
  let descriptor: number;
  try {
    descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile() || stats.size < prefix.length) return false;
    const head = readUpTo(descriptor, prefix.length);
    return head.length === prefix.length && head.every((byte, index) => byte === prefix[index]);
  } catch {
    return false;
  } finally {
    closeSync(descriptor);
  }
}

/** Reads up to the size fstat reported, and stops there even if the file grows meanwhile. */
function readUpTo(descriptor: number, size: number): Buffer {
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const count = readSync(descriptor, buffer, filled, size - filled, null);
    if (count === 0) break;
    filled += count;
  }
  return buffer.subarray(0, filled);
}

/** A short name for what a path holds, for messages: a noun without its article ("FIFO", "folder"). */
export function describeEntry(stats: Stats): string {
  if (stats.isFIFO()) return "FIFO";
  if (stats.isSocket()) return "socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "device";
  if (stats.isDirectory()) return "folder";
  if (stats.isSymbolicLink()) return "symbolic link";
  return "regular file";
}

/**
 * The text of a small regular file, or undefined when there is none at the
 * path, it is something else (a FIFO would block, `/dev/zero` never ends) or
 * it is larger than `maxBytes`: for the files read only to decide how to go
 * on (a config's layout, a manifest's generator), whose full reading reports
 * what is wrong with them.
 */
export function readSmallText(path: string, maxBytes: number): string | undefined {
  const read = readRegularFile(path, { maxBytes });
  return read.kind === "file" ? read.bytes.toString("utf8") : undefined;
}
