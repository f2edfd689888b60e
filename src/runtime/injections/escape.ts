/**
 * The one escape table for everything the runtime writes inside a trusted
 * tag: attribute values and text use the same five replacements, so a value
 * can never close its attribute, open a tag or end the injection early.
 */
const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

const SPECIAL = /[&<>"']/g;

export function escapeXml(text: string): string {
  return text.replace(SPECIAL, (character) => ESCAPES[character] ?? character);
}
