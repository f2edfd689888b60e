/**
 * The live side of the audit: the controller records transcript events as
 * they happen, the recorder folds them and appends them to the runtime's
 * session log when the host keeps one. The log is the audit's durable
 * record: a controller restarted on the same log replays it, so it audits
 * the whole session.
 */
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Task } from "../execution-state.js";
import { auditFold, emptyFold, foldEvent, type AuditFold, type AuditReport, type AuditSkill } from "./audit.js";
import { readSessionLogText } from "./readers.js";
import { knowledgeHintIds, type TranscriptEvent } from "./transcript.js";

export type SessionLogEntry = TranscriptEvent | { type: "audit"; report: AuditReport; action: "reported" | "blocked" };

/** Where a session's transcript events and audits go: one JSON object per line. */
export interface SessionLog {
  append(entry: SessionLogEntry): void;
  /** The log written so far (JSONL), for a restarted session to replay; undefined when there is none. */
  read?(): string | undefined;
}

/** The runtime's session log as a JSONL file (appended; created with its folder on first write). */
export class FileSessionLog implements SessionLog {
  constructor(readonly path: string) {}

  read(): string | undefined {
    try {
      return readFileSync(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  append(entry: SessionLogEntry): void {
    const line = `${JSON.stringify(entry)}\n`;
    try {
      appendFileSync(this.path, line);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      mkdirSync(dirname(this.path), { recursive: true });
      appendFileSync(this.path, line);
    }
  }
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

  constructor(
    private readonly skills: ReadonlyMap<string, AuditSkill>,
    private readonly log: SessionLog | undefined,
    start: SessionStart,
  ) {
    const written = log?.read?.();
    if (written !== undefined && written.trim() !== "") {
      // A restart on the same log: replay it (audit lines keep their positions too).
      const { events, lines } = readSessionLogText(written);
      for (const event of events) foldEvent(this.state.fold, event);
      this.state.count = lines;
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
    this.log?.append(event);
    return position;
  }

  /** Text the model received (a custom message or tool result): records any knowledge hints in it. */
  noteContextText(text: string): void {
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
    this.log?.append({ type: "audit", report, action });
  }

}
