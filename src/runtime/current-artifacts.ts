/**
 * The entries of `setCurrentArtifacts`: what the anchor renders and the
 * injection policy matches, so each is checked before it is stored, and a
 * stored list is checked again when a session reopens on it.
 */
import { shownValue } from "../protocol/arguments.js";
import type { ArtifactReference } from "./execution-state.js";

const OPTIONAL_FIELDS = ["path", "revision", "title"] as const;

/** What is wrong with entry `index` of a current-artifacts list (the field named), or undefined when it is well formed. */
export function artifactProblem(entry: unknown, index: number): string | undefined {
  const at = `currentArtifacts[${index}]`;
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return `Unexpected ${at} ${shownValue(entry)}, expected an object such as { ref: "file:decks/q3.gml", revision: "3" }`;
  const fields = entry as Record<string, unknown>;
  if (typeof fields.ref !== "string" || fields.ref === "") return `Unexpected ${at}.ref ${shownValue(fields.ref)}, expected a non-empty string (the artifact's stable reference, e.g. "file:decks/q3.gml")`;
  for (const field of OPTIONAL_FIELDS) {
    if (fields[field] !== undefined && typeof fields[field] !== "string") return `Unexpected ${at}.${field} ${shownValue(fields[field])}, expected a string or no ${field}`;
  }
  return undefined;
}

/** The list `setCurrentArtifacts` stores, copied; a TypeError naming the first bad entry's field, and nothing stored, otherwise. */
export function checkedArtifacts(artifacts: unknown): ArtifactReference[] {
  if (!Array.isArray(artifacts)) throw new TypeError(`Unexpected currentArtifacts ${shownValue(artifacts)}, expected an array of { ref, path?, revision?, title? } ([] clears the list)`);
  artifacts.forEach((entry, index) => {
    const problem = artifactProblem(entry, index);
    if (problem !== undefined) throw new TypeError(problem);
  });
  return artifacts.map((artifact: ArtifactReference) => ({ ...artifact }));
}
