import type { Stats } from "node:fs";

/**
 * What a file looked like when it was last read or written: size,
 * modification time and inode. A file whose stamp still matches is trusted
 * unread (watch rebuilds, emit's memory, the remembered manifest); any write
 * by anyone moves at least one of the three.
 */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

export function stampOf(stats: Stats): FileStamp {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
}

/** True when `now` is a regular file with exactly the recorded stamp. */
export function sameStamp(recorded: FileStamp, now: Stats | undefined): boolean {
  return now !== undefined && now.isFile() && now.size === recorded.size && now.mtimeMs === recorded.mtimeMs && now.ino === recorded.ino;
}
