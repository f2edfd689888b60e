import { createRequire } from "node:module";

/**
 * An independent reading of "does this text contain a reserved tag", written
 * without the runtime's fold table: compatibility folding, invisible and
 * combining characters removed (Unicode tag characters decoded to the ASCII
 * they copy first), case folded, the look-alike letters and
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
  "session_state", "active_skills", "tasks", "current_artifacts", "artifact", "pending_injections",
  // Scoped knowledge: one entry of a hints block, and the anchor's list of loaded notes.
  "knowledge", "loaded_knowledge",
];
const SEPARATOR = "[\\s\\p{Pd}\\p{Pc}]*";
const OPENER = new RegExp(
  `<\\s*/?\\s*(${NAMES.map((name) => name.split("_").join(SEPARATOR)).join("|")})(?![a-z0-9])`,
  "u",
);

export function readerView(text: string): string {
  // A Unicode tag character (U+E0020 to U+E007E) is an invisible copy of an ASCII one that some models decode.
  const decoded = text.replace(/[\u{E0020}-\u{E007E}]/gu, (character) => String.fromCharCode((character.codePointAt(0) ?? 0) - 0xe0000));
  return [...decoded.normalize("NFKD")]
    .filter((character) => !/[\p{M}\p{Default_Ignorable_Code_Point}]/u.test(character))
    .join("")
    .normalize("NFKC")
    .replace(BRACKETS, "<")
    .replace(/[^\x00-\x7f]/gu, (character) => (readsAsOpeningBracket(character) ? "<" : character))
    .toLowerCase()
    .replace(/[^\x00-\x7f]/gu, (character) => LETTERS[character] ?? character);
}

export function hasReservedOpener(text: string): boolean {
  return OPENER.test(readerView(text));
}

/**
 * Unicode's confusables data (UTS #39 confusables.txt, version 13.0, as the
 * pinned devDependency unhomoglyph ships it): each source character mapped
 * to the prototype string it is visually confusable with. Two strings look
 * alike when their skeletons (NFD, every character mapped, NFD again) are equal.
 */
const CONFUSABLES = createRequire(import.meta.url)("unhomoglyph/data.json") as Record<string, string>;

function skeleton(text: string): string {
  return [...text.normalize("NFD")].map((character) => CONFUSABLES[character] ?? character).join("").normalize("NFD");
}

/** A reader's view of one character: compatibility forms folded, marks and invisible characters gone. */
function folded(character: string): string {
  return [...character.normalize("NFKD")].filter((part) => !/[\p{M}\p{Default_Ignorable_Code_Point}]/u.test(part)).join("").normalize("NFKC");
}

/**
 * What "a look-alike bracket" means: a character that, once folded as a
 * reader folds it (full-width, small and vertical forms; a struck-through ≮
 * without its stroke), is confusable, by the confusables data, with "<" or
 * with the left angle bracket 〈 U+2329 (whose class holds 〈 ⟨ ❬ and the
 * kana and CJK-stroke shapes drawn the same way). No hand-picked list.
 */
const BRACKET_SKELETONS = new Set([skeleton("<"), skeleton("\u2329")]);

export function readsAsOpeningBracket(character: string): boolean {
  if (BRACKET_SKELETONS.has(skeleton(character))) return true;
  const reader = folded(character);
  return reader !== character && BRACKET_SKELETONS.has(skeleton(reader));
}

/**
 * Every code point to try: the first three planes (where all compatibility
 * decompositions live; the planes above hold only ideographs without one,
 * private use and invisible tags) and every source character of the data.
 */
export function candidateCodePoints(): number[] {
  const codes = new Set<number>();
  for (let code = 0; code <= 0x2ffff; code++) if (code < 0xd800 || code > 0xdfff) codes.add(code);
  for (const source of Object.keys(CONFUSABLES)) if ([...source].length === 1) codes.add(source.codePointAt(0) ?? 0);
  return [...codes].sort((a, b) => a - b);
}

/**
 * The Cyrillic, Greek and Latin-extension letters the confusables data maps
 * to one Latin letter that folding alone (compatibility forms, accents, case)
 * does not give: the look-alikes a tag name can be spelt with. Each as
 * [character, Latin letter].
 */
export function lookAlikeLetters(): Array<[string, string]> {
  const letters: Array<[string, string]> = [];
  for (const [source, prototype] of Object.entries(CONFUSABLES)) {
    const code = source.codePointAt(0) ?? 0;
    if ([...source].length !== 1 || !LOOK_ALIKE_BLOCKS.some(([from, to]) => code >= from && code <= to)) continue;
    const letter = prototype.toLowerCase();
    if (/^[a-z]$/.test(letter) && folded(source).toLowerCase() !== letter) letters.push([source, letter]);
  }
  return letters.sort(([a], [b]) => (a.codePointAt(0) ?? 0) - (b.codePointAt(0) ?? 0));
}

/** Greek and Coptic, Cyrillic and its supplement, IPA extensions, phonetic small capitals, Latin Extended-D. */
const LOOK_ALIKE_BLOCKS: ReadonlyArray<[number, number]> = [
  [0x0131, 0x0131],
  [0x0250, 0x02af],
  [0x0370, 0x052f],
  [0x1d00, 0x1d2b],
  [0xa720, 0xa7ff],
];
