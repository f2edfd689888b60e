/**
 * Candidate selection: which notes the harness hints for a turn. The default
 * ranks notes with MiniSearch (BM25 over name, scope and appliesTo, with
 * prefix and light fuzzy matching) against the turn text and the current
 * artifacts, and puts notes whose appliesTo.skills names an active skill
 * first. The model makes the final scope match, so the selector may be
 * generous; a host replaces it through the KnowledgeSelector interface.
 */
import MiniSearch from "minisearch";
import type { KnowledgeNoteFields } from "../../protocol/knowledge.js";

/** What a selector sees of a note: never its body. */
export type KnowledgeCandidate = KnowledgeNoteFields;

export interface KnowledgeQuery {
  /** The user's turn text (the last one, when a selection runs mid-run). */
  text: string;
  activeSkills: readonly string[];
  currentArtifacts: ReadonlyArray<{ ref: string; path?: string; title?: string }>;
}

export interface KnowledgeSelector {
  /** The set of notes changed: index `upsert` (replacing notes with the same id) and forget `remove`. */
  update(change: { upsert: readonly KnowledgeCandidate[]; remove: readonly string[] }): void;
  /**
   * Ids of candidate notes for the query, best first, returned synchronously
   * (a promise, or anything but strings, is refused at the turn).
   */
  select(query: KnowledgeQuery): string[];
}

/** Words that say nothing about a scope ("Use for … in this workspace"). */
const STOP_WORDS = new Set(
  (
    "a an and any are as at be by can do for from has have how i if in into is it its me my no not of on or our so that the their them then there these this " +
    "those to too up us use used uses using was we what when where which who why will with you your workspace please make made new want need"
  ).split(" "),
);

/** Lowercase, stop words dropped, and English plurals folded ("photos" finds "photo", "policies" finds "policy"). */
function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  if (lower.length < 2 || STOP_WORDS.has(lower)) return null;
  if (lower.length > 4 && lower.endsWith("ies")) return `${lower.slice(0, -3)}y`;
  if (lower.length > 3 && lower.endsWith("s") && !lower.endsWith("ss") && !lower.endsWith("us")) return lower.slice(0, -1);
  return lower;
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface IndexedNote {
  id: string;
  name: string;
  scope: string;
  keywords: string;
  skills: string;
  tools: string;
}

export class MiniSearchSelector implements KnowledgeSelector {
  private readonly index = new MiniSearch<IndexedNote>({
    fields: ["name", "scope", "keywords", "skills", "tools"],
    storeFields: [],
    processTerm,
    searchOptions: {
      boost: { keywords: 2, name: 1.5, tools: 1.5 },
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 6 ? 0.15 : false),
      combineWith: "OR",
    },
  });
  private readonly bySkill = new Map<string, Set<string>>();
  private readonly skillsOf = new Map<string, readonly string[]>();

  constructor(
    private readonly options: {
      /** Lexical matches scoring below this share of the best match are dropped. Default 0.2. */
      relativeCutoff?: number;
    } = {},
  ) {}

  update(change: { upsert: readonly KnowledgeCandidate[]; remove: readonly string[] }): void {
    for (const id of [...change.remove, ...change.upsert.map((note) => note.id)]) {
      if (!this.index.has(id)) continue;
      this.index.discard(id);
      for (const skill of this.skillsOf.get(id) ?? []) this.bySkill.get(skill)?.delete(id);
      this.skillsOf.delete(id);
    }
    this.index.addAll(
      change.upsert.map((note) => ({
        id: note.id,
        name: note.name,
        scope: note.scope,
        keywords: note.appliesTo.keywords.join(" "),
        skills: note.appliesTo.skills.join(" "),
        tools: note.appliesTo.tools.join(" "),
      })),
    );
    for (const note of change.upsert) {
      this.skillsOf.set(note.id, note.appliesTo.skills);
      for (const skill of note.appliesTo.skills) {
        let ids = this.bySkill.get(skill);
        if (ids === undefined) this.bySkill.set(skill, (ids = new Set()));
        ids.add(note.id);
      }
    }
  }

  select(query: KnowledgeQuery): string[] {
    const direct = new Set<string>();
    for (const skill of query.activeSkills) for (const id of this.bySkill.get(skill) ?? []) direct.add(id);
    const text = [query.text, ...query.currentArtifacts.flatMap((artifact) => [artifact.path ?? "", artifact.title ?? ""])].join(" ");
    // Equal scores rank by id, so the choice never depends on the order notes were registered or updated in.
    const hits = (text.trim() === "" ? [] : this.index.search(text)).sort((a, b) => b.score - a.score || compareIds(String(a.id), String(b.id)));
    const best = hits[0]?.score ?? 0;
    const cutoff = best * (this.options.relativeCutoff ?? 0.2);
    const ranked = [...direct].sort();
    for (const hit of hits) {
      if (hit.score < cutoff) break;
      const id = String(hit.id);
      if (!direct.has(id)) ranked.push(id);
    }
    return ranked;
  }
}
