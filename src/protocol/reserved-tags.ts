/**
 * The tags the runtime owns, and the exact closing tags in a text of those that wrap a skill's body.
 * The runtime neutralises reserved tags in text it does not trust (see
 * runtime/injections/neutralise.ts); a skill's body is trusted and reaches
 * the model inside the runtime's wrappers as written, so lint looks for the
 * closers that would end a wrapper early.
 */
import { INJECTION_KINDS } from "./dist-manifest.js";

/** Tags the platform owns: the injection kinds plus the prefix's own structural tags. */
export const RESERVED_TAG_NAMES: readonly string[] = [
  ...INJECTION_KINDS,
  "knowledge_hints",
  // One entry of a knowledge_hints block (src/runtime/knowledge).
  "knowledge",
  "system-reminder",
  "preloaded_skill",
  "available_skills",
  "skill",
  // The runtime's state anchor (src/runtime/anchor.ts).
  "session_state",
  "active_skills",
  "tasks",
  "current_artifacts",
  // One entry of current_artifacts.
  "artifact",
  "pending_injections",
  "loaded_knowledge",
  "loaded_tool_namespaces",
  "connectors",
  "required_skills",
  // The prefix's namespace catalog and one entry of it.
  "tool_namespaces",
  "namespace",
];

/**
 * The reserved tags the runtime puts a skill's body inside, as text: `<preloaded_skill>` (a variant's
 * preloaded skill), `<skill>` (the skill tool's answer, and each active skill in the state anchor) and the
 * anchor's own `<session_state>`. A closer of one of these in a body ends that wrapper early; the other
 * reserved tags never hold a body, so their closers in one (an XML example's `</artifact>`) end nothing.
 */
export const BODY_WRAPPER_TAG_NAMES: readonly string[] = ["preloaded_skill", "skill", "session_state"];

/** One exact closing tag of a reserved name: `</skill>`, `</Skill >`, `</skill` before a line break. */
export interface ReservedCloser {
  /** UTF-16 offsets of the closer in the text: from `<` through its `>`, or through the name when whitespace follows it. */
  start: number;
  end: number;
  /** The reserved name, as the list spells it. */
  name: string;
  /** The closer as written. */
  written: string;
}

const WRAPPER_BY_LOWER = new Map(BODY_WRAPPER_TAG_NAMES.map((name) => [name.toLowerCase(), name]));
/** `</`, a name of ASCII letters, digits, `_` and `-`, then `>` or whitespace (space, tab, line break, form feed). */
const CLOSER = /<\/([A-Za-z][A-Za-z0-9_-]*)([>\t\n\f\r ])/g;

/** Every exact closer of a tag that wraps a body ({@link BODY_WRAPPER_TAG_NAMES}) in `text`, its name matched in any ASCII letter case. */
export function findWrapperClosers(text: string): ReservedCloser[] {
  const found: ReservedCloser[] = [];
  if (!text.includes("</")) return found;
  for (const match of text.matchAll(CLOSER)) {
    const written = match[1] ?? "";
    const name = WRAPPER_BY_LOWER.get(written.replace(/[A-Z]/g, (letter) => letter.toLowerCase()));
    if (name === undefined) continue;
    const start = match.index;
    const end = start + 2 + written.length + (match[2] === ">" ? 1 : 0);
    found.push({ start, end, name, written: text.slice(start, end) });
  }
  return found;
}
