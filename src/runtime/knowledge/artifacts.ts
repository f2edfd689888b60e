/**
 * The compiled notes in dist/: `knowledge.json` checked entry by entry
 * against the manifest (each body file listed with the same sha256), then
 * served with their bodies exactly as compiled.
 */
import { DEFAULT_INLINE_BYTES, isKnowledgeId, KNOWLEDGE_SOURCES, knowledgeFile, knowledgeRevision, type KnowledgeNoteInfo } from "../../protocol/knowledge.js";
import type { DistManifest } from "../../protocol/dist-manifest.js";
import type { KnowledgeNote } from "./notes.js";

export interface KnowledgeArtifactProblem {
  file: string;
  message: string;
}

export interface LoadedKnowledge {
  notes: ReadonlyMap<string, KnowledgeNote>;
  /** Bodies over this many UTF-8 bytes are returned as a path. */
  inlineBytes: number;
}

/**
 * Checks the index against the manifest and builds the notes; `read` gives
 * the text of a verified artifact. Problems are returned, never thrown, so
 * the loader reports them with every other bad file.
 */
export function loadCompiledKnowledge(
  manifest: DistManifest,
  read: (file: string) => string,
  filePath: (file: string) => string,
): { knowledge: LoadedKnowledge; problems: KnowledgeArtifactProblem[] } {
  const info = manifest.knowledge;
  const empty = { knowledge: { notes: new Map<string, KnowledgeNote>(), inlineBytes: DEFAULT_INLINE_BYTES }, problems: [] };
  if (info === undefined) return empty;
  const problems: KnowledgeArtifactProblem[] = [];
  const fail = (message: string) => ({ knowledge: empty.knowledge, problems: [{ file: info.file, message }] });
  if (typeof info.file !== "string" || !Number.isInteger(info.inlineBytes) || info.inlineBytes < 1) {
    return fail("Unexpected knowledge entry in manifest.json, expected {file, sha256, inlineBytes, notes}");
  }
  const entry = manifest.artifacts[info.file];
  if (entry === undefined || entry.sha256 !== info.sha256) return fail("Unexpected knowledge index absent from artifacts or with another sha256, expected it listed with its own hash");
  let index: unknown;
  try {
    index = JSON.parse(read(info.file));
  } catch {
    return fail("Unexpected text that is not JSON, expected the knowledge index");
  }
  if (!Array.isArray(index) || index.length !== info.notes) return fail(`Unexpected knowledge index, expected an array of ${String(info.notes)} notes`);
  const notes = new Map<string, KnowledgeNote>();
  for (const raw of index as unknown[]) {
    const note = raw as Partial<KnowledgeNoteInfo>;
    const id = typeof note.id === "string" ? note.id : "";
    if (!isKnowledgeId(id) || notes.has(id) || note.file !== knowledgeFile(id)) {
      problems.push({ file: info.file, message: `Unexpected note entry ${JSON.stringify(id)}, expected a unique id and its file knowledge/<id>.md` });
      continue;
    }
    const body = manifest.artifacts[note.file];
    if (body === undefined || body.sha256 !== note.sha256) {
      problems.push({ file: note.file, message: `Unexpected body of note "${id}" absent from artifacts or with another sha256, expected it listed with the index's hash` });
      continue;
    }
    const text = read(note.file);
    if (typeof note.name !== "string" || typeof note.scope !== "string" || !KNOWLEDGE_SOURCES.includes(note.source as never) || note.revision !== knowledgeRevision(text)) {
      problems.push({ file: info.file, message: `Unexpected fields of note "${id}", expected name, scope, source and the body's revision` });
      continue;
    }
    const applies = note.appliesTo;
    const names = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []);
    notes.set(id, {
      id,
      name: note.name,
      scope: note.scope,
      source: note.source as KnowledgeNote["source"],
      appliesTo: { skills: names(applies?.skills), tools: names(applies?.tools), keywords: names(applies?.keywords) },
      body: text,
      revision: note.revision,
      origin: "compiled",
      path: filePath(note.file),
    });
  }
  return { knowledge: { notes, inlineBytes: info.inlineBytes }, problems };
}
