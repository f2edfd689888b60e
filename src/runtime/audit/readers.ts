/**
 * Transcripts on disk, read into the audit's events: the runtime's own
 * session log (`FileSessionLog`) and Pi's session files (pi-coding-agent's
 * JSONL tree). A position is the 1-based line of the entry the event comes
 * from. A line that cannot be read (not JSON, not an object, a record the
 * format does not have) is listed with its problem and skipped, never fatal:
 * a transcript cut off mid-line is still audited up to the cut, and the
 * caller reports each such line.
 */
import { parseTaskList } from "../tasks.js";
import type { Task } from "../execution-state.js";
import { knowledgeHintIds, type PositionedEvent } from "./transcript.js";

export type TranscriptFormat = "session-log" | "pi-session";

export interface ReadTranscript {
  format: TranscriptFormat;
  events: PositionedEvent[];
  /** Lines in the text (the next position). */
  lines: number;
  /** Lines that were not JSON objects. */
  skipped: number;
  /** Every line that could not be read, in order. */
  unreadable: UnreadableLine[];
  /** The variant the session ran, when the transcript says. */
  variant?: string;
  /** The cache key of the build a Pi session file's `gamma.session` entry records (a session log has it on its session line). */
  cacheKey?: string;
  /** The line that records the variant and the build, when there is one. */
  sessionLine?: number;
}

export interface UnreadableLine {
  /** 1-based line. */
  line: number;
  /** What is wrong with it, as "Unexpected …, expected …". */
  problem: string;
  /** The last line, without a final newline, cut off inside a JSON value: a log still being written, or a copy cut short. */
  torn: boolean;
}

/** The custom entry a Gamma AgentSession writes so a Pi session file names its variant. */
export const SESSION_ENTRY_TYPE = "gamma.session";

function jsonLines(text: string): { entries: Array<{ line: number; value: Record<string, unknown> }>; lines: number; skipped: number; unreadable: UnreadableLine[] } {
  const rows = text.split("\n");
  const endsWithNewline = rows.at(-1) === "";
  if (endsWithNewline) rows.pop();
  const entries: Array<{ line: number; value: Record<string, unknown> }> = [];
  const unreadable: UnreadableLine[] = [];
  rows.forEach((row, index) => {
    if (row.trim() === "") return;
    const line = index + 1;
    try {
      const value: unknown = JSON.parse(row);
      if (typeof value === "object" && value !== null && !Array.isArray(value)) entries.push({ line, value: value as Record<string, unknown> });
      else unreadable.push({ line, problem: `Unexpected ${Array.isArray(value) ? "array" : value === null ? "null" : typeof value} line, expected a JSON object`, torn: false });
    } catch {
      const torn = !endsWithNewline && index === rows.length - 1 && /^\s*[[{]/.test(row);
      unreadable.push({ line, problem: torn ? "Unexpected last line cut off before its end, expected a complete JSON object (a log still being written, or a copy cut short)" : "Unexpected line that is not JSON, expected one JSON object per line", torn });
    }
  });
  return { entries, lines: rows.length, skipped: unreadable.length, unreadable };
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []);
const record = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/** Which kind of transcript this is, from its first entry. */
export function detectTranscriptFormat(text: string): TranscriptFormat | undefined {
  const first = jsonLines(text.slice(0, 64 * 1024).split("\n")[0] ?? "").entries[0]?.value;
  if (first?.["type"] === "session" && typeof first["variant"] === "string") return "session-log";
  if (first?.["type"] === "session" && typeof first["id"] === "string") return "pi-session";
  return undefined;
}

export function readTranscriptText(text: string): ReadTranscript | undefined {
  const format = detectTranscriptFormat(text);
  if (format === "session-log") return readSessionLogText(text);
  if (format === "pi-session") return readPiSessionText(text);
  return undefined;
}

/** Every record a runtime session log holds: the transcript events and the audit's own reports. */
const SESSION_LOG_RECORDS = new Set(["session", "skills_loaded", "skills_required", "tool_call", "tool_refused", "requirement_unmet", "tasks", "knowledge_hints", "yield", "audit"]);

export function readSessionLogText(text: string): ReadTranscript {
  const { entries, lines, skipped, unreadable } = jsonLines(text);
  const events: PositionedEvent[] = [];
  let variant: string | undefined;
  for (const { line, value } of entries) {
    if (typeof value["type"] !== "string" || !SESSION_LOG_RECORDS.has(value["type"])) {
      unreadable.push({ line, problem: `Unexpected record ${quotedType(value["type"])}, expected one of ${[...SESSION_LOG_RECORDS].join(", ")}`, torn: false });
      continue;
    }
    switch (value["type"]) {
      case "session":
        variant ??= typeof value["variant"] === "string" ? value["variant"] : undefined;
        events.push({
          type: "session",
          variant: String(value["variant"] ?? ""),
          preloadedSkills: strings(value["preloadedSkills"]),
          ...(typeof value["cacheKey"] === "string" ? { cacheKey: value["cacheKey"] } : {}),
          position: line,
        });
        break;
      case "skills_loaded":
        events.push({ type: "skills_loaded", names: strings(value["names"]), position: line });
        break;
      case "tool_call":
        events.push({ type: "tool_call", id: String(value["id"] ?? ""), name: String(value["name"] ?? ""), arguments: record(value["arguments"]), position: line });
        break;
      case "tasks": {
        const tasks = safeTasks(value["tasks"]);
        if (tasks) events.push({ type: "tasks", revision: Number(value["revision"] ?? 0), tasks, position: line });
        break;
      }
      case "knowledge_hints":
        events.push({ type: "knowledge_hints", ids: strings(value["ids"]), position: line });
        break;
      case "yield":
        events.push({ type: "yield", message: String(value["message"] ?? ""), toolCallId: String(value["toolCallId"] ?? ""), position: line });
        break;
      case "skills_required":
        events.push({ type: "skills_required", names: strings(value["names"]), scope: value["scope"] === "session" ? "session" : "turn", position: line });
        break;
      case "tool_refused":
      case "requirement_unmet":
        events.push({ type: value["type"], id: String(value["id"] ?? ""), name: String(value["name"] ?? ""), missing: strings(value["missing"]), position: line });
        break;
    }
  }
  return { format: "session-log", events, lines, skipped, unreadable: byLine(unreadable), ...(variant === undefined ? {} : { variant }) };
}

/**
 * A Pi session file: the assistant's tool calls, and their results (a call
 * whose result is an error did not happen: a refused `todo`, a conflicting
 * `skill`, a `message_user` the audit blocked). Knowledge hints are read from
 * custom messages and tool results. Pi does not store the system prompt, so
 * the variant comes from the `gamma.session` entry a Gamma session writes,
 * else from the caller.
 */
export function readPiSessionText(text: string): ReadTranscript {
  const { entries, lines, skipped, unreadable } = jsonLines(text);
  const events: PositionedEvent[] = [];
  const calls = new Map<string, { name: string; arguments: Record<string, unknown> }>();
  let variant: string | undefined;
  let cacheKey: string | undefined;
  let sessionLine: number | undefined;
  let revision = 0;
  for (const { line, value } of entries) {
    // Pi has many entry kinds the audit does not need (model changes, compactions, labels); each names its kind.
    if (typeof value["type"] !== "string" || value["type"] === "") {
      unreadable.push({ line, problem: `Unexpected record ${quotedType(value["type"])}, expected an entry with a "type"`, torn: false });
      continue;
    }
    if (value["type"] === "custom" && value["customType"] === SESSION_ENTRY_TYPE) {
      const data = record(value["data"]);
      if (typeof data["variant"] === "string") variant ??= data["variant"];
      if (typeof data["cacheKey"] === "string") cacheKey ??= data["cacheKey"];
      sessionLine ??= line;
      continue;
    }
    if (value["type"] === "custom_message") {
      hints(contentText(value["content"]), line, events);
      continue;
    }
    if (value["type"] !== "message") continue;
    const message = record(value["message"]);
    if (message["role"] === "assistant") {
      for (const part of Array.isArray(message["content"]) ? message["content"] : []) {
        const call = record(part);
        if (call["type"] !== "toolCall") continue;
        const id = String(call["id"] ?? "");
        const args = record(call["arguments"]);
        calls.set(id, { name: String(call["name"] ?? ""), arguments: args });
        events.push({ type: "tool_call", id, name: String(call["name"] ?? ""), arguments: args, position: line });
      }
    } else if (message["role"] === "toolResult") {
      const call = calls.get(String(message["toolCallId"] ?? ""));
      hints(contentText(message["content"]), line, events);
      if (call === undefined || message["isError"] === true) continue;
      if (call.name === "skill" && typeof call.arguments["name"] === "string") {
        const activated = strings(record(message["details"])["activated"] === undefined ? [] : (record(message["details"])["activated"] as unknown[]).map((skill) => record(skill)["name"]));
        events.push({ type: "skills_loaded", names: activated.length > 0 ? activated : [call.arguments["name"]], position: line });
      } else if (call.name === "todo") {
        const tasks = safeTasks(call.arguments["tasks"]);
        if (tasks) events.push({ type: "tasks", revision: ++revision, tasks, position: line });
      } else if (call.name === "message_user" && call.arguments["blockOnUser"] === true) {
        events.push({ type: "yield", message: String(call.arguments["message"] ?? ""), toolCallId: String(message["toolCallId"] ?? ""), position: line });
      }
    } else if (message["role"] === "custom" || message["role"] === "user") {
      if (message["role"] === "custom") hints(contentText(message["content"]), line, events);
    }
  }
  return {
    format: "pi-session",
    events,
    lines,
    skipped,
    unreadable: byLine(unreadable),
    ...(variant === undefined ? {} : { variant }),
    ...(cacheKey === undefined ? {} : { cacheKey }),
    ...(sessionLine === undefined ? {} : { sessionLine }),
  };
}

function safeTasks(value: unknown): Task[] | undefined {
  try {
    return parseTaskList(value);
  } catch {
    return undefined;
  }
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (record(part)["type"] === "text" ? String(record(part)["text"] ?? "") : "")).join("\n");
}

function hints(text: string, line: number, events: PositionedEvent[]): void {
  if (!/knowledge_hints/i.test(text)) return;
  const ids = knowledgeHintIds(text);
  if (ids !== undefined && ids.length > 0) events.push({ type: "knowledge_hints", ids, position: line });
}

function quotedType(type: unknown): string {
  return type === undefined ? "without a type" : `of type ${JSON.stringify(type)?.slice(0, 80) ?? String(type)}`;
}

function byLine(lines: UnreadableLine[]): UnreadableLine[] {
  return lines.sort((a, b) => a.line - b.line);
}
