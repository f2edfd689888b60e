import { existsSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { describeFsError } from "../protocol/path-problem.js";
import type { ArtifactVerificationError } from "../runtime/artifacts.js";

/**
 * The one line for an output folder that holds no build at all (a folder that does not exist, or one
 * without manifest.json), and a line for each file or folder of one that this user may not read (no build
 * helps there, so none is advised); undefined for a build that exists and failed verification, whose
 * problems the error itself lists. `given` is the folder as the user gave it, taken from `from` when relative: an
 * absolute one is named as given, a relative one relative to the working folder.
 */
export function unbuiltFolderMessage(error: ArtifactVerificationError, given: string, from: string, hint: string): string | undefined {
  const [problem] = error.problems;
  const folder = resolve(from, given);
  const shown = `${isAbsolute(given) ? given.replace(/(?<=.)[\\/]+$/, "") : relative(process.cwd(), folder).split("\\").join("/") || "."}/`.replace(/\/\/$/, "/");
  if (error.problems.length > 0 && error.problems.every((entry) => entry.kind === "unreadable")) {
    return error.problems
      .map((entry) => {
        const code = entry.code ?? "EACCES";
        const path = entry.file === "." ? shown : `${shown}${entry.file}${entry.folder === true ? "/" : ""}`;
        return `cannot read ${path}: ${describeFsError(code)} (${code}); give it read${entry.folder === true ? " and search" : ""} permission${entry.file === "." ? " (and search permission on the folders above it)" : ""}, then run the command again`;
      })
      .join("\n");
  }
  if (error.problems.length !== 1 || problem?.file !== "manifest.json" || problem.kind !== "missing") return undefined;
  return existsSync(folder) ? `no build in ${shown} (it holds no manifest.json): ${hint}` : `no build at ${shown}: ${hint}`;
}
