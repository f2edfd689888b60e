/**
 * A knowledge note as the runtime serves it, and the boundary check for the
 * live notes a host registers at run time: the same fields and limits as
 * schemas/knowledge-note.schema.json, checked by hand (the runtime carries
 * no schema validator) and refused with an error that names the field.
 */
import { forbiddenKnowledgeCharacter, isKnowledgeId, KNOWLEDGE_SOURCES, knowledgeRevision, type KnowledgeNoteFields, type KnowledgeTextField } from "../../protocol/knowledge.js";

export interface KnowledgeNote extends KnowledgeNoteFields {
  /** Exactly what read_workspace_rule returns when the body fits the inline limit. */
  body: string;
  /** `sha256:<16 hex>` of the body; a loaded note whose revision changes is hinted again as changed. */
  revision: string;
  origin: "compiled" | "live";
  /** A path the host's `read` tool opens, used when the body is over the inline limit. */
  path?: string;
}

/** What a host passes to register or update a live note. */
export interface LiveNoteInput extends Omit<KnowledgeNoteFields, "appliesTo"> {
  appliesTo?: Partial<KnowledgeNoteFields["appliesTo"]>;
  body: string;
  /** Where the host's `read` tool finds the body (needed only for bodies over the inline limit). */
  path?: string;
}

export class KnowledgeNoteRejectedError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`Unexpected live note: ${field}: ${message}`);
    this.name = "KnowledgeNoteRejectedError";
  }
}

const KEYS = new Set(["id", "name", "scope", "source", "appliesTo", "body", "path"]);
const APPLIES_KEYS = new Set(["skills", "tools", "keywords"]);
const MAX_BODY_BYTES = 1024 * 1024;

/** Validates a host's note at the boundary; throws KnowledgeNoteRejectedError naming the first bad field. */
export function acceptLiveNote(raw: unknown): KnowledgeNote {
  if (!isPlainObject(raw)) throw new KnowledgeNoteRejectedError("(note)", "expected an object");
  for (const key of Object.keys(raw)) if (!KEYS.has(key)) throw new KnowledgeNoteRejectedError(key, "unknown field, expected id, name, scope, source, appliesTo, body or path");
  const id = raw["id"];
  if (typeof id !== "string" || !isKnowledgeId(id)) throw new KnowledgeNoteRejectedError("id", "expected lowercase letters and digits in hyphen-separated words, at most 64");
  const name = line(raw["name"], "name", 120);
  const scope = line(raw["scope"], "scope", 500);
  const source = raw["source"];
  if (typeof source !== "string" || !(KNOWLEDGE_SOURCES as readonly string[]).includes(source)) throw new KnowledgeNoteRejectedError("source", 'expected "user" or "system"');
  const body = raw["body"];
  if (typeof body !== "string" || body.trim() === "") throw new KnowledgeNoteRejectedError("body", "expected the note's non-empty Markdown body");
  if (Buffer.byteLength(body) > MAX_BODY_BYTES) throw new KnowledgeNoteRejectedError("body", `expected at most ${MAX_BODY_BYTES} bytes`);
  const path = raw["path"];
  if (path !== undefined && (typeof path !== "string" || path === "" || /[\n\r\0]/.test(path))) throw new KnowledgeNoteRejectedError("path", "expected a non-empty one-line path");
  const appliesTo = { skills: [] as string[], tools: [] as string[], keywords: [] as string[] };
  const applies = raw["appliesTo"];
  if (applies !== undefined) {
    if (!isPlainObject(applies)) throw new KnowledgeNoteRejectedError("appliesTo", "expected an object with skills, tools and keywords");
    for (const key of Object.keys(applies)) {
      if (!APPLIES_KEYS.has(key)) throw new KnowledgeNoteRejectedError(`appliesTo.${key}`, "unknown field, expected skills, tools or keywords");
      const list = applies[key];
      if (!Array.isArray(list) || list.length > 32 || list.some((item) => typeof item !== "string" || item === "" || item.length > 64 || /[<>\n]/.test(item))) {
        throw new KnowledgeNoteRejectedError(`appliesTo.${key}`, "expected at most 32 one-line strings without < or >");
      }
      appliesTo[key as keyof typeof appliesTo] = [...new Set(list as string[])];
    }
  }
  const normalised = normaliseBody(body);
  const note: KnowledgeNote = { id, name, scope, source: source as KnowledgeNote["source"], appliesTo, body: normalised, revision: knowledgeRevision(normalised), origin: "live" };
  if (path !== undefined) note.path = path;
  return note;
}

/** As the compiler finishes a body: LF line endings, no leading blank lines, exactly one trailing newline. */
function normaliseBody(body: string): string {
  return `${body.replace(/\r\n?/g, "\n").replace(/^(?:[ \t]*\n)+/, "").trimEnd()}\n`;
}

/**
 * `name` or `scope`: what the compiler accepts in a note file, by the same check. The hint shows both as
 * trusted text the model reads as written, so a control character, a Unicode line or paragraph separator, a
 * bidirectional control or a Unicode tag character is refused, not passed on.
 */
function line(value: unknown, field: KnowledgeTextField, max: number): string {
  const short = field === "name";
  const expected = `expected non-blank plain text of at most ${max} characters without < or >, a control character other than tab${short ? " (on one line)" : ", line feed and carriage return"}, U+2028, U+2029, a bidirectional control or a Unicode tag character`;
  if (typeof value !== "string" || value.trim() === "" || [...value].length > max) throw new KnowledgeNoteRejectedError(field, expected);
  const forbidden = forbiddenKnowledgeCharacter(field, value);
  if (forbidden !== undefined) throw new KnowledgeNoteRejectedError(field, `${expected}; found ${forbidden}`);
  return value.replace(/\s+/g, " ").trim();
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
