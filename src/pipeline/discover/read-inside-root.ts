import { realpathSync } from "node:fs";
import { join } from "node:path";
import { createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { readRegularFile, type RegularRead } from "../../protocol/regular-file.js";
import { isWithin } from "./relative-paths.js";

/**
 * The byte read under read-source.ts: the path, with every symbolic link
 * resolved, must stay inside the project root, and what it names must be a
 * regular file (checked with fstat on a non-blocking descriptor before any
 * read), so a FIFO never hangs a build and a link never pulls outside text
 * into dist/.
 */
export type InsideRootRead = RegularRead | { kind: "outside-root" };

export function readInsideRoot(root: string, relPath: string, maxBytes?: number): InsideRootRead {
  const path = join(root, relPath);
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
