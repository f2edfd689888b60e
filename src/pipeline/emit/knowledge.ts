import { knowledgeFile, knowledgeRevision, type KnowledgeNoteInfo } from "../../protocol/knowledge.js";
import type { ValidNote } from "../validate/knowledge.js";
import { canonicalJson } from "./canonical-json.js";
import { artifactEntry } from "./artifacts.js";

/**
 * `knowledge/<id>.md` (each body, exactly what read_workspace_rule returns)
 * and the `knowledge.json` index. None of it enters the static prefix: a note
 * edit changes these files and the manifest, never the cached prefix.
 */
export function knowledgeArtifacts(notes: readonly ValidNote[], countTokens: (text: string) => number): { files: Map<string, string>; index: KnowledgeNoteInfo[] } {
  const files = new Map<string, string>();
  const index: KnowledgeNoteInfo[] = [];
  for (const note of notes) {
    const file = knowledgeFile(note.id);
    files.set(file, note.body);
    const { sha256, bytes } = artifactEntry(note.body);
    index.push({
      id: note.id,
      name: note.name,
      scope: note.scope,
      source: note.source,
      appliesTo: { skills: [...note.appliesTo.skills], tools: [...note.appliesTo.tools], keywords: [...note.appliesTo.keywords] },
      file,
      sha256,
      bytes,
      tokens: countTokens(note.body),
      revision: knowledgeRevision(note.body),
    });
  }
  return { files, index };
}

export function knowledgeJson(index: readonly KnowledgeNoteInfo[]): string {
  return canonicalJson(index);
}
