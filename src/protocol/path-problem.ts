import { accessSync, constants, statSync } from "node:fs";

/**
 * What a file system error means, in the words of a one-line message: a path
 * a user typed (an output file, a folder to create, a file to read) that the
 * system refuses is bad input, reported as such, never a stack trace.
 */
export function describeFsError(code: string | undefined): string {
  switch (code) {
    case "ENOENT":
      return "no such file or folder";
    case "ENOTDIR":
    case "EEXIST":
      return "a part of the path is a file, not a folder";
    case "EISDIR":
      return "it is a folder";
    case "ENAMETOOLONG":
      return "the name is longer than the file system allows";
    case "EACCES":
    case "EPERM":
      return "the file system does not allow it";
    case "EROFS":
      return "the file system is read-only";
    case "ELOOP":
      return "too many symbolic links";
    case "ENOSPC":
      return "no space left on the device";
    case "ENXIO":
      return "it is a socket or a device";
    case "EBUSY":
      return "the file is in use, or a mount point";
    case "ERR_INVALID_ARG_VALUE":
      return "the path holds a character no file name can";
    default:
      return code ?? "unknown error";
  }
}

/** The error code of a file system error, when `error` is one (`ENOENT`, `EACCES`, …). */
export function fsErrorCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" && (/^E[A-Z]+$/.test(code) || code === "ERR_INVALID_ARG_VALUE") ? code : undefined;
}

/**
 * Why `path` cannot be the folder a command works in, in words that follow its
 * name ("does not exist", "is a file, not a folder", "cannot be read (the file
 * system does not allow it, EACCES)"); undefined for a folder this process can
 * enter. A folder the user may not enter is said as such, never taken for a
 * missing one or for a file.
 */
export function folderProblem(path: string): string | undefined {
  let isFolder: boolean;
  let isFile: boolean;
  try {
    const stats = statSync(path);
    isFolder = stats.isDirectory();
    isFile = stats.isFile();
  } catch (error) {
    const code = fsErrorCode(error);
    if (code === "ENOENT") return "does not exist";
    if (code === "ENOTDIR") return "does not exist (a part of its path is a file)";
    return `cannot be read (${describeFsError(code)}, ${code ?? "unknown error"})`;
  }
  if (!isFolder) return isFile ? "is a file, not a folder" : "is not a folder";
  try {
    accessSync(path, constants.X_OK);
  } catch (error) {
    const code = fsErrorCode(error);
    return `cannot be read (${describeFsError(code)}, ${code ?? "unknown error"})`;
  }
  return undefined;
}
