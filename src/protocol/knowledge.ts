/**
 * Scoped knowledge as the compiler publishes it and the runtime serves it:
 * `dist/knowledge.json` (the index) and `dist/knowledge/<id>.md` (each body,
 * exactly what `read_workspace_rule` returns). Types, constants and the one
 * revision function, so compiled and live notes get revisions the same way.
 */
import { createHash } from "node:crypto";

export const KNOWLEDGE_INDEX_FILE = "knowledge.json";
export const KNOWLEDGE_DIR = "knowledge";

/** Who wrote a note; it sets the note's precedence (user-authored above system-authored). */
export type KnowledgeSource = "user" | "system";
export const KNOWLEDGE_SOURCES: readonly KnowledgeSource[] = ["user", "system"];

/** The skill-name rules: lowercase letters and digits in hyphen-separated words, at most 64 code points. */
export const KNOWLEDGE_ID_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const KNOWLEDGE_ID_MAX = 64;

/** Bodies longer than this (UTF-8 bytes) are not returned inline: the tool returns a path for focused reading. */
export const DEFAULT_INLINE_BYTES = 8192;

/** What the harness's candidate selection may match besides the scope text. */
export interface KnowledgeAppliesTo {
  skills: string[];
  tools: string[];
  keywords: string[];
}

/** The fields every note has, compiled or live. */
export interface KnowledgeNoteFields {
  id: string;
  name: string;
  /** "Use for …" / "Use when …": the condition the model matches against the task. */
  scope: string;
  source: KnowledgeSource;
  appliesTo: KnowledgeAppliesTo;
}

/** One entry of `knowledge.json` (an array sorted by id). */
export interface KnowledgeNoteInfo extends KnowledgeNoteFields {
  /** The body, e.g. `knowledge/brand-images.md`. */
  file: string;
  sha256: string;
  bytes: number;
  tokens: number;
  /** `sha256:` and the first 16 hex digits of the body's sha256: changes exactly when the body does. */
  revision: string;
}

export function knowledgeFile(id: string): string {
  return `${KNOWLEDGE_DIR}/${id}.md`;
}

export function knowledgeRevision(body: string): string {
  return `sha256:${createHash("sha256").update(body).digest("hex").slice(0, 16)}`;
}

export function isKnowledgeId(id: string): boolean {
  return KNOWLEDGE_ID_PATTERN.test(id) && [...id].length <= KNOWLEDGE_ID_MAX;
}
