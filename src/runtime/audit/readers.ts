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
import { KNOWLEDGE_HINTS_CUSTOM_TYPE } from "../messages.js";
import { knowledgeHintIds, toolCallsRan, type PositionedEvent } from "./transcript.js";

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
  // A byte order mark an editor put before the first line is no part of its JSON.
  const rows = (text.startsWith("\uFEFF") ? text.slice(1) : text).split("\n");
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

const record = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/** What a field of a record must hold. */
type FieldType = "string" | "strings" | "object" | "count" | "scope";
/** A field's type, with `?` when the field may be absent. */
type FieldSpec = FieldType | `${FieldType}?`;

/**
 * The fields of each session-log record the audit reads, as the runtime writes
 * them. A record whose field is of another type is unreadable, never read as
 * empty: a `names` that is no list would otherwise read as "no skill loaded"
 * and a failing session could pass its audit.
 */
const SESSION_LOG_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldSpec>>>> = {
  session: { variant: "string", preloadedSkills: "strings?", cacheKey: "string?" },
  skills_loaded: { names: "strings" },
  build_changed: { cacheKey: "string", variant: "string", activeSkills: "strings" },
  skills_required: { names: "strings", scope: "scope" },
  tool_call: { id: "string", name: "string", arguments: "object" },
  tool_refused: { id: "string", name: "string", missing: "strings" },
  requirement_unmet: { id: "string", name: "string", missing: "strings" },
  tasks: { revision: "count" },
  knowledge_hints: { ids: "strings" },
  yield: { message: "string", toolCallId: "string" },
  audit: {},
};

function fieldProblem(value: Record<string, unknown>, fields: Readonly<Record<string, FieldSpec>>): string | undefined {
  for (const [field, spec] of Object.entries(fields)) {
    const given = value[field];
    if (given === undefined && spec.endsWith("?")) continue;
    const type = spec.replace(/\?$/, "") as FieldType;
    if (!FIELD_CHECKS[type].fits(given)) return `Unexpected ${JSON.stringify(value["type"])} record whose "${field}" is ${described(given)}, expected ${FIELD_CHECKS[type].expected}`;
  }
  return undefined;
}

const FIELD_CHECKS: Readonly<Record<FieldType, { fits: (given: unknown) => boolean; expected: string }>> = {
  string: { fits: (given) => typeof given === "string", expected: "a string" },
  strings: { fits: (given) => Array.isArray(given) && given.every((item) => typeof item === "string"), expected: "a list of strings" },
  object: { fits: (given) => typeof given === "object" && given !== null && !Array.isArray(given), expected: "a JSON object" },
  count: { fits: (given) => Number.isSafeInteger(given) && (given as number) >= 0, expected: "a whole number from 0" },
  scope: { fits: (given) => given === "turn" || given === "session", expected: '"turn" or "session"' },
};

function described(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list holding something else";
  return typeof value === "object" ? "an object" : `${typeof value === "string" ? "the string" : `the ${typeof value}`} ${JSON.stringify(value).slice(0, 40)}`;
}

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
const SESSION_LOG_RECORDS = new Set(["session", "skills_loaded", "build_changed", "skills_required", "tool_call", "tool_refused", "requirement_unmet", "tasks", "knowledge_hints", "yield", "audit"]);

export function readSessionLogText(text: string): ReadTranscript {
  const { entries, lines, skipped, unreadable } = jsonLines(text);
  const events: PositionedEvent[] = [];
  let variant: string | undefined;
  for (const { line, value } of entries) {
    if (typeof value["type"] !== "string" || !SESSION_LOG_RECORDS.has(value["type"])) {
      unreadable.push({ line, problem: `Unexpected record ${quotedType(value["type"])}, expected one of ${[...SESSION_LOG_RECORDS].join(", ")}`, torn: false });
      continue;
    }
    const problem = fieldProblem(value, SESSION_LOG_FIELDS[value["type"]] ?? {});
    if (problem !== undefined) {
      unreadable.push({ line, problem, torn: false });
      continue;
    }
    const event = sessionLogEvent(value, line);
    if (typeof event === "string") unreadable.push({ line, problem: event, torn: false });
    else if (event !== undefined) {
      if (event.type === "session") variant ??= event.variant;
      events.push(event);
    }
  }
  return { format: "session-log", events, lines, skipped, unreadable: byLine(unreadable), ...(variant === undefined ? {} : { variant }) };
}

/** A session-log record whose fields passed their check, as the audit's event; a problem's text when its task list does not parse; undefined for the audit's own records. */
function sessionLogEvent(value: Record<string, unknown>, position: number): PositionedEvent | string | undefined {
  const text = (field: string): string => value[field] as string;
  const list = (field: string): string[] => (value[field] as string[] | undefined) ?? [];
  switch (value["type"]) {
    case "session":
      // A log without the field (an older or hand-made one) leaves the preloaded skills to the audited build's variant.
      return {
        type: "session",
        variant: text("variant"),
        preloadedSkills: list("preloadedSkills"),
        ...(value["preloadedSkills"] === undefined ? { preloadedUnrecorded: true } : {}),
        ...(typeof value["cacheKey"] === "string" ? { cacheKey: value["cacheKey"] } : {}),
        position,
      };
    case "skills_loaded":
      return { type: "skills_loaded", names: list("names"), position };
    case "build_changed":
      return { type: "build_changed", cacheKey: text("cacheKey"), variant: text("variant"), activeSkills: list("activeSkills"), position };
    case "tool_call":
      return { type: "tool_call", id: text("id"), name: text("name"), arguments: record(value["arguments"]), position };
    case "tasks": {
      const tasks = taskListOrProblem(value["tasks"]);
      return typeof tasks === "string" ? tasks : { type: "tasks", revision: value["revision"] as number, tasks, position };
    }
    case "knowledge_hints":
      return { type: "knowledge_hints", ids: list("ids"), position };
    case "yield":
      return { type: "yield", message: text("message"), toolCallId: text("toolCallId"), position };
    case "skills_required":
      return { type: "skills_required", names: list("names"), scope: value["scope"] as "turn" | "session", position };
    case "tool_refused":
    case "requirement_unmet":
      return { type: value["type"], id: text("id"), name: text("name"), missing: list("missing"), position };
    default:
      return undefined;
  }
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
      // A field of another type is a damaged entry, told as such: read as absent, it would send the audit after another variant.
      const damaged = ["variant", "cacheKey"].filter((field) => data[field] !== undefined && typeof data[field] !== "string");
      if (damaged.length > 0) unreadable.push({ line, problem: `Unexpected ${SESSION_ENTRY_TYPE} entry whose ${damaged.join(" and ")} ${damaged.length === 1 ? "is" : "are"} no string, expected the variant and cache key the session wrote`, torn: false });
      if (typeof data["variant"] === "string") variant ??= data["variant"];
      if (typeof data["cacheKey"] === "string") cacheKey ??= data["cacheKey"];
      sessionLine ??= line;
      continue;
    }
    if (value["type"] === "custom_message") {
      if (isHintsMessage(value["customType"], value["details"])) hints(contentText(value["content"]), line, events);
      continue;
    }
    if (value["type"] !== "message") continue;
    const message = record(value["message"]);
    if (message["role"] === "assistant") {
      // Calls of a failed, aborted or cut message never ran (a tool result Pi made for a cut one is an error).
      if (!toolCallsRan(message["stopReason"])) continue;
      for (const part of Array.isArray(message["content"]) ? message["content"] : []) {
        const call = record(part);
        if (call["type"] !== "toolCall") continue;
        const problem = fieldProblem(call, PI_TOOL_CALL_FIELDS);
        if (problem !== undefined) {
          unreadable.push({ line, problem, torn: false });
          continue;
        }
        const id = call["id"] as string;
        const args = record(call["arguments"]);
        calls.set(id, { name: call["name"] as string, arguments: args });
        events.push({ type: "tool_call", id, name: call["name"] as string, arguments: args, position: line });
      }
    } else if (message["role"] === "toolResult") {
      const call = calls.get(String(message["toolCallId"] ?? ""));
      if (call === undefined || message["isError"] === true) continue;
      if (call.name === "skill" && typeof call.arguments["name"] === "string") {
        const activated = activatedSkills(record(message["details"])["activated"]);
        if (activated === undefined) unreadable.push({ line, problem: 'Unexpected "skill" tool result whose details.activated is no list of {name} objects, expected the skills the call activated', torn: false });
        else events.push({ type: "skills_loaded", names: activated.length > 0 ? activated : [call.arguments["name"]], position: line });
      } else if (call.name === "todo") {
        // The runtime took this call (its result is no error), so a task list it cannot have taken is a damaged file.
        const tasks = taskListOrProblem(call.arguments["tasks"]);
        if (typeof tasks === "string") unreadable.push({ line, problem: `${tasks} (in a "todo" call the runtime took)`, torn: false });
        else events.push({ type: "tasks", revision: ++revision, tasks, position: line });
      } else if (call.name === "message_user" && call.arguments["blockOnUser"] === true) {
        events.push({ type: "yield", message: String(call.arguments["message"] ?? ""), toolCallId: String(message["toolCallId"] ?? ""), position: line });
      }
    } else if (message["role"] === "custom" || message["role"] === "user") {
      if (message["role"] === "custom" && isHintsMessage(message["customType"], message["details"])) hints(contentText(message["content"]), line, events);
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

/** The fields of a Pi tool call the audit reads. */
const PI_TOOL_CALL_FIELDS: Readonly<Record<string, FieldSpec>> = { id: "string", name: "string", arguments: "object" };

/** The task list, or what is wrong with it ("Unexpected …"). */
function taskListOrProblem(value: unknown): Task[] | string {
  try {
    return parseTaskList(value);
  } catch (error) {
    return (error as Error).message.replace(/\.$/, "");
  }
}

/** The names a `skill` result's details say it activated ([] when it says nothing); undefined when they are no list of {name} objects. */
function activatedSkills(activated: unknown): string[] | undefined {
  if (activated === undefined) return [];
  if (!Array.isArray(activated)) return undefined;
  const names = activated.map((skill) => record(skill)["name"]);
  return names.every((name): name is string => typeof name === "string") ? names : undefined;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (record(part)["type"] === "text" ? String(record(part)["text"] ?? "") : "")).join("\n");
}

/**
 * The runtime's own knowledge hints: a `gamma.knowledge_hints` message it marked trusted. A hints block in
 * anything else (a tool's output, a web page, a host's message) is text the model read, not hints the
 * session showed: counted, it would fail the audit of a session that showed none, with ids of its choosing.
 */
function isHintsMessage(customType: unknown, details: unknown): boolean {
  return customType === KNOWLEDGE_HINTS_CUSTOM_TYPE && record(details)["trusted"] === true;
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
