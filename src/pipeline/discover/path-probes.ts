import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { compareCodeUnits } from "./sources.js";

/**
 * What a lookup of a root-relative path found. A path behind a folder this
 * process may not search (EACCES, EPERM) is "denied"; a path no file system
 * can look up (a NUL byte, a name over the system's limit) is "unreadable";
 * something that is there but neither a regular file nor a folder (a FIFO, a
 * socket, a device) is "special"; a path that is not there is "absent".
 */
export type Existence = "file" | "directory" | "special" | "denied" | "unreadable" | "absent";

/**
 * The paths a run looked up outside its listed sources, and what it found:
 * link targets anywhere in the project, the folders above a skill a path
 * mention may be relative to, a plugin's `.claude-plugin/plugin.json`.
 * Findings depend on these answers although the files are no source, so a
 * persisted result is trusted again only while each answer still holds
 * ({@link probesStillHold}). Each path is looked up once per run.
 *
 * A path is there only when each of its segments is spelled exactly as its
 * folder lists the entry, letter case and Unicode form included: a file
 * system that ignores case (Windows, macOS) or Unicode form (macOS) finds
 * `references/tone.md` for `references/Tone.md`, and Linux does not, so the
 * answer is checked against the folder's listing and is the same on every
 * machine.
 */
export class PathProbes {
  private readonly found = new Map<string, Existence>();
  private readonly names: FolderNames;
  /** Paths a listing already made by the run shows spelled exactly: no folder is listed again for them. */
  private readonly listed = new Set<string>();
  /** Folders whose listing the run can give when a lookup below them needs it, by root-relative folder. */
  private readonly listers = new Map<string, () => Iterable<string>>();

  constructor(private readonly root: string) {
    this.names = new FolderNames(root);
  }

  exists(relative: string): Existence {
    let result = this.found.get(relative);
    if (result === undefined) this.found.set(relative, (result = lookUpSpelled(this.root, relative, this.names, (path) => this.vouched(path))));
    return result;
  }

  /**
   * Registers the run's own listing of a folder (a skill's supporting files,
   * root-relative paths as read from the disk), taken only when a lookup
   * below the folder finds something whose spelling must be checked.
   */
  listedBy(folder: string, list: () => Iterable<string>): void {
    if (!this.listers.has(folder)) this.listers.set(folder, list);
  }

  /**
   * The path on disk that `relative` names up to letter case and Unicode
   * form (`references/Tone.md` for `references/tone.md`), when `relative`
   * itself names nothing; undefined when there is none.
   */
  nearMatch(relative: string): string | undefined {
    const segments = relative.split("/");
    if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) return undefined;
    const spelled: string[] = [];
    for (const segment of segments) {
      const names = this.names.of(spelled.join("/"));
      if (names === undefined) return undefined;
      if (names.has(segment)) {
        spelled.push(segment);
        continue;
      }
      const folded = foldName(segment);
      const match = [...names].filter((name) => foldName(name) === folded).sort(compareCodeUnits)[0];
      if (match === undefined) return undefined;
      spelled.push(match);
    }
    const near = spelled.join("/");
    if (near === relative) return undefined;
    // Recorded like any lookup: a persisted finding that names the file is trusted only while it is still there.
    const found = this.exists(near);
    return found === "file" || found === "directory" ? near : undefined;
  }

  /** Every lookup of the run, sorted by path: what a persisted result records beside its findings. */
  recorded(): Array<[string, Existence]> {
    return [...this.found].sort(([a], [b]) => compareCodeUnits(a, b));
  }

  private vouched(relative: string): boolean {
    if (this.listed.has(relative)) return true;
    for (let end = relative.lastIndexOf("/"); end > 0; end = relative.lastIndexOf("/", end - 1)) {
      const folder = relative.slice(0, end);
      const list = this.listers.get(folder);
      if (list === undefined) continue;
      this.listers.delete(folder);
      for (const path of list()) {
        // The folders between the listed folder and each entry are spelled as listed too.
        for (let cut = path.indexOf("/", folder.length + 1); cut !== -1; cut = path.indexOf("/", cut + 1)) this.listed.add(path.slice(0, cut));
        this.listed.add(path);
      }
      return this.listed.has(relative);
    }
    return false;
  }
}

/** True when every recorded lookup finds the same thing again. */
export function probesStillHold(root: string, recorded: ReadonlyArray<readonly [string, Existence]>): boolean {
  const names = new FolderNames(root);
  return recorded.every(([relative, found]) => lookUpSpelled(root, relative, names, () => false) === found);
}

/** The same letters whatever their case or Unicode form: `Tone.md` and `tone.md`, `résumé` composed and decomposed. */
function foldName(name: string): string {
  return name.normalize("NFC").toLowerCase().normalize("NFC");
}

/** The names each folder lists, each folder read once. */
class FolderNames {
  private readonly listed = new Map<string, Set<string> | undefined>();

  constructor(private readonly root: string) {}

  /** The entries of a root-relative folder ("" for the root), or undefined when it cannot be listed. */
  of(folder: string): Set<string> | undefined {
    if (this.listed.has(folder)) return this.listed.get(folder);
    let names: Set<string> | undefined;
    try {
      names = new Set(readdirSync(join(this.root, folder)));
    } catch {
      names = undefined;
    }
    this.listed.set(folder, names);
    return names;
  }

  /** Whether each segment of the path is an entry of the folder before it, spelled exactly; a folder that cannot be listed is taken at the lookup's word. */
  spell(relative: string): boolean {
    const segments = relative.split("/");
    if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) return true;
    for (let index = 0; index < segments.length; index++) {
      const names = this.of(segments.slice(0, index).join("/"));
      if (names !== undefined && !names.has(segments[index] ?? "")) return false;
    }
    return true;
  }
}

/** A lookup whose answer holds on every file system: what the path names, when its spelling is the one on disk. */
function lookUpSpelled(root: string, relative: string, names: FolderNames, vouched: (relative: string) => boolean): Existence {
  const found = lookUp(root, relative);
  if (found === "absent" || found === "unreadable") return found;
  // Found by a file system that ignores case or Unicode form under another spelling: not there on every machine.
  return vouched(relative) || names.spell(relative) ? found : "absent";
}

function lookUp(root: string, relative: string): Existence {
  try {
    const stats = statSync(join(root, relative), { throwIfNoEntry: false });
    return stats === undefined ? "absent" : stats.isFile() ? "file" : stats.isDirectory() ? "directory" : "special";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "EACCES" || code === "EPERM" ? "denied" : "unreadable";
  }
}
