/**
 * The escape tables for everything written inside XML-like tags, for the
 * compiler and the runtime alike. Text needs `& < >`, a double-quoted
 * attribute also `"`; what the runtime writes inside a trusted injection
 * escapes `'` too, so no value can close its attribute, open a tag or end
 * the injection early whichever quotes a reader assumes.
 */
const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

/** Text between tags. */
export function escapeXmlText(text: string): string {
  return text.replace(/[&<>]/g, (character) => ESCAPES[character] ?? character);
}

/** A double-quoted attribute value. */
export function escapeXmlAttribute(text: string): string {
  return text.replace(/[&<>"]/g, (character) => ESCAPES[character] ?? character);
}

/** Attribute values and text inside a trusted injection: all five characters. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

/**
 * Characters XML 1.0 cannot hold, escaped or not: the C0 controls but tab,
 * line feed and carriage return, and U+FFFE and U+FFFF. One in a catalog
 * entry makes the whole document not well-formed.
 */
const NOT_IN_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/u;

/** The first character of `text` XML 1.0 cannot hold: its position in code points and what it is (`control character U+001B`); undefined when there is none. */
export function firstCharacterNotInXml(text: string): { codePointIndex: number; name: string } | undefined {
  if (!NOT_IN_XML.test(text)) return undefined;
  const characters = [...text];
  const codePointIndex = characters.findIndex((character) => NOT_IN_XML.test(character));
  const codePoint = characters[codePointIndex]?.codePointAt(0) ?? 0;
  return { codePointIndex, name: `${codePoint < 0x20 ? "control character" : "noncharacter"} U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}` };
}
