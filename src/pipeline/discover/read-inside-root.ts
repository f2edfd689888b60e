import { constants, realpathSync } from "node:fs";
import { join } from "node:path";
import { createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { readRegularFile, statIfPossible, type RegularRead } from "../../protocol/regular-file.js";
import { isWithin } from "../../protocol/within.js";

/**
 * The byte read under read-source.ts: the path, with every symbolic link
 * resolved, must stay inside the project root, and what it names must be a
 * regular file (checked with fstat on a non-blocking descriptor before any
 * read), so a FIFO never hangs a build and a link never pulls outside text
 * into dist/.
 */
export type InsideRootRead = RegularRead | { kind: "outside-root" };

export function readInsideRoot(root: string, relPath: string, maxBytes?: number, plain?: PlainFolders): InsideRootRead {
  const path = join(root, relPath);
  if (plain !== undefined) {
    const direct = readBelowPlainFolders(path, relPath, plain, maxBytes);
    if (direct !== undefined) return direct;
  }
  let real: string;
  try {
    real = realpathSync.native(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
    return code === "ENOENT" || code === "ENOTDIR" ? { kind: "missing" } : { kind: "error", code };
  }
  if (!isWithin(realRoot(root), real)) return { kind: "outside-root" };
  const read = readRegularFile(real, maxBytes === undefined ? {} : { maxBytes });
  // A folder where a file belongs is an unreadable file, as it always was; not-a-file is for FIFOs, sockets, devices.
  return read.kind === "not-a-file" && read.what === "folder" ? { kind: "error", code: "EISDIR" } : read;
}

/**
 * Which folders below a root are folders themselves, not symbolic links, each
 * looked up once (one lstat) for the reads of one run: a file whose every
 * folder below the root is one, and which is no link itself, is inside the
 * root without resolving its path. Resolving it cost a readlink per path
 * segment, for the root and again for the file, on every read; a lint of a
 * thousand skills made 11,000 of them. Each full read of the skill files
 * (discover.ts) makes its own, so a folder relinked since an earlier read
 * is seen as it is now; a watch rebuild that reads single files resolves them.
 */
export class PlainFolders {
  private readonly known = new Map<string, boolean>();

  constructor(private readonly root: string) {}

  /** Whether the root-relative `folder` ("" for the root) and each folder above it up to the root is no link. */
  holds(folder: string): boolean {
    if (folder === "") return true;
    let plain = this.known.get(folder);
    if (plain === undefined) {
      const slash = folder.lastIndexOf("/");
      plain = isPlainName(folder.slice(slash + 1)) && this.holds(slash < 0 ? "" : folder.slice(0, slash)) && (statIfPossible(join(this.root, folder), { noFollow: true })?.isDirectory() ?? false);
      this.known.set(folder, plain);
    }
    return plain;
  }
}

/**
 * The read of a file below plain folders, opened without following a link at
 * its last step; undefined where that does not settle it (a folder on the way
 * is a link, the file is one, or the system cannot refuse to follow one), for
 * the resolving read.
 */
function readBelowPlainFolders(path: string, relPath: string, plain: PlainFolders, maxBytes: number | undefined): InsideRootRead | undefined {
  const slash = relPath.lastIndexOf("/");
  if (constants.O_NOFOLLOW === undefined || !isPlainName(relPath.slice(slash + 1)) || !plain.holds(slash < 0 ? "" : relPath.slice(0, slash))) return undefined;
  const read = readRegularFile(path, maxBytes === undefined ? { noFollow: true } : { noFollow: true, maxBytes });
  if (read.kind === "not-a-file" && read.what === "symbolic link") return undefined;
  return read.kind === "not-a-file" && read.what === "folder" ? { kind: "error", code: "EISDIR" } : read;
}

/** A path segment that names an entry of its folder (not the folder itself or its parent). */
function isPlainName(name: string): boolean {
  return name !== "" && name !== "." && name !== "..";
}

/**
 * The root resolved at the same moment as the file, never remembered: a
 * relative root (".") then means the same folder for both after a chdir, and
 * a root that was moved or relinked between two watch builds is seen as it is
 * now. It costs one realpath per read, a few microseconds next to the read.
 */
function realRoot(root: string): string {
  try {
    return realpathSync.native(root);
  } catch {
    return root;
  }
}

/** The finding for a read that is neither a file's bytes nor an absence; undefined for those. */
export function refusedReadDiagnostic(relPath: string, read: InsideRootRead): Diagnostic | undefined {
  if (read.kind === "outside-root") {
    return createDiagnostic(
      "source/outside-root",
      relPath,
      FILE_START,
      "Unexpected symbolic link that leads outside the project root, expected a file inside the project (copy the file in instead of linking it)",
    );
  }
  if (read.kind === "not-a-file") {
    return createDiagnostic("source/not-a-file", relPath, FILE_START, `Unexpected ${read.what}, expected a regular file (it was not read)`);
  }
  return undefined;
}
