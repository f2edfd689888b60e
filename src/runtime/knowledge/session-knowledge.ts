/**
 * The knowledge of one session: the notes it holds (compiled and live),
 * which of them the model loaded, candidate selection per turn, the trusted
 * `knowledge_hints` message, and what `read_workspace_rule` returns and
 * records. Pi-free; its state lives in the controller's durable
 * ExecutionState, so loaded notes survive compaction and restart.
 *
 * Lifetime: a loaded note stays active for the session while its revision is
 * unchanged and is never hinted again; a changed revision is hinted again as
 * "changed"; a removed note is reported once and forgotten. After compaction
 * or reload the anchor lists the loaded notes and the model re-fetches one
 * only when it needs the body again; a changed one it lists with the
 * revision the session has now, as changed since the model read it.
 */
import { readFileSync } from "node:fs";
import { expectFunction, expectInteger, expectObject, shownValue } from "../../protocol/arguments.js";
import { DEFAULT_INLINE_BYTES } from "../../protocol/knowledge.js";
import type { ExecutionState } from "../execution-state.js";
import { createTrustedMessage, KNOWLEDGE_HINTS_KIND, type GammaCustomMessage } from "../messages.js";
import { escapeXml } from "../../protocol/xml-escape.js";
import { neutraliseReservedTags } from "../injections/neutralise.js";
import type { ToolOutcome } from "../tools.js";
import type { ProtocolEvent } from "../yield.js";
import type { LoadedKnowledge } from "./artifacts.js";
import { acceptLiveNote, type KnowledgeNote } from "./notes.js";
import { MiniSearchSelector, type KnowledgeSelector } from "./selector.js";
import { emptyKnowledgeState, type KnowledgeNotice, type KnowledgeSessionState, type LoadedNoteRecord } from "./types.js";

export const KNOWLEDGE_HINTS_TYPE = KNOWLEDGE_HINTS_KIND;
export const BLOCKING_LINE = "BLOCKING: Fetch each matching unread note before the first task action.";

export interface KnowledgeOptions {
  /** Replaces the default MiniSearch ranking. */
  selector?: KnowledgeSelector;
  /** Most new notes hinted at once (changed and removed notes are always reported). Default 5. */
  maxHints?: number;
  /**
   * The path the host's `read` tool opens for a note whose body is over the
   * inline limit. Default: the note's own path (the verified dist/ file for a
   * compiled note, the `path` the host gave for a live one).
   */
  resolvePath?: (note: Readonly<KnowledgeNote>) => string | undefined;
}

/** What the session knowledge needs from the controller (structural, so the two stay loosely coupled). */
export interface KnowledgeHost {
  /** The durable state as it is now (the fields the knowledge reads). */
  readonly state: Readonly<Pick<ExecutionState, "activeSkills" | "currentArtifacts" | "knowledge">>;
  saveKnowledge(state: KnowledgeSessionState): void;
  emit(event: ProtocolEvent): void;
  now(): number;
}

const SELECTOR_EXPECTED = "an object { update(change), select(query) } whose select returns note ids (an array of strings) synchronously";

/**
 * A host's selector, checked when the session is created as far as it can be
 * there: both methods present and neither declared `async` (the hints are
 * made while the turn's messages are, which does not wait). What `select`
 * returns is checked at each turn ({@link selectedIds}).
 */
/** Refuses options a plain-JavaScript host got wrong, naming the option, before any session uses them. */
function checkKnowledgeOptions(options: KnowledgeOptions): void {
  expectObject(options, "knowledge", "an object such as { maxHints: 5 }");
  if (options.selector !== undefined) checkSelector(options.selector);
  // NaN would hint every note at once, and a negative count none, quietly.
  if (options.maxHints !== undefined) expectInteger(options.maxHints, "knowledge.maxHints", 0);
  if (options.resolvePath !== undefined) expectFunction(options.resolvePath, "knowledge.resolvePath", "a function that takes a note and returns the path the host's read tool opens");
}

function checkSelector(selector: unknown): void {
  expectObject(selector, "knowledge.selector", SELECTOR_EXPECTED);
  for (const method of ["update", "select"] as const) {
    const value = selector[method];
    expectFunction(value, `knowledge.selector.${method}`, `a function (${SELECTOR_EXPECTED})`);
    const kind = (value as { constructor?: { name?: unknown } }).constructor?.name;
    if (kind === "AsyncFunction" || kind === "AsyncGeneratorFunction") {
      throw new TypeError(`Unexpected async function for knowledge.selector.${method}, expected a synchronous one: ${SELECTOR_EXPECTED} (hints are made as the turn's messages are; index ahead of time, in update, instead)`);
    }
  }
}

/** What `select` returned, checked: note ids, best first. A promise or anything but strings is refused, naming what it was. */
function selectedIds(selected: unknown): string[] {
  if (typeof (selected as { then?: unknown } | null | undefined)?.then === "function") {
    // Nobody waits for it: a rejection would otherwise end the host's process.
    (selected as PromiseLike<unknown>).then(undefined, () => {});
    throw new TypeError(`Unexpected promise from knowledge.selector.select, expected ${SELECTOR_EXPECTED}`);
  }
  if (!Array.isArray(selected)) throw new TypeError(`Unexpected result from knowledge.selector.select: ${shownValue(selected)}, expected ${SELECTOR_EXPECTED}`);
  const index = selected.findIndex((entry) => typeof entry !== "string");
  if (index !== -1) throw new TypeError(`Unexpected result from knowledge.selector.select: its entry ${index} is ${shownValue(selected[index])}, not a note id; expected ${SELECTOR_EXPECTED}`);
  return selected as string[];
}

/**
 * Hands a change to the selector. `update` typed as returning void still
 * accepts a function that returns a promise; such an update has not applied
 * the change when the next `select` runs, so it is refused as an `async` one
 * is, and its rejection is handled here: nobody else waits for it, and it
 * would otherwise end the host's process.
 */
function updateSelector(selector: KnowledgeSelector, change: Parameters<KnowledgeSelector["update"]>[0]): void {
  const returned: unknown = selector.update(change);
  if (typeof (returned as { then?: unknown } | null | undefined)?.then === "function") {
    (returned as PromiseLike<unknown>).then(undefined, () => {});
    throw new TypeError(`Unexpected promise from knowledge.selector.update, expected ${SELECTOR_EXPECTED}, and an update that applies the change before it returns`);
  }
}

/** A refusal the model reads as the tool's error result; it names nothing but the requested id. */
export class KnowledgeToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KnowledgeToolError";
  }
}

type HintStatus = "new" | "changed" | "removed";

interface Hint {
  id: string;
  name: string;
  status: HintStatus;
  note?: KnowledgeNote;
}

export class SessionKnowledge {
  private readonly notes = new Map<string, KnowledgeNote>();
  private readonly selector: KnowledgeSelector;
  private readonly maxHints: number;
  private readonly inlineBytes: number;

  constructor(
    private readonly host: KnowledgeHost,
    /** Absent for artifacts assembled by hand without knowledge: no compiled notes, the default inline limit. */
    compiled: LoadedKnowledge | undefined,
    private readonly options: KnowledgeOptions = {},
  ) {
    checkKnowledgeOptions(options);
    this.selector = options.selector ?? new MiniSearchSelector();
    this.maxHints = options.maxHints ?? 5;
    this.inlineBytes = compiled?.inlineBytes ?? DEFAULT_INLINE_BYTES;
    for (const note of compiled?.notes.values() ?? []) this.notes.set(note.id, note);
    updateSelector(this.selector, { upsert: [...this.notes.values()], remove: [] });
    this.reconcileCompiled();
  }

  /** Every note this session can serve, sorted by id. */
  list(): KnowledgeNote[] {
    return [...this.notes.values()].sort((a, b) => compare(a.id, b.id));
  }

  get(id: string): KnowledgeNote | undefined {
    return this.notes.get(id);
  }

  /** Notes the model loaded in this session (durable). */
  loaded(): readonly LoadedNoteRecord[] {
    return this.session().loaded;
  }

  // ---- live notes -------------------------------------------------------------------------

  /**
   * Registers or updates a live note (validated at the boundary; throws
   * KnowledgeNoteRejectedError). A new revision of a loaded note is reported
   * as changed with the next hints.
   */
  registerNote(raw: unknown): "added" | "updated" | "unchanged" {
    const note = acceptLiveNote(raw);
    const previous = this.notes.get(note.id);
    if (previous !== undefined && previous.revision === note.revision && sameFields(previous, note)) return "unchanged";
    // The selector first: a refused update leaves the session's notes as they were.
    updateSelector(this.selector, { upsert: [note], remove: [] });
    this.notes.set(note.id, note);
    const state = this.session();
    const loaded = state.loaded.find((record) => record.id === note.id);
    if (loaded !== undefined && loaded.revision !== note.revision) {
      loaded.changedTo = note.revision;
      this.notice(state, { id: note.id, name: note.name, status: "changed" });
    } else {
      if (loaded?.changedTo !== undefined) {
        // Back to the revision the model read: in force again, and nothing left to report.
        delete loaded.changedTo;
        state.notices = state.notices.filter((notice) => notice.id !== note.id || notice.status !== "changed");
      }
      this.save(state);
    }
    return previous === undefined ? "added" : "updated";
  }

  /** Removes a note; if the model loaded or was hinted it, the removal is reported once. */
  removeNote(id: string): boolean {
    const note = this.notes.get(id);
    if (note === undefined) return false;
    updateSelector(this.selector, { upsert: [], remove: [id] });
    this.notes.delete(id);
    const state = this.session();
    const known = state.loaded.some((record) => record.id === id) || state.hintedThisTurn.includes(id);
    state.loaded = state.loaded.filter((record) => record.id !== id);
    state.hintedThisTurn = state.hintedThisTurn.filter((hinted) => hinted !== id);
    if (known) this.notice(state, { id, name: note.name, status: "removed" });
    else {
      state.notices = state.notices.filter((notice) => notice.id !== id);
      this.save(state);
    }
    return true;
  }

  // ---- hints ------------------------------------------------------------------------------

  /** The hints that travel with a user turn (undefined when there is nothing to hint). */
  hintsForTurn(text: string): GammaCustomMessage | undefined {
    // No note and nothing to report: nothing to select, nothing to persist.
    if (this.notes.size === 0 && (this.host.state.knowledge?.notices.length ?? 0) === 0) return undefined;
    const state = this.session();
    state.lastTurnText = text;
    state.hintedThisTurn = [];
    return this.hint(state, "turn");
  }

  /**
   * After a tool batch: when the active skills or current artifacts changed
   * since the last selection, or a note changed or went away, the hints to
   * steer in before the next model call.
   */
  atBatchEnd(): GammaCustomMessage | undefined {
    if (this.notes.size === 0 && (this.host.state.knowledge?.notices.length ?? 0) === 0) return undefined;
    const state = this.session();
    if (state.notices.length === 0 && state.selectionContext === this.selectionContext()) return undefined;
    return this.hint(state, "context");
  }

  private hint(state: KnowledgeSessionState, trigger: "turn" | "context"): GammaCustomMessage | undefined {
    state.selectionContext = this.selectionContext();
    const hints: Hint[] = [];
    const reported = new Set<string>();
    for (const notice of state.notices) {
      const note = this.notes.get(notice.id);
      if (notice.status === "changed" && note === undefined) continue;
      hints.push(notice.status === "changed" && note ? { id: notice.id, name: note.name, status: "changed", note } : { id: notice.id, name: notice.name, status: notice.status });
      reported.add(notice.id);
    }
    const loaded = new Map(state.loaded.map((record) => [record.id, record.revision]));
    const already = new Set(state.hintedThisTurn);
    let fresh = 0;
    for (const id of selectedIds(this.selector.select(this.query(state.lastTurnText)))) {
      if (fresh >= this.maxHints) break;
      const note = this.notes.get(id);
      if (note === undefined || reported.has(id) || already.has(id)) continue;
      const revision = loaded.get(id);
      if (revision === note.revision) continue;
      hints.push({ id, name: note.name, status: revision === undefined ? "new" : "changed", note });
      reported.add(id);
      fresh++;
    }
    state.notices = [];
    if (hints.length === 0) {
      this.save(state);
      return undefined;
    }
    for (const hint of hints) if (hint.status !== "removed" && !state.hintedThisTurn.includes(hint.id)) state.hintedThisTurn.push(hint.id);
    state.hintsSent += 1;
    this.save(state);
    const timestamp = this.host.now();
    const message = createTrustedMessage({
      kind: KNOWLEDGE_HINTS_TYPE,
      content: renderHints(hints),
      details: {
        gammaInjection: true,
        injectionType: KNOWLEDGE_HINTS_TYPE,
        injectionId: `knowledge-hints-${state.hintsSent}`,
        occurredAt: new Date(timestamp).toISOString(),
      },
      timestamp,
    });
    this.host.emit({ type: "knowledge_hinted", trigger, notes: hints.map((hint) => ({ id: hint.id, status: hint.status })) });
    return message;
  }

  private query(text: string) {
    const state = this.host.state;
    return { text, activeSkills: state.activeSkills.map((skill) => skill.name), currentArtifacts: state.currentArtifacts };
  }

  private selectionContext(): string {
    const state = this.host.state;
    return JSON.stringify([state.activeSkills.map((skill) => skill.name).sort(), state.currentArtifacts.map((artifact) => artifact.ref).sort()]);
  }

  // ---- read_workspace_rule --------------------------------------------------------------------

  /** The tool: the body exactly as compiled (or a path when it is over the inline limit), recorded as loaded. */
  read(knowledgeId: unknown, toolCallId = ""): ToolOutcome {
    const id = typeof knowledgeId === "string" ? knowledgeId : "";
    const note = this.notes.get(id);
    if (note === undefined) {
      const shown = JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}…` : id);
      throw new KnowledgeToolError(`Unknown knowledge note ${shown}. Fetch only ids given in the knowledge hints; this note may have been removed.`);
    }
    const bytes = Buffer.byteLength(note.body);
    const path = bytes > this.inlineBytes && this.servedByPath(note) ? (this.options.resolvePath ?? ((candidate: Readonly<KnowledgeNote>) => candidate.path))(note) : undefined;
    const via = path === undefined ? "inline" : "path";
    const state = this.session();
    const record: LoadedNoteRecord = { id, name: note.name, source: note.source, revision: note.revision, origin: note.origin, via };
    state.loaded = [...state.loaded.filter((entry) => entry.id !== id), record];
    state.notices = state.notices.filter((notice) => notice.id !== id);
    this.save(state);
    this.host.emit({ type: "knowledge_loaded", id, revision: note.revision, via, toolCallId });
    const text =
      path === undefined
        ? note.body
        : `Note "${id}" (${note.name}, source ${note.source}, revision ${note.revision}) is ${bytes} bytes, over the ${this.inlineBytes}-byte inline limit, so its body is not returned here. ` +
          `Read it at ${path} with the \`read\` tool, focusing on the parts relevant to the task (use offset and limit). It is now loaded for this session.`;
    return { content: [{ type: "text", text }], details: { knowledgeId: id, revision: note.revision, via, ...(path === undefined ? {} : { path }) } };
  }

  /**
   * Whether a large note can be read at its path. A compiled note's default path is its dist/ file, which a
   * build made after this session loaded its artifacts may have changed or removed: the model would read
   * another revision than the one recorded as loaded. Then the verified body this session holds is returned
   * inline instead. (A path the host resolves is the host's to keep current.)
   */
  private servedByPath(note: Readonly<KnowledgeNote>): boolean {
    if (this.options.resolvePath !== undefined || note.origin !== "compiled" || note.path === undefined) return true;
    try {
      return readFileSync(note.path, "utf8") === note.body;
    } catch {
      return false;
    }
  }

  // ---- state ---------------------------------------------------------------------------------

  /** A stored session whose compiled notes changed or vanished since (a new dist/): report them. */
  private reconcileCompiled(): void {
    const state = this.session();
    let changed = false;
    for (const record of [...state.loaded]) {
      if (record.origin !== "compiled") continue;
      const note = this.notes.get(record.id);
      if (note !== undefined && note.revision === record.revision) {
        if (record.changedTo === undefined) continue;
        // This dist/ has the revision the model read again.
        delete record.changedTo;
        state.notices = state.notices.filter((notice) => notice.id !== record.id || notice.status !== "changed");
        changed = true;
        continue;
      }
      if (note !== undefined && record.changedTo !== note.revision) {
        record.changedTo = note.revision;
        changed = true;
      }
      if (state.notices.some((notice) => notice.id === record.id)) continue;
      if (note === undefined) state.loaded = state.loaded.filter((entry) => entry.id !== record.id);
      state.notices.push({ id: record.id, name: record.name, status: note === undefined ? "removed" : "changed" });
      changed = true;
    }
    if (changed) this.save(state);
  }

  private notice(state: KnowledgeSessionState, notice: KnowledgeNotice): void {
    state.notices = [...state.notices.filter((existing) => existing.id !== notice.id), notice];
    this.save(state);
  }

  /** A working copy of the durable knowledge state. */
  private session(): KnowledgeSessionState {
    const stored = this.host.state.knowledge;
    return stored === undefined ? emptyKnowledgeState() : (JSON.parse(JSON.stringify(stored)) as KnowledgeSessionState);
  }

  private save(state: KnowledgeSessionState): void {
    if (JSON.stringify(state) === JSON.stringify(this.host.state.knowledge ?? emptyKnowledgeState())) return;
    this.host.saveKnowledge(state);
  }
}

/**
 * One `<knowledge_hints>` block: the BLOCKING line when something is to be
 * fetched, then one self-closing `<knowledge>` entry per note with escaped
 * attributes in a fixed order.
 */
export function renderHints(hints: readonly Hint[]): string {
  const lines = ["<knowledge_hints>"];
  if (hints.some((hint) => hint.status !== "removed")) lines.push(BLOCKING_LINE);
  if (hints.some((hint) => hint.status === "removed")) lines.push("A note marked removed no longer exists: stop applying it.");
  for (const hint of hints) {
    const attributes: Array<[string, string]> = [["id", hint.id], ["name", hint.name]];
    if (hint.note) attributes.push(["scope", collapse(hint.note.scope)], ["source", hint.note.source]);
    if (hint.status !== "new") attributes.push(["status", hint.status]);
    lines.push(`<knowledge ${attributes.map(([name, value]) => `${name}="${neutraliseReservedTags(escapeXml(value))}"`).join(" ")} />`);
  }
  lines.push("</knowledge_hints>");
  return lines.join("\n");
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function sameFields(a: KnowledgeNote, b: KnowledgeNote): boolean {
  return a.name === b.name && a.scope === b.scope && a.source === b.source && a.path === b.path && JSON.stringify(a.appliesTo) === JSON.stringify(b.appliesTo);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
