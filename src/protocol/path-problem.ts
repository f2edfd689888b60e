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
