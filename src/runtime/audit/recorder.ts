/**
 * The live side of the audit: the controller records transcript events as
 * they happen, the recorder folds them and appends them to the runtime's
 * session log when the host keeps one. The log is the audit's durable
 * record: a controller restarted on the same log replays it, so it audits
 * the whole session.
 */
import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { expectPath } from "../../protocol/arguments.js";
import type { Task } from "../execution-state.js";
import { auditFold, emptyFold, foldEvent, type AuditFold, type AuditReport, type AuditSkill } from "./audit.js";
import { readSessionLogText } from "./readers.js";
import { knowledgeHintIds, type TranscriptEvent } from "./transcript.js";

export type SessionLogEntry = TranscriptEvent | { type: "audit"; report: AuditReport; action: "reported" | "blocked" };

/**
 * Where a session's transcript events and audits go: one JSON object per
 * line. An `append` that throws stops the session (see AuditRecorder): the
 * log is not written again, so it never holds a later line after a gap.
 */
export interface SessionLog {
  append(entry: SessionLogEntry): void;
  /** The log written so far (JSONL), for a restarted session to replay; undefined when there is none. */
  read?(): string | undefined;
}

/**
 * The runtime's session log as a JSONL file (appended; created with its
 * folder on first write). Each record is written whole or not at all: a
 * write that fails part-way (a full disk) is cut back off the file before the
 * error is thrown, and a torn last line left by a process that died
 * mid-write is cut away when the file is read for a replay or before this
 * log's first append, so no record is ever appended after a torn line.
 */
export class FileSessionLog implements SessionLog {
  /** Whether the file's tail was checked for a torn last line (once per log, before its first append). */
  private checkedTail = false;

  /** The log file's path (a `file:` URL given to the constructor, as its path). */
  readonly path: string;

  constructor(path: string | URL) {
    this.path = expectPath(path, "FileSessionLog path", 'the log file\'s path, such as "sessions/deck-42.jsonl", or its file: URL');
  }

  read(): string | undefined {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return undefined;
      // Said as the log's problem: the session is being opened, and the option is what the host has to change.
      const what = code === "EISDIR" ? "folder" : `unreadable file (${code ?? String(error)})`;
      throw new Error(`Unexpected ${what} at the session log's path ${this.path}, expected a readable JSONL file or no file yet (FileSessionLog path)`, { cause: error });
    }
    // A torn last line (no final newline) is a record that was never written whole: it is not part of the log.
    return text.slice(0, text.lastIndexOf("\n") + 1);
  }

  append(entry: SessionLogEntry): void {
    const line = Buffer.from(`${JSON.stringify(entry)}\n`, "utf8");
    let fd: number;
    try {
      fd = openSync(this.path, "a+");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      mkdirSync(dirname(this.path), { recursive: true });
      fd = openSync(this.path, "a+");
    }
    try {
      let size = fstatSync(fd).size;
      if (!this.checkedTail) {
        size = cutTornTail(fd, size);
        this.checkedTail = true;
      }
      try {
        for (let written = 0; written < line.length; ) written += writeSync(fd, line, written, line.length - written);
      } catch (error) {
        // Cut back what part of the record reached the file; if that fails too, the next open cuts it.
        try {
          ftruncateSync(fd, size);
        } catch {
          // the torn tail stays until the log is opened again
        }
        throw error;
      }
    } finally {
      closeSync(fd);
    }
  }
}

/** Cuts a last line without its final newline off an open log; returns the size that is left. */
function cutTornTail(fd: number, size: number): number {
  if (size === 0) return 0;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  if (last[0] === 0x0a) return size;
  // Read back from the end in blocks until a newline (or the start of the file) is found.
  const block = Buffer.alloc(4096);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - block.length);
    readSync(fd, block, 0, end - start, start);
    const at = block.subarray(0, end - start).lastIndexOf(0x0a);
    if (at >= 0) {
      ftruncateSync(fd, start + at + 1);
      return start + at + 1;
    }
    end = start;
  }
  ftruncateSync(fd, 0);
  return 0;
}

interface RecorderState {
  /** Events recorded so far: the next event's position is `count + 1`. */
  count: number;
  fold: AuditFold;
}

/** How a session starts: its variant and preloaded skills; on a restore, the active skills and tasks it had. */
export interface SessionStart {
  variant: string;
  preloadedSkills: string[];
  cacheKey?: string;
  restored?: { activeSkills: string[]; tasks: Task[] };
}

export class AuditRecorder {
  private readonly state: RecorderState = { count: 0, fold: emptyFold() };
  /** Set once the log refused an append: nothing more is written to it. */
  private logFailed = false;
  /** Whether the fold was replayed from a log the session wrote before (a restart on the same log). */
  private readonly replayed: boolean = false;

  /**
   * `onLogFailure` hears of the first append the log refused (the controller
   * stops the session with it); the recorder keeps folding in memory but
   * writes nothing more to that log.
   */
  constructor(
    private readonly skills: ReadonlyMap<string, AuditSkill>,
    private readonly log: SessionLog | undefined,
    start: SessionStart,
    private readonly onLogFailure: (error: unknown) => void = (error) => {
      throw error;
    },
  ) {
    const written = log?.read?.();
    if (written !== undefined && written.trim() !== "") {
      // A restart on the same log: replay it (audit lines keep their positions too).
      const { events, lines } = readSessionLogText(written);
      for (const event of events) foldEvent(this.state.fold, event);
      this.state.count = lines;
      this.replayed = true;
      return;
    }
    this.record({ type: "session", variant: start.variant, preloadedSkills: start.preloadedSkills, ...(start.cacheKey === undefined ? {} : { cacheKey: start.cacheKey }) });
    if (start.restored !== undefined) {
      // Restored without a log: the state's skills and tasks are known, the order of earlier calls is not.
      const extra = start.restored.activeSkills.filter((name) => !start.preloadedSkills.includes(name));
      if (extra.length > 0) this.record({ type: "skills_loaded", names: extra });
      if (start.restored.tasks.length > 0) this.record({ type: "tasks", revision: 0, tasks: start.restored.tasks });
    }
  }

  /** Folds one event and appends it to the log; returns its position. */
  record(event: TranscriptEvent): number {
    const position = ++this.state.count;
    foldEvent(this.state.fold, { ...event, position });
    this.append(event);
    return position;
  }

  /**
   * A reopen on another build changed the state the replayed log describes:
   * the log says so, with the skills active now and the task list when it
   * changed, so the audit judges the skills the session has (a skill the
   * build dropped leaves the audit's workflows, one it requires joins them).
   * A session that replayed no log recorded its state as it started.
   */
  recordBuildChange(build: { cacheKey: string; variant: string }, activeSkills: readonly string[], tasks: { revision: number; items: readonly Task[] }): void {
    if (!this.replayed) return;
    this.record({ type: "build_changed", cacheKey: build.cacheKey, variant: build.variant, activeSkills: [...activeSkills] });
    if (JSON.stringify(tasks.items) !== JSON.stringify(this.state.fold.tasks)) this.record({ type: "tasks", revision: tasks.revision, tasks: tasks.items.map((task) => ({ ...task })) });
  }

  /** The text of the runtime's knowledge hints message, as the model received it: records the hinted ids. */
  noteKnowledgeHints(text: string): void {
    if (!/knowledge_hints/i.test(text)) return;
    const ids = knowledgeHintIds(text);
    if (ids !== undefined && ids.length > 0) this.record({ type: "knowledge_hints", ids });
  }

  audit(yieldPosition: number): AuditReport {
    return auditFold(this.state.fold, this.skills, yieldPosition);
  }

  /** Whether a task action ran without a required skill: the audit has something to say even with no workflow active. */
  get hasUnmetRequirements(): boolean {
    return (this.state.fold.unmet?.length ?? 0) > 0;
  }

  /** The position the next recorded event will get. */
  get nextPosition(): number {
    return this.state.count + 1;
  }

  /** Appends an audit to the log; it takes a position too, so live positions equal the log's line numbers. */
  logAudit(report: AuditReport, action: "reported" | "blocked"): void {
    this.state.count += 1;
    this.append({ type: "audit", report, action });
  }

  private append(entry: SessionLogEntry): void {
    if (this.log === undefined || this.logFailed) return;
    try {
      this.log.append(entry);
    } catch (error) {
      this.logFailed = true;
      this.onLogFailure(error);
    }
  }

}
