import { realpathSync } from "node:fs";
import { join } from "node:path";
import { createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { readRegularFile, type RegularRead } from "../../protocol/regular-file.js";
import { isWithin } from "./relative-paths.js";

/**
 * The one way a source's bytes are read: the path, with every symbolic link
 * resolved, must stay inside the project root, and what it names must be a
 * regular file (checked with fstat on a non-blocking descriptor before any
 * read), so a FIFO never hangs a build and a link never pulls outside text
 * into dist/.
 */
export type SourceRead = RegularRead | { kind: "outside-root" };

const realRoots = new Map<string, string>();

export function readSourceBytes(root: string, relPath: string, maxBytes?: number): SourceRead {
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
  return read.kind === "not-a-file" && read.what === "a folder" ? { kind: "error", code: "EISDIR" } : read;
}

function realRoot(root: string): string {
  let real = realRoots.get(root);
  if (real === undefined) {
    try {
      real = realpathSync.native(root);
    } catch {
      real = root;
    }
    realRoots.set(root, real);
  }
  return real;
}

/** The finding for a read that is neither a file's bytes nor an absence; undefined for those. */
export function sourceReadDiagnostic(relPath: string, read: SourceRead): Diagnostic | undefined {
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
