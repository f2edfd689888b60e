/**
 * Keeps plain text from posing as a platform message. A reserved tag opener
 * or closer (`<system_note`, `</client_view`, ...) inside text the model reads
 * as user content gets its `<` replaced by the visible escape `&lt;`: the
 * words stay readable, but nothing in the text is a tag any more. (A
 * full-width `＜` would read as a tag again to anything that folds Unicode,
 * this matcher included; `&lt;` folds to nothing but itself.)
 *
 * Matching works on a folded view of the text so tricks that a reader (or a
 * model) would still see as the tag are caught: Unicode compatibility forms
 * (full-width `＜`, small `﹤`, mathematical letters), other angle brackets,
 * look-alike letters in any script (Unicode's confusables data, plus the
 * Cyrillic and Greek table below), accents, invisible and format characters,
 * Unicode tag characters (U+E0020 to U+E007E, invisible copies of ASCII that
 * some models decode: read as the ASCII character they copy),
 * unpaired surrogates (the provider clients delete them before sending, so
 * `<\uD800system_note>` arrives as `<system_note>`), any case, and
 * whitespace (Unicode White_Space), control characters, the blank braille
 * pattern and dashes inside the name. Text is handled one
 * message at a time with no state; a `<` that ends a message while the name
 * after it could still grow into a reserved one is neutralised too, so a tag
 * split across messages cannot be completed by the next message.
 */
import { RESERVED_TAG_NAMES } from "../../protocol/reserved-tags.js";
import { CONFUSABLE_ASCII } from "./confusables.generated.js";

export { RESERVED_TAG_NAMES };

export const NEUTRALISED_OPENER = "&lt;";

export interface Neutraliser {
  /** Returns the text with every reserved opener/closer neutralised (idempotent). */
  neutralise(text: string): string;
  /** True when the text still holds something that reads as a reserved tag. */
  containsReservedTag(text: string): boolean;
}

export function createNeutraliser(reservedTagNames: readonly string[] = RESERVED_TAG_NAMES): Neutraliser {
  const names = new Set(reservedTagNames.map(canonicalName).filter((name) => name.length > 0));
  const longest = Math.max(0, ...[...names].map((name) => name.length));
  const find = (text: string): number[] => findReservedOpeners(text, names, longest);
  return {
    neutralise(text) {
      const openers = find(text);
      if (openers.length === 0) return text;
      let result = "";
      let last = 0;
      for (const start of openers) {
        const width = (text.codePointAt(start) ?? 0) > 0xffff ? 2 : 1;
        result += text.slice(last, start) + NEUTRALISED_OPENER;
        last = start + width;
      }
      return result + text.slice(last);
    },
    containsReservedTag: (text) => find(text).length > 0,
  };
}

export function neutraliseReservedTags(text: string): string {
  return defaultNeutraliser.neutralise(text);
}

export function containsReservedTag(text: string): boolean {
  return defaultNeutraliser.containsReservedTag(text);
}

/** Lowercase letters and digits only: `system-reminder`, `System_Reminder` and `system reminder` are one name. */
function canonicalName(name: string): string {
  let canonical = "";
  for (const character of name) canonical += foldCharacter(character);
  return canonical.replace(/[^a-z0-9]/g, "");
}

/** UTF-16 offsets of every `<`-like character that opens a reserved tag. */
function findReservedOpeners(text: string, names: ReadonlySet<string>, longest: number): number[] {
  const openers: number[] = [];
  const fold = foldingWithin();
  for (let index = 0; index < text.length; index++) {
    // Only a handful of characters read as "<", so most text is skipped unfolded.
    const code = text.codePointAt(index) ?? 0;
    if (!OPENING_BRACKETS.has(code)) continue;
    if (opensReservedTag(text, index + (code > 0xffff ? 2 : 1), names, longest, fold)) openers.push(index);
  }
  return openers;
}

/**
 * foldCharacter with a cache that lives for one text: a tag padded with a
 * million copies of one invisible character folds it once. The cache is never
 * shared between texts, so every call folds its own characters afresh.
 */
function foldingWithin(): (character: string) => string {
  const folded = new Map<string, string>();
  return (character) => {
    let result = folded.get(character);
    if (result === undefined) {
      result = foldCharacter(character);
      folded.set(character, result);
    }
    return result;
  };
}

/**
 * Reads the tag name after a `<`-like character: an optional `/`, then
 * letters and digits, skipping invisible characters, whitespace and dashes
 * inside the name. It is reserved when the letters read so far equal a
 * reserved name at a word boundary (`<system_note>`, `<system note id=…>`),
 * or when the text ends while they could still become one.
 */
function opensReservedTag(
  text: string,
  from: number,
  names: ReadonlySet<string>,
  longest: number,
  fold: (character: string) => string,
): boolean {
  let name = "";
  let slashAllowed = true;
  let index = from;
  // No length cap: every scan stops at the next `<`-like character at the
  // latest (it is neither a letter, a space nor a separator), so the scans of
  // one text never overlap and the whole pass stays linear, however long a run
  // of spaces or invisible characters an attacker puts inside a tag.
  while (index < text.length) {
    const character = String.fromCodePoint(text.codePointAt(index) ?? 0);
    index += character.length;
    const folded = fold(character);
    if (folded === "") continue; // invisible or a combining mark
    if (/^[a-z0-9]+$/.test(folded)) {
      name += folded;
      slashAllowed = false;
      if (name.length > longest) return false;
      continue;
    }
    // Any other character ends a word: a reserved name ending here is a tag.
    if (names.has(name)) return true;
    if (slashAllowed && folded === "/") {
      slashAllowed = false;
      continue;
    }
    if (isSpace(folded) || (name.length > 0 && isNameSeparator(folded))) continue;
    return false;
  }
  // The text ended inside a possible tag name, or right after a whole one: a later message must not be able to finish it.
  for (const reserved of names) if (reserved.startsWith(name)) return true;
  return false;
}

function isSpace(folded: string): boolean {
  return /^\p{White_Space}+$/u.test(folded);
}

function isNameSeparator(folded: string): boolean {
  return /^[\p{Pd}\p{Pc}.:]+$/u.test(folded);
}

/**
 * One character as a reader would take it: compatibility-decomposed, accents
 * and invisible characters dropped, look-alikes mapped to ASCII, lowercased.
 */
function foldCharacter(character: string): string {
  // A Unicode tag character (U+E0020 to U+E007E) is an invisible copy of an
  // ASCII character that some readers decode: it is read as that character,
  // so `<` spelled in tag characters opens a tag like the plain one.
  const codePoint = character.codePointAt(0) ?? 0;
  if (codePoint >= TAG_ASCII_FIRST && codePoint <= TAG_ASCII_LAST) return foldCharacter(String.fromCharCode(codePoint - TAG_OFFSET));
  // pi-ai deletes unpaired surrogates before a request goes out, so they join what surrounds them.
  if (/\p{Cs}/u.test(character)) return "";
  // A control character or the blank braille pattern shows as nothing or as a gap: read it as a space (which both ends and joins a name).
  if (/\p{Cc}/u.test(character) || character === "\u2800") return " ";
  let folded = "";
  if (!/[\p{Default_Ignorable_Code_Point}\p{Cf}]/u.test(character)) {
    // A look-alike is read as itself first: some decompose into another
    // look-alike of a different letter (lunate ϲ reads as c, its decomposition ς as o).
    const direct = LOOK_ALIKES[character];
    const decomposed = direct ?? character.normalize("NFKD").replace(/\p{M}/gu, "").normalize("NFKC");
    for (const part of decomposed) folded += LOOK_ALIKES[part] ?? CONFUSABLE_ASCII.get(part) ?? part.toLowerCase();
    // "i" and "l" are one letter to this matcher: a capital I in any script
    // reads as l, and Unicode's data reads Cyrillic ӏ as i.
    folded = folded.replace(/l/g, "i");
  }
  return folded;
}

/** The Unicode Tags block mirrors ASCII at this offset; U+E0020 to U+E007E are the printable characters' copies. */
const TAG_OFFSET = 0xe0000;
const TAG_ASCII_FIRST = 0xe0020;
const TAG_ASCII_LAST = 0xe007e;

/**
 * Every character that folds to "<": "<", the three whose compatibility form
 * is "<" (full-width, small, and ≮ once its stroke is dropped), the look-alike
 * brackets below, the vertical form ︿ of 〈, ぐ (く with a mark) and the tag
 * character U+E003C, the invisible copy of "<". A test
 * checks every code point against Unicode's confusables data: each character
 * confusable with "<" or with 〈 must be here.
 */
const OPENING_BRACKETS: ReadonlySet<number> = new Set([
  0x3c, 0xff1c, 0xfe64, 0x226e, 0x2039, 0x2329, 0x3008, 0xfe3f, 0x27e8, 0x02c2, 0x1438, 0x276c, 0x276e, 0x29fc, 0x2d66, 0x1be0,
  0x16b2, 0x304f, 0x3050, 0x31db, 0x1d236, 0x21fe8, 0xe003c,
]);

/**
 * Characters NFKC leaves alone that still read as `<` or as a Latin letter,
 * read before the generated confusables table (which covers every script):
 * these are the readings where a reader and the data part ways (Cyrillic н
 * reads as h, Greek η as n).
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  // angle brackets
  "\u2039": "<", "\u2329": "<", "\u3008": "<", "\u27E8": "<", "\u02C2": "<", "\u1438": "<",
  "\u276C": "<", "\u276E": "<", "\u29FC": "<", "\u2D66": "<", "\u1BE0": "<",
  // confusable with "<" or 〈 by Unicode's data: runic kauna, hiragana ku, a CJK stroke, a Greek musical symbol, an ideograph
  "\u16B2": "<", "\u304F": "<", "\u31DB": "<", "\u{1D236}": "<", "\u{21FE8}": "<",
  // Cyrillic
  "\u0430": "a", "\u0410": "a", "\u0412": "b", "\u0432": "b", "\u0441": "c", "\u0421": "c",
  "\u0501": "d", "\u0435": "e", "\u0415": "e", "\u04BB": "h", "\u041D": "h", "\u043D": "h",
  "\u0456": "i", "\u0406": "i", "\u0458": "j", "\u0408": "j", "\u041A": "k", "\u043A": "k",
  "\u04CF": "l", "\u041C": "m", "\u043C": "m", "\u043E": "o", "\u041E": "o", "\u0440": "p",
  "\u0420": "p", "\u051B": "q", "\u0433": "r", "\u0455": "s", "\u0405": "s", "\u0422": "t",
  "\u0442": "t", "\u0443": "y", "\u0423": "y", "\u051D": "w", "\u0445": "x", "\u0425": "x",
  // Greek
  "\u03B1": "a", "\u0391": "a", "\u0392": "b", "\u03B2": "b", "\u03F2": "c", "\u0395": "e",
  "\u03B5": "e", "\u0397": "h", "\u03B7": "n", "\u0399": "i", "\u03B9": "i", "\u039A": "k",
  "\u03BA": "k", "\u039C": "m", "\u039D": "n", "\u03BD": "v", "\u039F": "o", "\u03BF": "o",
  "\u03A1": "p", "\u03C1": "p", "\u03A4": "t", "\u03C4": "t", "\u03A5": "y", "\u03C5": "u",
  "\u03A7": "x", "\u03C7": "x", "\u0396": "z",
  // Latin variants
  "\u0131": "i", "\u0261": "g", "\u1D00": "a", "\u1D04": "c", "\u1D07": "e", "\u0262": "g",
  "\u029C": "h", "\u026A": "i", "\u1D0B": "k", "\u029F": "l", "\u1D0D": "m", "\u0274": "n",
  "\u1D0F": "o", "\u1D18": "p", "\u0280": "r", "\uA731": "s", "\u1D1B": "t", "\u1D1C": "u",
  "\u1D20": "v", "\u1D21": "w", "\u028F": "y", "\u1D22": "z",
  // Look-alikes Unicode's confusables data adds: Cyrillic, Greek, IPA and Latin Extended-D letters
  "\u0251": "a", "\u042C": "b", "\uA7B4": "b", "\u03F9": "c", "\u04BD": "e", "\uA799": "f",
  "\uA798": "f", "\u03DC": "f", "\u050C": "g", "\u0269": "i", "\u037A": "i", "\u03F3": "j",
  "\uA7B2": "j", "\u037F": "j", "\u04C0": "l", "\u03FA": "m", "\u1D11": "o", "\u03C3": "o",
  "\u03F1": "p", "\u1D26": "r", "\uA79F": "u", "\u028B": "u", "\u0475": "v", "\u0474": "v",
  "\u026F": "w", "\u0461": "w", "\u051C": "w", "\uA7B3": "x", "\u0263": "y", "\u03B3": "y",
  "\u04AF": "y", "\u03D2": "y", "\u04AE": "y",
};

/**
 * Built when the module loads (after the tables above, which folding reads),
 * not on first use: the reserved names are folded once, in plain sight, and
 * no call depends on whether an earlier one built it.
 */
const defaultNeutraliser: Neutraliser = createNeutraliser();
