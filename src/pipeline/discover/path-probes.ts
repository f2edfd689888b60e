import { statSync } from "node:fs";
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
 */
export class PathProbes {
  private readonly found = new Map<string, Existence>();

  constructor(private readonly root: string) {}

  exists(relative: string): Existence {
    let result = this.found.get(relative);
    if (result === undefined) this.found.set(relative, (result = lookUp(this.root, relative)));
    return result;
  }

  /** Every lookup of the run, sorted by path: what a persisted result records beside its findings. */
  recorded(): Array<[string, Existence]> {
    return [...this.found].sort(([a], [b]) => compareCodeUnits(a, b));
  }
}

/** True when every recorded lookup finds the same thing again. */
export function probesStillHold(root: string, recorded: ReadonlyArray<readonly [string, Existence]>): boolean {
  return recorded.every(([relative, found]) => lookUp(root, relative) === found);
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
