/**
 * An independent reading of "does this text contain a reserved tag", written
 * without the runtime's fold table: compatibility folding, invisible and
 * combining characters removed, case folded, the look-alike letters and
 * brackets of the corpus transliterated, then a plain regular expression.
 */
const BRACKETS = /[\u2039\u2329\u3008\u27e8\u02c2\u1438]/gu;
const LETTERS: Record<string, string> = {
  ѕ: "s", е: "e", о: "o", α: "a", ο: "o", ı: "i", "\ua731": "s", "\u028f": "y", "\u1d1b": "t", "\u1d07": "e",
  "\u1d0d": "m", "\u0274": "n", "\u1d0f": "o",
};
const NAMES = [
  "system_note", "system_guidance", "system_update", "client_view", "artifact_update", "workspace_update",
  "background_result", "knowledge_hints", "system_reminder", "preloaded_skill", "available_skills", "skill",
  "session_state", "active_skills", "tasks", "current_artifacts", "pending_injections",
  // Scoped knowledge: one entry of a hints block, and the anchor's list of loaded notes.
  "knowledge", "loaded_knowledge",
];
const SEPARATOR = "[\\s\\p{Pd}\\p{Pc}]*";
const OPENER = new RegExp(
  `<\\s*/?\\s*(${NAMES.map((name) => name.split("_").join(SEPARATOR)).join("|")})(?![a-z0-9])`,
  "u",
);

export function readerView(text: string): string {
  return [...text.normalize("NFKD")]
    .filter((character) => !/[\p{M}\p{Default_Ignorable_Code_Point}]/u.test(character))
    .join("")
    .normalize("NFKC")
    .replace(BRACKETS, "<")
    .toLowerCase()
    .replace(/[^\x00-\x7f]/gu, (character) => LETTERS[character] ?? character);
}

export function hasReservedOpener(text: string): boolean {
  return OPENER.test(readerView(text));
}
