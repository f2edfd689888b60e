/**
 * The state journal: what one durable change looks like, how it applies to
 * the state, and how a store reads a snapshot followed by its records back
 * into one execution state. Both built-in stores and the live controller use
 * `applyChange`, so a replayed session is the session that was running.
 */
import { DEFAULT_REMEMBERED_IDS, InjectionQueue, type QueueRecord } from "../injections/queue.js";
import type { KnowledgeSessionState } from "../knowledge/types.js";
import type { ActiveSkill, ArtifactReference, ConnectorDefinition, ExecutionState, LoadedNamespace, RequiredSkill, TaskSnapshot } from "../execution-state.js";
import { STATE_VERSION, StateConflictError, StateStoreError } from "./errors.js";
import { expectString, shownValue } from "../../protocol/arguments.js";
import { coreOf, type StateCore } from "./fields.js";

/** Reopened on another build: its cache key and the fields reconciled with it, in one record (build-change.ts). */
export interface BuildChange {
  op: "build";
  cacheKey: string;
  activeSkills: ActiveSkill[];
  tasks: TaskSnapshot;
  requiredSkills?: RequiredSkill[];
  /** The variant the session goes on with, when the build no longer defines the one it ran on. */
  variant?: string;
}

/** One durable change to the execution state. */
export type StateChange =
  | QueueRecord
  | { op: "skills"; add: ActiveSkill[] }
  | { op: "tasks"; tasks: TaskSnapshot }
  | { op: "artifacts"; artifacts: ArtifactReference[] }
  | { op: "sessionKey"; sessionKey: string }
  /** The session knowledge's whole state after a change (loaded notes, pending reports). */
  | { op: "knowledge"; knowledge: KnowledgeSessionState }
  /** The whole list of required skills after a change (invocation enforcement). */
  | { op: "required"; skills: RequiredSkill[] }
  /** Tool namespaces that joined the tool list. */
  | { op: "namespaces"; add: LoadedNamespace[] }
  /** A connector the host registered. */
  | { op: "connectorAdded"; connector: ConnectorDefinition }
  /** A connector that left the session (removed by the host, or not restorable after a restart): its tools are unloaded too. */
  | { op: "connectorRemoved"; name: string }
  /** Reopened on another build: its cache key, and what the new build lacks gone from the state (build-change.ts). */
  | BuildChange;

/** A change as a store keeps it: stamped with the revision it produces. */
export type StateRecord = StateChange & { revision: number };

export type { StateCore };

const isString = (value: unknown): boolean => typeof value === "string";
const isArray = (value: unknown): boolean => Array.isArray(value);
const isObject = (value: unknown): boolean => typeof value === "object" && value !== null && !Array.isArray(value);
// As a saved state's tasks are checked: an object holding its items.
const isTaskSnapshot = (value: unknown): boolean => isObject(value) && Array.isArray((value as { items?: unknown }).items);

/** Each operation this version writes, with the fields it needs (name, what it holds, its check). */
const RECORD_FIELDS: { readonly [op in StateChange["op"]]: ReadonlyArray<readonly [string, string, (value: unknown) => boolean]> } = {
  pending: [["add", "an object", isObject]],
  seen: [["id", "a string", isString]],
  remove: [["ids", "an array", isArray]],
  skills: [["add", "an array", isArray]],
  tasks: [["tasks", "a task snapshot", isTaskSnapshot]],
  artifacts: [["artifacts", "an array", isArray]],
  sessionKey: [["sessionKey", "a string", isString]],
  knowledge: [["knowledge", "an object", isObject]],
  required: [["skills", "an array", isArray]],
  namespaces: [["add", "an array", isArray]],
  connectorAdded: [["connector", "an object", isObject]],
  connectorRemoved: [["name", "a string", isString]],
  build: [
    ["cacheKey", "a string", isString],
    ["activeSkills", "an array", isArray],
    ["tasks", "a task snapshot", isTaskSnapshot],
  ],
};

/**
 * What keeps a stored record (an object with its revision) from being one
 * this version reads: an operation it does not write (a later version's
 * record, never to be skipped: the state would go on without that change),
 * or a known operation without a field it needs. Undefined when it reads.
 */
export function recordProblem(record: { readonly [key: string]: unknown }): string | undefined {
  const op = record["op"];
  if (typeof op !== "string" || !Object.hasOwn(RECORD_FIELDS, op)) {
    return `an operation this version does not write (${JSON.stringify(op) ?? "none"}), expected one of ${Object.keys(RECORD_FIELDS).join(", ")}`;
  }
  const missing = RECORD_FIELDS[op as StateChange["op"]].filter(([field, , check]) => !check(record[field]));
  if (missing.length === 0) return undefined;
  return `a "${op}" record without ${missing.map(([field, holds]) => `${field} (${holds})`).join(", ")}`;
}

export function applyChange(core: StateCore, queue: InjectionQueue, change: StateChange): void {
  switch (change.op) {
    case "skills":
      core.activeSkills = [...core.activeSkills, ...change.add];
      return;
    case "tasks":
      core.tasks = change.tasks;
      return;
    case "artifacts":
      core.currentArtifacts = change.artifacts;
      return;
    case "sessionKey":
      core.sessionKey = change.sessionKey;
      return;
    case "knowledge":
      core.knowledge = change.knowledge;
      return;
    case "required":
      core.requiredSkills = change.skills;
      return;
    case "namespaces":
      core.loadedNamespaces = [...(core.loadedNamespaces ?? []), ...change.add];
      return;
    case "connectorAdded":
      core.connectors = [...(core.connectors ?? []), change.connector];
      return;
    case "build":
      core.cacheKey = change.cacheKey;
      core.activeSkills = change.activeSkills;
      core.tasks = change.tasks;
      if (change.requiredSkills !== undefined) core.requiredSkills = change.requiredSkills;
      return;
    case "connectorRemoved":
      core.connectors = (core.connectors ?? []).filter((connector) => connector.name !== change.name);
      if (core.loadedNamespaces !== undefined) core.loadedNamespaces = core.loadedNamespaces.filter((namespace) => namespace.name !== change.name);
      return;
    case "pending":
    case "seen":
    case "remove":
      queue.apply(change);
      return;
    default:
      // Never skipped: a change left out would leave the state without it, and the next revision written on top.
      throw new TypeError(`Unexpected state change ${JSON.stringify((change as { op?: unknown }).op)}, expected an operation this version writes`);
  }
}

/** The processed ids a snapshot stores for idempotency across restarts. */
export function seenIdsOf(state: ExecutionState): string[] {
  const log = state.injectionLog;
  if (typeof log !== "object" || log === null || Array.isArray(log)) return [];
  const ids = log["seenIds"];
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
}

/** A snapshot followed by its records, read back into one state; revisions must follow one another. */
export function replay(snapshot: ExecutionState, records: readonly StateRecord[], location: string): ExecutionState {
  if (records.length === 0) return snapshot;
  const queue = new InjectionQueue({ pending: snapshot.pendingInjections, seenIds: seenIdsOf(snapshot) }, { rememberIds: DEFAULT_REMEMBERED_IDS });
  const core = coreOf(snapshot);
  let revision = snapshot.revision;
  let variant = snapshot.variant;
  for (const record of records) {
    if (record.revision !== revision + 1) {
      if (record.revision <= revision) {
        throw new StateConflictError(
          location,
          `Unexpected revision ${record.revision} after revision ${revision}, expected ${revision + 1}: two processes wrote this session's state; it is refused rather than merged`,
        );
      }
      throw new StateStoreError(location, `Unexpected revision ${record.revision} after revision ${revision}, expected ${revision + 1} (a record is missing)`);
    }
    const problem = recordProblem(record as unknown as { readonly [key: string]: unknown });
    if (problem !== undefined) {
      throw new StateStoreError(location, `Unexpected record of revision ${record.revision} holding ${problem}: it was written by another version of gamma-prompt (or not by gamma-prompt); open the session with the version that wrote it`);
    }
    applyChange(core, queue, record);
    // The variant is bookkeeping, not a core field: only a build change that dropped it sets it.
    if (record.op === "build" && record.variant !== undefined) variant = record.variant;
    revision = record.revision;
  }
  const { pending, seenIds } = queue.snapshot();
  return { ...snapshot, ...core, variant, revision, pendingInjections: pending, injectionLog: { seenIds } };
}

/**
 * `replay` for a host's own store: the snapshot and records it kept, checked
 * first. A wrong argument is a TypeError naming it; a snapshot or a record
 * that is not what a store keeps is a StateStoreError naming the location and
 * what is wrong, as a built-in store reports what it read.
 */
export function replayState(snapshot: ExecutionState, records: readonly StateRecord[], location: string): ExecutionState {
  expectString(location, "location", "where the state is kept, as errors name it (a file's path, a row's key)", true);
  if (!Array.isArray(records as unknown)) throw new TypeError(`Unexpected records ${shownValue(records)}, expected an array of the journal records stored after the snapshot (empty for none)`);
  const state = checkState(snapshot, location);
  records.forEach((record: unknown, index) => {
    if (typeof record !== "object" || record === null || typeof (record as { revision?: unknown }).revision !== "number" || typeof (record as { op?: unknown }).op !== "string") {
      throw new StateStoreError(location, `Unexpected records[${index}] ${shownValue(record)}, expected a journal record {"revision": n, "op": ...} as the store was given it`);
    }
  });
  return replay(state, records, location);
}

/** Checks that a parsed value is a saved execution state. */
export function checkState(value: unknown, location: string): ExecutionState {
  const fail = (what: string): never => {
    throw new StateStoreError(location, `Unexpected ${what}, expected a saved execution state (stateVersion ${STATE_VERSION})`);
  };
  if (typeof value !== "object" || value === null) return fail("non-object value");
  const state = value as Partial<ExecutionState>;
  if (state.stateVersion !== STATE_VERSION) fail(`stateVersion ${JSON.stringify(state.stateVersion)}`);
  if (typeof state.revision !== "number") fail("missing revision");
  if (typeof state.variant !== "string") fail("missing variant");
  if (!Array.isArray(state.activeSkills)) fail("missing activeSkills");
  if (typeof state.tasks !== "object" || state.tasks === null || !Array.isArray(state.tasks.items)) fail("missing tasks");
  if (!Array.isArray(state.pendingInjections)) fail("missing pendingInjections");
  if (!Array.isArray(state.currentArtifacts)) fail("missing currentArtifacts");
  return state as ExecutionState;
}

export function checkRecord(value: unknown, location: string, line: number): StateRecord {
  if (typeof value !== "object" || value === null || typeof (value as { revision?: unknown }).revision !== "number" || typeof (value as { op?: unknown }).op !== "string") {
    throw new StateStoreError(location, `Unexpected line ${line} that is not a journal record, expected {"revision": n, "op": ...}`);
  }
  const problem = recordProblem(value as { readonly [key: string]: unknown });
  if (problem !== undefined) {
    throw new StateStoreError(location, `Unexpected line ${line} holding ${problem}: it was written by another version of gamma-prompt (or not by gamma-prompt); open the session with the version that wrote it`);
  }
  return value as StateRecord;
}

export interface ParsedJournal {
  snapshot: ExecutionState;
  records: StateRecord[];
  /** Bytes of whole lines (snapshot and complete records). */
  validBytes: number;
  /** Bytes after the last complete record: a write cut short by a crash. */
  tornBytes: number;
}

/**
 * A state file: the snapshot on the first line, then one record per line.
 * An unterminated last line is a torn write: it is ignored (and reported by
 * the caller); a broken line before it is corruption and refused.
 */
export function parseJournal(bytes: Buffer, location: string): ParsedJournal {
  const firstBreak = bytes.indexOf(0x0a);
  const snapshotEnd = firstBreak === -1 ? bytes.length : firstBreak;
  const snapshot = checkState(parseJson(bytes.subarray(0, snapshotEnd), location, "Unexpected text that is not JSON, expected a saved execution state"), location);
  const records: StateRecord[] = [];
  let start = firstBreak === -1 ? bytes.length : firstBreak + 1;
  let line = 2;
  while (start < bytes.length) {
    const end = bytes.indexOf(0x0a, start);
    if (end === -1) break;
    const value = parseJson(bytes.subarray(start, end), location, `Unexpected line ${line} that is not JSON, expected a journal record`);
    records.push(checkRecord(value, location, line));
    start = end + 1;
    line++;
  }
  return { snapshot, records, validBytes: start, tornBytes: bytes.length - start };
}

function parseJson(bytes: Buffer, location: string, message: string): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new StateStoreError(location, message);
  }
}
