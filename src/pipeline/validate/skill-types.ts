import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { quoted } from "../../diagnostics/quote.js";
import { suggest } from "../../protocol/suggest.js";
import { globToRegExp, normalisePattern } from "../discover/skill-folders.js";
import type { SkillTypeGlob } from "./lint-config.js";

/** At most this many folders are named in one finding's "did you mean". */
const MAX_SUGGESTIONS = 3;

/**
 * The config's `skillTypes` keys that match no skill folder (`config/unmatched-skill-type`). A key is a glob of
 * skill folders from the project root, as `skills` and `ignore` are: `"notes"` names a folder `notes/` at the
 * root, never `skills/notes`, so its type would apply to no skill without a word. The finding names the key
 * that would match: the folders ending in what the key says (`skills/notes` for `notes`), else a near miss
 * (`skills/notes` for `skills/note`).
 *
 * `skillFolders` are the folders whose SKILL.md was read; `discovered` are the paths discovery reported
 * instead (a folder without SKILL.md, a SKILL.md it could not read, a folder it could not list): a key that
 * names one of them, or a folder under one it could not list, is not reported, nor a key under an `ignore`
 * glob (a skill left out for now keeps its type for when it is back).
 */
export function unmatchedSkillTypeDiagnostics(skillTypes: readonly SkillTypeGlob[], skillFolders: readonly string[], discovered: readonly string[], ignore: readonly string[]): Diagnostic[] {
  if (skillTypes.length === 0) return [];
  const found = [...new Set([...skillFolders, ...discovered])];
  const ignored = ignore.map(globToRegExp);
  const diagnostics: Diagnostic[] = [];
  for (const { glob, at } of skillTypes) {
    if (at === undefined) continue;
    const pattern = globToRegExp(glob);
    if (found.some((folder) => pattern.test(`${folder}/`))) continue;
    const key = normalisePattern(glob)
      .split("/")
      .filter((segment) => segment !== "" && segment !== ".")
      .join("/");
    if (ignored.some((ignoredGlob) => ignoredGlob.test(`${key}/`))) continue;
    if (discovered.some((path) => path === "." || `${key}/`.startsWith(`${path}/`))) continue;
    diagnostics.push(
      createDiagnostic(
        "config/unmatched-skill-type",
        at.file,
        at.range,
        `Unexpected key ${quoted(glob)} in skillTypes, expected a skill folder's path from the project root or a glob of such paths: it matches no skill folder, so its type applies to no skill${suggestion(key, skillFolders)}`,
      ),
    );
  }
  return diagnostics;
}

/** `; did you mean "skills/notes"?` (or several folders), or the empty string. */
function suggestion(key: string, skillFolders: readonly string[]): string {
  const meant = endingIn(key, skillFolders);
  if (meant.length === 0) {
    const near = suggest(key, skillFolders);
    return near === undefined ? "" : `; did you mean ${quoted(near)}?`;
  }
  if (meant.length === 1) return `; did you mean ${quoted(meant[0] ?? "")}?`;
  const shown = meant.slice(0, MAX_SUGGESTIONS).map(quoted).join(", ");
  return `; did you mean one of ${shown}${meant.length > MAX_SUGGESTIONS ? ` (and ${meant.length - MAX_SUGGESTIONS} more)` : ""}?`;
}

/**
 * The keys that would match a skill folder whose trailing folders the key matches: `skills/notes` for
 * `notes`, `plugins/billing/skills/*` for `skills/*`. Sorted, each once.
 */
function endingIn(key: string, skillFolders: readonly string[]): string[] {
  if (key === "") return [];
  const pattern = globToRegExp(key);
  const keys = new Set<string>();
  for (const folder of skillFolders) {
    const segments = folder.split("/");
    for (let start = 1; start < segments.length; start++) {
      if (!pattern.test(`${segments.slice(start).join("/")}/`)) continue;
      keys.add(`${segments.slice(0, start).join("/")}/${key}`);
      break;
    }
  }
  return [...keys].sort();
}
