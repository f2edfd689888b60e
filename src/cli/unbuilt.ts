import { existsSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { ArtifactVerificationError } from "../runtime/artifacts.js";

/**
 * The one line for an output folder that holds no build at all (a folder that does not exist, or one
 * without manifest.json), naming it relative to the working folder as the user gave it; undefined for a
 * build that exists and failed verification, whose problems the error itself lists.
 */
export function unbuiltFolderMessage(error: ArtifactVerificationError, folder: string, hint: string): string | undefined {
  const [problem] = error.problems;
  if (error.problems.length !== 1 || problem?.file !== "manifest.json" || problem.kind !== "missing") return undefined;
  const shown = `${relative(process.cwd(), resolve(folder)).split("\\").join("/") || "."}/`;
  return existsSync(folder) ? `no build in ${shown} (it holds no manifest.json): ${hint}` : `no build at ${shown}: ${hint}`;
}
