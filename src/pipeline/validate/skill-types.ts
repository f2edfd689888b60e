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
 * `skillFolders` are the folders the layout names as skills' (a folder whose SKILL.md is missing or cannot be
 * read is still one: its own finding says so); a key for a folder under one discovery could not list
 * (`unlisted`, "" for the root) is not reported, nor a key under an `ignore` glob (a skill left out for now
 * keeps its type for when it is back).
 */
export function unmatchedSkillTypeDiagnostics(skillTypes: readonly SkillTypeGlob[], skillFolders: readonly string[], unlisted: readonly string[], ignore: readonly string[]): Diagnostic[] {
  if (skillTypes.length === 0) return [];
  // A key without a wildcard (what init writes, one per skill) matches a folder it names or one under it: a lookup.
  const foldersAndParents = new Set(skillFolders.flatMap((folder) => folder.split("/").map((_, index, segments) => segments.slice(0, index + 1).join("/"))));
  const ignored = ignore.map(globToRegExp);
  let index: FolderIndex | undefined;
  const diagnostics: Diagnostic[] = [];
  for (const { glob, at } of skillTypes) {
    if (at === undefined) continue;
    const key = normalisePattern(glob)
      .split("/")
      .filter((segment) => segment !== "" && segment !== ".")
      .join("/");
    if (/[*?]/.test(key)) {
      const pattern = globToRegExp(key);
      if (skillFolders.some((folder) => pattern.test(`${folder}/`))) continue;
    } else if (key === "" ? skillFolders.length > 0 : foldersAndParents.has(key)) continue;
    if (ignored.some((ignoredGlob) => ignoredGlob.test(`${key}/`))) continue;
    if (unlisted.some((folder) => folder === "" || folder === "." || `${key}/`.startsWith(`${folder}/`))) continue;
    diagnostics.push(
      createDiagnostic(
        "config/unmatched-skill-type",
        at.file,
        at.range,
        `Unexpected key ${quoted(glob)} in skillTypes, expected a skill folder's path from the project root or a glob of such paths: it matches no skill folder, so its type applies to no skill${suggestion(key, (index ??= folderIndex(skillFolders)))}`,
      ),
    );
  }
  return diagnostics;
}

/** The skill folders by parent folder and by name (each lowercased), for near misses without comparing every folder. */
interface FolderIndex {
  folders: readonly string[];
  byParent: Map<string, string[]>;
  byName: Map<string, string[]>;
}

function folderIndex(folders: readonly string[]): FolderIndex {
  const byParent = new Map<string, string[]>();
  const byName = new Map<string, string[]>();
  const add = (map: Map<string, string[]>, key: string, folder: string): void => {
    const list = map.get(key.toLowerCase());
    if (list === undefined) map.set(key.toLowerCase(), [folder]);
    else list.push(folder);
  };
  for (const folder of folders) {
    add(byParent, parentOf(folder), folder);
    add(byName, nameOf(folder), folder);
  }
  return { folders, byParent, byName };
}

/** `; did you mean "skills/notes"?` (or several folders), or the empty string. */
function suggestion(key: string, index: FolderIndex): string {
  const meant = endingIn(key, index.folders);
  if (meant.length === 0) {
    const near = nearMiss(key, index);
    return near === undefined ? "" : `; did you mean ${quoted(near)}?`;
  }
  if (meant.length === 1) return `; did you mean ${quoted(meant[0] ?? "")}?`;
  const shown = meant.slice(0, MAX_SUGGESTIONS).map((key) => quoted(key)).join(", ");
  return `; did you mean one of ${shown}${meant.length > MAX_SUGGESTIONS ? ` (and ${meant.length - MAX_SUGGESTIONS} more)` : ""}?`;
}

/**
 * The keys that would match a skill folder whose trailing folders the key matches: `skills/notes` for
 * `notes`, `plugins/billing/skills/*` for `skills/*`. Sorted, each once.
 */
function endingIn(key: string, folders: readonly string[]): string[] {
  if (key === "") return [];
  const keys = new Set<string>();
  if (/[*?]/.test(key)) {
    const pattern = globToRegExp(key);
    for (const folder of folders) {
      const segments = folder.split("/");
      for (let start = 1; start < segments.length; start++) {
        if (!pattern.test(`${segments.slice(start).join("/")}/`)) continue;
        keys.add(`${segments.slice(0, start).join("/")}/${key}`);
        break;
      }
    }
  } else {
    // A key without a wildcard matches the folder it names and those under it: it is whole folders inside the path.
    const needle = `/${key}/`;
    for (const folder of folders) {
      const at = `/${folder}/`.indexOf(needle);
      if (at > 0) keys.add(`${folder.slice(0, at - 1)}/${key}`);
    }
  }
  return [...keys].sort();
}

/** A near miss: a folder beside the one the key names with a name close to it, or one of the same name in a folder close to the key's. */
function nearMiss(key: string, index: FolderIndex): string | undefined {
  const siblings = index.byParent.get(parentOf(key).toLowerCase()) ?? [];
  const sibling = suggest(nameOf(key), siblings.map(nameOf));
  if (sibling !== undefined) return siblings.find((folder) => nameOf(folder) === sibling);
  const namesakes = index.byName.get(nameOf(key).toLowerCase()) ?? [];
  const parent = suggest(parentOf(key), namesakes.map(parentOf));
  return parent === undefined ? undefined : namesakes.find((folder) => parentOf(folder) === parent);
}

function parentOf(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf("/")));
}

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
