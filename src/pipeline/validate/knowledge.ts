import { createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { KnowledgeNoteFields } from "../../protocol/knowledge.js";
import { KNOWLEDGE_TOOL } from "../../protocol/runtime-tools.js";
import { TOOL_ORDER_FILE, TOOLS_DIR } from "../discover/source-paths.js";
import { compareCodeUnits } from "../discover/sources.js";
import type { SourceFile } from "../../stage-data.js";
import { parseKnowledgeNote, type NoteReference, type ParsedNote } from "./knowledge-note.js";
import { isValidSkillName } from "./skill-set-rules.js";
import { didYouMean } from "../../protocol/suggest.js";

/** A note that passed every error-level rule: what the build publishes. */
export interface ValidNote extends KnowledgeNoteFields {
  path: string;
  body: string;
}

export interface KnowledgeContext {
  /** Every skill name in the tree, including skills with lint errors (so a broken skill does not cascade). */
  skillNames: readonly string[];
  toolNames: readonly string[];
  inlineBytes: number;
}

/**
 * The rules that need more than one note's bytes: the file name, unique ids,
 * references to skills and tools, and the inline limit. Notes must be sorted
 * by path; findings come out in a stable order.
 */
export function validateNotes(notes: readonly ParsedNote[], context: KnowledgeContext): { notes: ValidNote[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = notes.flatMap((note) => note.diagnostics);
  // An id belongs to the note whose file is named after it, else to the first by path: the note that is right
  // is never the one blamed when another took its id (that one has its id-mismatch too).
  const owners = new Map<string, string>();
  for (const note of notes) if (note.id !== undefined && note.idRange && note.id === fileIdOf(note.path)) owners.set(note.id, note.path);
  for (const note of notes) if (note.id !== undefined && note.idRange && !owners.has(note.id)) owners.set(note.id, note.path);
  const valid: ValidNote[] = [];
  const skills = new Set(context.skillNames);
  const tools = new Set(context.toolNames);
  // A folder whose skill failed lint may have a name skill/name-format rejects: never offered as "did you mean".
  const suggestibleSkills = context.skillNames.filter(isValidSkillName);
  // A note whose frontmatter has schema errors is still judged on what it does hold (its id, its references,
  // its body), as a skill is: one error never hides the others. Only a note with no error is published.
  for (const note of notes) {
    const before = diagnostics.length;
    if (note.id !== undefined && note.idRange) {
      const fileId = fileIdOf(note.path);
      if (note.id !== fileId) {
        diagnostics.push(createDiagnostic("knowledge/id-mismatch", note.path, note.idRange, `Unexpected id "${note.id}", expected "${fileId}", the note's file name without .md`));
      }
      const owner = owners.get(note.id);
      if (owner !== undefined && owner !== note.path) {
        diagnostics.push(createDiagnostic("knowledge/id-duplicate", note.path, note.idRange, `Unexpected second note with id "${note.id}", expected unique ids (first in ${owner})`));
      }
    }
    unknown(note, note.skillRefs, skills, suggestibleSkills, "knowledge/unknown-skill", "skill", "a skill in skills/", diagnostics);
    unknown(note, note.toolRefs, tools, context.toolNames, "knowledge/unknown-tool", "tool", "a tool in schemas/tools/ or a tool namespace", diagnostics);
    const bytes = Buffer.byteLength(note.body);
    if (bytes > context.inlineBytes) {
      diagnostics.push(
        createDiagnostic(
          "knowledge/body-over-inline-limit",
          note.path,
          note.bodyRange,
          `Unexpected body of ${bytes} bytes, expected at most ${context.inlineBytes} (knowledge.inlineBytes); read_workspace_rule will return a path for focused reading instead of the body`,
        ),
      );
    }
    const failed = diagnostics.slice(before).some((diagnostic) => diagnostic.severity === "error") || note.diagnostics.some((diagnostic) => diagnostic.severity === "error");
    if (note.fields && !failed) valid.push({ ...note.fields, path: note.path, body: note.body });
  }
  valid.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { notes: valid, diagnostics };
}

function unknown(
  note: ParsedNote,
  references: readonly NoteReference[],
  known: ReadonlySet<string>,
  knownList: readonly string[],
  ruleId: "knowledge/unknown-skill" | "knowledge/unknown-tool",
  what: string,
  expected: string,
  diagnostics: Diagnostic[],
): void {
  for (const reference of references) {
    if (known.has(reference.name)) continue;
    diagnostics.push(createDiagnostic(ruleId, note.path, reference.range, `Unexpected unknown ${what} "${reference.name}" in appliesTo, expected the name of ${expected}${didYouMean(reference.name, knownList)}`));
  }
}

/** Parses every note (knowledge/*.md, sorted by path) and checks them together. */
export async function resolveKnowledge(files: readonly SourceFile[], context: KnowledgeContext): Promise<{ notes: ValidNote[]; diagnostics: Diagnostic[] }> {
  const parsed = await Promise.all(files.map((file) => parseKnowledgeNote(file)));
  return validateNotes(parsed, context);
}

/**
 * The runtime hints matching notes with "BLOCKING: Fetch each matching unread
 * note before the first task action", and the model fetches a note only with
 * the knowledge tool: an agent with notes and without that tool is told to do
 * what it cannot. One finding, at the first note by path.
 */
export function knowledgeToolDiagnostics(notes: readonly ValidNote[], declaredTools: ReadonlySet<string>): Diagnostic[] {
  if (notes.length === 0 || declaredTools.has(KNOWLEDGE_TOOL)) return [];
  const first = notes.map((note) => note.path).sort(compareCodeUnits)[0] as string;
  const count = notes.length === 1 ? "knowledge note" : `${notes.length} knowledge notes`;
  return [
    createDiagnostic(
      "knowledge/fetch-tool-missing",
      first,
      FILE_START,
      `Unexpected ${count} without the \`${KNOWLEDGE_TOOL}\` tool, expected ${TOOLS_DIR}/${KNOWLEDGE_TOOL}.json listed in ${TOOL_ORDER_FILE} (knowledge hints tell the model to fetch each matching note with it)`,
    ),
  ];
}

/** The id a note's file name gives it: the name without `.md`. */
function fileIdOf(path: string): string {
  return (path.split("/").pop() ?? "").replace(/\.md$/, "");
}
