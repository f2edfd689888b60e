/**
 * The file store: one file per session, a snapshot followed by one record per
 * change, appended; compacted into a new file past a limit.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { expectOneOf, expectString } from "../../protocol/arguments.js";
import { parseJournal, replay, type StateRecord } from "./journal.js";
import { StateConflictError, StateStoreError } from "./errors.js";
import { checkStoreOptions, DEFAULT_COMPACT_AFTER_BYTES, type StateStore, type StateStoreOptions, type StateRecovery } from "./store.js";
import type { ExecutionState } from "../execution-state.js";

export interface FileStateStoreOptions extends StateStoreOptions {
  /**
   * When data reaches the disk itself rather than the operating system:
   * - "snapshot" (default): each record is one write(2), which a crash of the
   *   process cannot lose; snapshots are fsynced before they replace the old
   *   file. A power loss can lose the records since the last snapshot.
   * - "always": each record is also fdatasynced (slower; survives power loss).
   */
  fsync?: "snapshot" | "always";
}

/**
 * One file per session: the snapshot on the first line, then one JSON record
 * per change, appended. When the journal grows past its limit the next change
 * writes a new file (snapshot + that record) and renames it into place.
 *
 * - A crash mid-write leaves at most a torn last line: a load ignores it,
 *   restores the last complete record's state and reports it (`onRecovery`,
 *   `lastRecovery`); the next write cuts it off first.
 * - One writer per file: before each write the store checks that the file is
 *   still the one it wrote and as long as it left it, and a load checks that
 *   revisions follow one another. A second process writing the same session
 *   is refused with StateConflictError, never merged.
 */
export class FileStateStore implements StateStore {
  /** The last torn write a load set aside. */
  lastRecovery: StateRecovery | undefined;
  private readonly tempPrefix: string;
  private readonly options: FileStateStoreOptions;
  private counter = 0;
  private fd: number | undefined;
  /** The file as this store last left it (or found it): inode, length, valid length. */
  private disk: { ino: number; size: number; validBytes: number; snapshotBytes: number } | undefined;
  private revision = 0;

  constructor(
    readonly path: string,
    options: FileStateStoreOptions = {},
  ) {
    expectString(path, "FileStateStore path", "the state file's path, such as \"state/session-1.json\"");
    checkStoreOptions(options, "FileStateStore");
    if (options.fsync !== undefined) expectOneOf(options.fsync, "fsync", ["snapshot", "always"]);
    this.tempPrefix = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
    this.options = options;
  }

  load(): ExecutionState | undefined {
    let bytes: Buffer;
    let ino: number;
    try {
      bytes = readFileSync(this.path);
      ino = statSync(this.path).ino;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new StateStoreError(this.path, `Unexpected read failure (${(error as Error).message}), expected a readable file`);
    }
    const journal = parseJournal(bytes, this.path);
    const state = replay(journal.snapshot, journal.records, this.path);
    const snapshotEnd = bytes.indexOf(0x0a);
    this.disk = { ino, size: bytes.length, validBytes: journal.validBytes, snapshotBytes: snapshotEnd === -1 ? bytes.length : snapshotEnd + 1 };
    this.revision = state.revision;
    if (journal.tornBytes > 0) {
      this.lastRecovery = {
        location: this.path,
        tornBytes: journal.tornBytes,
        revision: state.revision,
        message: `Ignored ${journal.tornBytes} bytes after the last complete record (a write cut short); restored revision ${state.revision}`,
      };
      this.options.onRecovery?.(this.lastRecovery);
    }
    return state;
  }

  save(state: ExecutionState): void {
    this.replaceFile(`${JSON.stringify(state)}\n`, "", state.revision);
  }

  append(record: StateRecord, current: () => ExecutionState): void {
    if (this.disk === undefined) throw new StateStoreError(this.path, "Unexpected append before load or save, expected the state read or written first");
    if (record.revision !== this.revision + 1) {
      throw new StateConflictError(this.path, `Unexpected revision ${record.revision}, expected ${this.revision + 1}: this store holds another writer's state`);
    }
    const line = `${JSON.stringify(record)}\n`;
    const journalBytes = this.disk.validBytes - this.disk.snapshotBytes;
    if (journalBytes + line.length > Math.max(this.options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES, 2 * this.disk.snapshotBytes)) {
      this.replaceFile(`${JSON.stringify(current())}\n`, line, record.revision);
      return;
    }
    const fd = this.openForAppend();
    const buffer = Buffer.from(line);
    let written = 0;
    while (written < buffer.length) written += writeSync(fd, buffer, written);
    if (this.options.fsync === "always") fdatasyncSync(fd);
    this.disk.size += buffer.length;
    this.disk.validBytes += buffer.length;
    this.revision = record.revision;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private openForAppend(): number {
    const disk = this.disk as NonNullable<FileStateStore["disk"]>;
    if (this.fd !== undefined) {
      // Another process appended (the length moved) or replaced the file (a new inode at the path).
      if (fstatSync(this.fd).size !== disk.size || this.inodeAtPath() !== disk.ino) this.conflict();
      return this.fd;
    }
    let fd: number;
    try {
      fd = openSync(this.path, "r+");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") this.conflict();
      throw error;
    }
    try {
      const stat = fstatSync(fd);
      if (stat.ino !== disk.ino || stat.size !== disk.size) this.conflict();
      // A torn last line from a crash is cut off before anything follows it.
      if (disk.validBytes < disk.size) {
        ftruncateSync(fd, disk.validBytes);
        disk.size = disk.validBytes;
      }
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    closeSync(fd);
    this.fd = openSync(this.path, "a");
    return this.fd;
  }

  private fileUnchanged(disk: { ino: number; size: number }): boolean {
    try {
      const stat = statSync(this.path);
      return stat.ino === disk.ino && stat.size === disk.size;
    } catch {
      return false;
    }
  }

  private inodeAtPath(): number | undefined {
    try {
      return statSync(this.path).ino;
    } catch {
      return undefined;
    }
  }

  /**
   * The file is not as this store left it. Only a readable state file is
   * another writer's (StateConflictError): a file that is gone or cannot be
   * read says nothing of a second server, and is named as what it is.
   */
  private conflict(): never {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        throw new StateStoreError(
          this.path,
          `Unexpected missing state file (removed or moved while the session ran, at revision ${this.revision}), expected the file this store wrote; the write was refused`,
        );
      }
      throw new StateStoreError(this.path, `Unexpected read failure (${(error as Error).message}), expected the state file this store wrote; the write was refused`);
    }
    let onDisk: number;
    try {
      const journal = parseJournal(bytes, this.path);
      onDisk = journal.records.at(-1)?.revision ?? journal.snapshot.revision;
    } catch (error) {
      throw new StateStoreError(
        this.path,
        `Unexpected unreadable state file (${(error as Error).message}), expected the file this store wrote at revision ${this.revision}; the write was refused`,
      );
    }
    throw new StateConflictError(
      this.path,
      `Unexpected change by another writer (revision ${onDisk} on disk, this process is at revision ${this.revision}), expected one process per session; the write was refused`,
    );
  }

  /** Writes snapshot + journal to a temp file, fsyncs it, and renames it over the state file. */
  private replaceFile(snapshotLine: string, journal: string, revision: number): void {
    // The file must still be the one this store left, at the length it left it (no one appended).
    if (this.disk !== undefined && !this.fileUnchanged(this.disk)) this.conflict();
    const temp = `${this.tempPrefix}.${this.counter++}.tmp`;
    const text = Buffer.from(snapshotLine + journal);
    let fd: number;
    try {
      fd = openSync(temp, "w");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      mkdirSync(dirname(this.path), { recursive: true });
      fd = openSync(temp, "w");
    }
    try {
      let written = 0;
      while (written < text.length) written += writeSync(fd, text, written);
      fsyncSync(fd);
      const ino = fstatSync(fd).ino;
      closeSync(fd);
      renameSync(temp, this.path);
      this.close();
      this.disk = { ino, size: text.length, validBytes: text.length, snapshotBytes: Buffer.byteLength(snapshotLine) };
      this.revision = revision;
    } catch (error) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
      rmSync(temp, { force: true });
      throw error;
    }
  }
}
