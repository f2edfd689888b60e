/** The knowledge part of the controller's durable state (JSON only). */
import type { KnowledgeSource } from "../../protocol/knowledge.js";

/** A note the model fetched with read_workspace_rule in this session. */
export interface LoadedNoteRecord {
  id: string;
  name: string;
  source: KnowledgeSource;
  /** The revision the model read; a different current revision makes the note "changed". */
  revision: string;
  /**
   * The note's revision now, when it differs from the one the model read (a
   * host's update, a new dist/): the old body is no longer in force, and the
   * anchor says so until the model fetches the note again.
   */
  changedTo?: string;
  origin: "compiled" | "live";
  /** "inline" when the body was returned, "path" when only its path was. */
  via: "inline" | "path";
}

/** A change to a note the model knows about, reported once with the next hints. */
export interface KnowledgeNotice {
  id: string;
  name: string;
  status: "changed" | "removed";
}

export interface KnowledgeSessionState {
  loaded: LoadedNoteRecord[];
  notices: KnowledgeNotice[];
  /** Ids hinted since the last user turn: a selection mid-run does not hint them again. */
  hintedThisTurn: string[];
  /** The last user turn's text, for selections when the active skills or artifacts change mid-run. */
  lastTurnText: string;
  /** Active skills and artifact refs at the last selection. */
  selectionContext: string;
  /** Hints messages sent so far (makes each one's injection id unique). */
  hintsSent: number;
}

export function emptyKnowledgeState(): KnowledgeSessionState {
  return { loaded: [], notices: [], hintedThisTurn: [], lastTurnText: "", selectionContext: "", hintsSent: 0 };
}
