import { lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isProcessAlive } from "./dist-journal.js";

/**
 * Removes the files a process killed between two steps of a write left in
 * `folder`: each name `pidOf` recognises as such a file (returning the pid
 * that made it) is removed when that process is gone or the file is older
 * than `maxAgeMs` (pids are reused); never one of this process, never
 * anything but a plain file. Returns the names removed, sorted.
 */
export function removeLeftoverFiles(folder: string, pidOf: (name: string, names: readonly string[]) => number | undefined, maxAgeMs: number, now = Date.now()): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = pidOf(name, names);
    if (pid === undefined || pid === process.pid) continue;
    const stats = lstatSync(join(folder, name), { throwIfNoEntry: false });
    if (!stats?.isFile()) continue;
    if (isProcessAlive(pid) && now - stats.mtimeMs < maxAgeMs) continue;
    rmSync(join(folder, name), { force: true });
    removed.push(name);
  }
  return removed.sort();
}
