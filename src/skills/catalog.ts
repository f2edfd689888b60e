import { escapeXmlAttribute, escapeXmlText } from "../protocol/xml-escape.js";
import type { ValidSkill } from "../stage-data.js";

/**
 * The `<available_skills>` block in the design's multi-line form. It is part
 * of the shared cached prefix, so it depends only on skill names, types and
 * descriptions (sorted by name), never on where the project lives.
 */

export { escapeXmlAttribute, escapeXmlText };

/** Line breaks and runs of spaces inside a description would break the catalog's layout. */
export function collapseWhitespace(text: string): string {
  // Most descriptions are already collapsed; testing is cheaper than rebuilding each one on every watch rebuild.
  if (!NEEDS_COLLAPSING.test(text)) return text;
  return text.replace(/\s+/g, " ").trim();
}

/** Any whitespace but a single space between two other characters (what `trim` and `\s+` would change). */
const NEEDS_COLLAPSING = /[^\S ]|\s\s|^\s|\s$/;

export function skillPath(name: string): string {
  return `skills/${name}/SKILL.md`;
}

export type CatalogSkill = Pick<ValidSkill, "name" | "type" | "description">;

/** The catalog block without a trailing newline. */
export function renderCatalog(skills: readonly CatalogSkill[]): string {
  const parts = catalogParts(skills);
  return parts.head + parts.entries.join("") + parts.tail;
}

export const CATALOG_HEAD = "<available_skills>\n";
export const CATALOG_TAIL = "</available_skills>";

/**
 * The catalog as `head + entries.join("") + tail`, one entry per skill
 * (sorted by name), each ending with `</skill>` and a newline. Token counts
 * are summed entry by entry, so only an edited skill's entry is re-counted.
 */
export interface CatalogParts {
  head: string;
  entries: string[];
  tail: string;
}

export function catalogParts(skills: readonly CatalogSkill[], entry: (skill: CatalogSkill) => string = catalogEntry): CatalogParts {
  const sorted = [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { head: CATALOG_HEAD, entries: sorted.map((skill) => entry(skill)), tail: CATALOG_TAIL };
}

export function catalogEntry(skill: CatalogSkill): string {
  return (
    "  <skill\n" +
    `    name="${escapeXmlAttribute(skill.name)}"\n` +
    `    type="${escapeXmlAttribute(skill.type)}"\n` +
    `    path="${escapeXmlAttribute(skillPath(skill.name))}"\n` +
    "  >\n" +
    `    ${escapeXmlText(collapseWhitespace(skill.description))}\n` +
    "  </skill>\n"
  );
}

/** A tool namespace as the catalog of loadable namespaces shows it. */
export interface CatalogNamespace {
  name: string;
  description: string;
}

/**
 * The catalog of loadable tool namespaces, sorted by name, without a
 * trailing newline: only names and trigger descriptions, never a schema, so
 * the static prefix stays the same whichever namespaces a session loads.
 */
export function renderNamespaceCatalog(namespaces: readonly CatalogNamespace[]): string {
  const sorted = [...namespaces].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const entries = sorted.map((namespace) => `  <namespace name="${escapeXmlAttribute(namespace.name)}">\n    ${escapeXmlText(collapseWhitespace(namespace.description))}\n  </namespace>\n`);
  return `<tool_namespaces>\n${entries.join("")}</tool_namespaces>`;
}
