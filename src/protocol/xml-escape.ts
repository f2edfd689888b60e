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
