import { readdirSync, readlinkSync, statSync, watch as watchFolder, type FSWatcher } from "node:fs";
import { statIfPossible } from "../protocol/regular-file.js";
import { basename, dirname, join, resolve } from "node:path";

/**
 * The links among the sources that point to a folder or to nothing yet, root-relative and sorted: a skill
 * folder linked in from elsewhere, or a link whose target is still to come (an uninitialised submodule).
 * Folders are walked from `tops` without following links; `ignored` prunes what no build reads. Links to
 * files are left out: the watcher follows a file's changes through its link.
 */
export function findFolderLinks(root: string, tops: readonly string[], ignored: (relPath: string) => boolean): string[] {
  const links: string[] = [];
  const walk = (rel: string): void => {
    let entries;
    try {
      entries = readdirSync(join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = `${rel}/${entry.name}`;
      if (ignored(path)) continue;
      if (entry.isSymbolicLink()) {
        if (pointsToFolderOrNothing(join(root, path))) links.push(path);
      } else if (entry.isDirectory()) {
        walk(path);
      }
    }
  };
  let rootEntries;
  try {
    rootEntries = readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  for (const top of tops) {
    if (ignored(top)) continue;
    const entry = rootEntries.find((candidate) => candidate.name === top);
    if (entry?.isSymbolicLink()) {
      if (pointsToFolderOrNothing(join(root, top))) links.push(top);
    } else if (entry?.isDirectory()) {
      walk(top);
    }
  }
  return links.sort();
}

function pointsToFolderOrNothing(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR";
  }
}

interface Guard {
  /** The nearest existing folder on the way to the link's target (the target's parent while the target exists). */
  folder: string;
  /** The entry of `folder` on the way to the target. */
  next: string;
  watcher: FSWatcher | undefined;
}

/**
 * Watches where each link points, not what is under it. The file watcher follows a link to a folder once,
 * when it first lists it: a target that goes away and comes back, that appears after watch started (a
 * clone, `git submodule update`), or that is deleted and written again, is a new folder nobody watches,
 * while the link itself never changes. For each link, the nearest existing folder on the way to its target
 * is watched (without its subfolders): an event there naming the next step to the target calls `moved`
 * with the link, which then has to be followed again. Edits under the target do not reach these watchers.
 */
export class LinkTargetWatch {
  private readonly guards = new Map<string, Guard>();
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly moved: (link: string) => void,
  ) {}

  /** Watches the targets of exactly these links (root-relative) from now on. */
  set(links: readonly string[]): void {
    if (this.closed) return;
    const wanted = new Set(links);
    for (const link of [...this.guards.keys()]) if (!wanted.has(link)) this.drop(link);
    for (const link of wanted) this.arm(link);
  }

  /** Adds one link (made while watching) to those whose targets are watched. */
  add(link: string): void {
    if (!this.closed) this.arm(link);
  }

  close(): void {
    this.closed = true;
    for (const link of [...this.guards.keys()]) this.drop(link);
  }

  private drop(link: string): void {
    this.guards.get(link)?.watcher?.close();
    this.guards.delete(link);
  }

  /** (Re)watches the nearest existing folder on the way to the link's target; true when that changed. */
  private arm(link: string): boolean {
    const place = this.placeOf(link);
    const current = this.guards.get(link);
    if (current && place && current.folder === place.folder && current.next === place.next && current.watcher) return false;
    this.drop(link);
    if (!place) return current !== undefined;
    const guard: Guard = { ...place, watcher: undefined };
    this.guards.set(link, guard);
    try {
      guard.watcher = watchFolder(place.folder, { persistent: true }, (_event, name) => this.onEvent(link, guard, name));
      // A watcher that fails is dropped without a relink (which could fail the same way again and again):
      // the next relink or config change watches the nearest existing folder again.
      guard.watcher.on("error", () => {
        guard.watcher?.close();
        guard.watcher = undefined;
      });
    } catch {
      // Not watchable (gone meanwhile, no permission): the link is still followed at the next relink.
      guard.watcher = undefined;
    }
    return true;
  }

  private onEvent(link: string, guard: Guard, name: string | Buffer | null): void {
    if (this.closed || this.guards.get(link) !== guard) return;
    const named = name === null || String(name) === guard.next;
    // The folder watched, or one on the way to it, moved or went away: watch the nearest one again.
    const rearmed = this.arm(link);
    if (named || rearmed) this.moved(link);
  }

  private placeOf(link: string): { folder: string; next: string } | undefined {
    const path = join(this.root, link);
    let target: string;
    try {
      target = resolve(dirname(path), readlinkSync(path));
    } catch {
      return undefined;
    }
    let next = target;
    let folder = dirname(target);
    while (!isFolder(folder)) {
      const up = dirname(folder);
      if (up === folder) return undefined;
      next = folder;
      folder = up;
    }
    if (next === folder) return undefined;
    return { folder, next: basename(next) };
  }
}

function isFolder(path: string): boolean {
  return statIfPossible(path)?.isDirectory() === true;
}
