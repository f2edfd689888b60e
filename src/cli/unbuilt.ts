import { existsSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import type { ArtifactVerificationError } from "../runtime/artifacts.js";

/**
 * The one line for an output folder that holds no build at all (a folder that does not exist, or one
 * without manifest.json); undefined for a build that exists and failed verification, whose problems the
 * error itself lists. `given` is the folder as the user gave it, taken from `from` when relative: an
 * absolute one is named as given, a relative one relative to the working folder.
 */
export function unbuiltFolderMessage(error: ArtifactVerificationError, given: string, from: string, hint: string): string | undefined {
  const [problem] = error.problems;
  if (error.problems.length !== 1 || problem?.file !== "manifest.json" || problem.kind !== "missing") return undefined;
  const folder = resolve(from, given);
  const shown = `${isAbsolute(given) ? given.replace(/(?<=.)[\\/]+$/, "") : relative(process.cwd(), folder).split("\\").join("/") || "."}/`.replace(/\/\/$/, "/");
  return existsSync(folder) ? `no build in ${shown} (it holds no manifest.json): ${hint}` : `no build at ${shown}: ${hint}`;
}
