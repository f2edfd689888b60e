import { randomBytes } from "node:crypto";
import { closeSync, lstatSync, openSync, realpathSync, statSync, unlinkSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { describeFsError, fsErrorCode } from "../protocol/path-problem.js";
import { MAX_TEXT_FILE_BYTES, readRegularFile, statIfPossible } from "../protocol/regular-file.js";
import { writeFileWhole } from "../pipeline/fix/replace-file.js";
import { jsonSyntaxErrorAt } from "../pipeline/parse/json-error-offset.js";

/**
 * Files named on the command line: read without ever blocking (a FIFO is
 * refused, found by fstat, never read) and written only where a regular file
 * can be, each failure one line that says what is wrong with the path.
 */
export class CommandFileError extends Error {
  override readonly name = "CommandFileError";
}

/** The text of `path` (the `what` it should hold names it in the message: "traffic profile"; `shown` is the path as typed). */
export function readCommandFile(path: string, what: string, shown = path): string {
  const read = readRegularFile(path, { maxBytes: MAX_TEXT_FILE_BYTES });
  switch (read.kind) {
    case "file":
      return read.bytes.toString("utf8");
    case "not-a-file":
      throw new CommandFileError(`cannot read the ${what} ${shown}: it is a ${read.what}, expected a regular file`);
    case "missing":
      throw new CommandFileError(`cannot read the ${what} ${shown}: ${missingReason(path)}`);
    case "too-large":
      throw new CommandFileError(`cannot read the ${what} ${shown}: ${read.size} bytes, more than the ${MAX_TEXT_FILE_BYTES} a text can hold`);
    case "error":
      throw new CommandFileError(`cannot read the ${what} ${shown}: ${describeFsError(read.code)} (${read.code})`);
  }
}

/** The JSON file at `path` (as readCommandFile reads it); a syntax error is one line that names it at line:column. */
export function readCommandJson(path: string, what: string, shown = path): unknown {
  const text = readCommandFile(path, what, shown);
  try {
    return JSON.parse(text);
  } catch (thrown) {
    throw new CommandFileError(`cannot read the ${what} ${shown}:${jsonSyntaxErrorAt(text, thrown)}, expected JSON`);
  }
}

/**
 * Writes `text` to `path`, replacing a regular file; anything else there, or a path that cannot be written, is refused.
 * The file is replaced whole (a temporary file beside it, renamed over it): a write that fails (a full disk) leaves
 * the old file as it was and no temporary file. A symbolic link to a file stays a link; the file it points to is replaced.
 */
export function writeCommandFile(path: string, text: string, what: string): void {
  const existing = statIfPossible(path);
  if (existing !== undefined && !existing.isFile()) {
    throw new CommandFileError(`cannot write the ${what} to ${path}: it is ${existing.isDirectory() ? "a folder" : existing.isFIFO() ? "a FIFO" : "not a regular file"}, expected a file's path`);
  }
  try {
    const target = existing !== undefined && lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
    writeFileWhole(target, Buffer.from(text), existing === undefined ? undefined : existing.mode & 0o7777);
  } catch (error) {
    const code = fsErrorCode(error);
    if (code === undefined) throw error;
    throw new CommandFileError(`cannot write the ${what} to ${path}: ${code === "ENOENT" ? missingReason(path) : `${describeFsError(code)} (${code})`}`);
  }
}

/**
 * Refuses, before any work, a path `writeCommandFile` could not write: something other than a file there, no
 * folder to hold it, or a folder it cannot write in (the file is written beside its place and renamed there, so
 * a file is made and removed in that folder, as the write will).
 */
export function checkCommandFileWritable(path: string, what: string): void {
  const existing = statIfPossible(path);
  if (existing !== undefined && !existing.isFile()) writeCommandFile(path, "", what);
  if (existing === undefined && statIfPossible(dirname(path))?.isDirectory() !== true) throw new CommandFileError(`cannot write the ${what} to ${path}: ${missingReason(path)}`);
  const target = existing !== undefined && lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
  const probe = join(dirname(target), `.${basename(target)}.probe-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    closeSync(openSync(probe, "wx"));
    unlinkSync(probe);
  } catch (error) {
    const code = fsErrorCode(error);
    if (code === undefined) throw error;
    throw new CommandFileError(`cannot write the ${what} to ${path}: ${describeFsError(code)} (${code})`);
  }
}

/** Why nothing is at `path`: its folder is missing, a part of it is a file, or the name is too long. */
function missingReason(path: string): string {
  try {
    statSync(path);
  } catch (error) {
    const code = fsErrorCode(error);
    if (code === "ENAMETOOLONG" || code === "ERR_INVALID_ARG_VALUE" || code === "ELOOP") return `${describeFsError(code)} (${code})`;
  }
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    let stats;
    try {
      stats = statSync(folder);
    } catch (error) {
      const code = fsErrorCode(error);
      if (code === "ENAMETOOLONG") return `${describeFsError(code)} (${code})`;
      if (dirname(folder) !== folder) continue;
      return "no such file";
    }
    if (!stats.isDirectory()) return `${shown(folder)} is not a folder`;
    return folder === dirname(path) ? "no such file" : `the folder ${shown(dirname(path))} does not exist`;
  }
}

/** A folder as the user would type it from the working folder: relative inside it, absolute elsewhere. */
function shown(folder: string): string {
  if (!isAbsolute(folder)) return folder;
  const inside = relative(process.cwd(), folder);
  return inside === "" ? "." : inside.startsWith("..") || isAbsolute(inside) ? folder : inside;
}
