import { readFileSync } from "node:fs";
import { CompletionItemKind, type CompletionItem } from "vscode-languageserver/node";
import type { ProjectAnalysis } from "../analyze.js";
import { ruleRegistry, type RuleId } from "../diagnostics/rules/index.js";
import { packageSchemaUrl } from "../package-paths.js";
import { CONFIG_FILE, VARIANTS_FILE } from "../pipeline/discover/source-paths.js";
import { HOST_KEYS } from "../pipeline/validate/host-keys.js";
import { DESIGN_FIELDS } from "../protocol/manifest-spellings.js";
import { partialName } from "./symbols.js";

/**
 * Completion from what the compiler knows: skill names where a skill is
 * named, manifest keys and values from the skill manifest schema (host keys
 * included), partial names after `{{>`, rule ids in suppression comments and
 * in the config's `rules`. Each context is recognised from the text before
 * the cursor; outside them there is nothing to offer.
 */

interface SchemaProperty {
  description?: string;
  type?: string;
  enum?: string[];
}

let manifestProperties: Record<string, SchemaProperty> | undefined;

function manifestSchema(): Record<string, SchemaProperty> {
  manifestProperties ??= (JSON.parse(readFileSync(packageSchemaUrl("skill-manifest"), "utf8")) as { properties: Record<string, SchemaProperty> }).properties;
  return manifestProperties;
}

/** Keys the gamma manifest adds to the Agent Skills specification: not offered at the top level under the agentskills profile (their portable keys are, under metadata). */
const GAMMA_ONLY_KEYS = new Set<string>(DESIGN_FIELDS.map((spelling) => spelling.field));
const SKILL_LIST_KEYS = new Set(["requiresSkills", "conflictsWith"]);
/** `  gamma-requires-skills: ` and `  gamma-conflicts-with: `, up to the space after the colon. */
const PORTABLE_SKILL_KEY = /^\s+(?:gamma-requires-skills|gamma-conflicts-with):\s/;
/** A block list's item so far: `  - name`, or the same opened with a quote (`  - "name`). */
const SKILL_ITEM = /^\s+-\s*["']?[\w-]*$/;
const SUPPRESSION = /#\s*gamma-prompt-disable(?:-next-line)?\s+(?:[\w/-]+\s*,\s*)*[\w/-]*$/;

export function completions(analysis: ProjectAnalysis, path: string, text: string, line: number, character: number): CompletionItem[] {
  const items = itemsAt(analysis, path, text, line, character);
  if (items.length === 0) return items;
  // Each item replaces the whole name typed so far: a rule id holds `/` and a skill name `-`, which no client
  // counts as part of a word, so without the range one would insert `skill/skill/…` or filter every item out.
  const typed = typedName((text.split(LINE_BREAK)[line] ?? "").slice(0, character));
  const range = { start: { line, character: character - typed.length }, end: { line, character } };
  // No filterText: Neovim 0.7 takes the replaced range's start only from items without one, and others filter by the label.
  return items.map((item) => ({ ...item, textEdit: { range, newText: item.insertText ?? item.label } }));
}

/**
 * The name typed so far: the run of name characters (ASCII letters, digits, `_`, `.`, `/`, `-`) that ends at
 * the cursor, found from the cursor back (a pattern anchored at the end would be tried from every position of
 * a long line).
 */
function typedName(before: string): string {
  let start = before.length;
  while (start > 0 && NAME_CHARACTER.test(before[start - 1] ?? "")) start--;
  return before.slice(start);
}

const NAME_CHARACTER = /^[\w./-]$/;
/** Lines as the protocol counts them: a CRLF file from a Windows checkout has lines too. */
const LINE_BREAK = /\r\n|\r|\n/;

function itemsAt(analysis: ProjectAnalysis, path: string, text: string, line: number, character: number): CompletionItem[] {
  const lines = text.split(LINE_BREAK);
  const current = lines[line] ?? "";
  const before = current.slice(0, character);
  if (path.endsWith(".hbs")) return /\{\{~?>\s*[\w\-/]*$/.test(before) ? partialItems(analysis) : [];
  if (path === VARIANTS_FILE) return inPreload(lines, line, before) ? skillItems(analysis, undefined) : [];
  if (path === CONFIG_FILE) return configItems(lines, line, before);
  if (!path.endsWith("SKILL.md")) return [];
  if (SUPPRESSION.test(before)) return ruleItems((id) => id.startsWith("skill/"));
  const closing = frontmatterEnd(lines);
  if (closing === undefined || line === 0 || line >= closing) return [];
  const self = /^name:\s*["']?([^"'\s]+)/m.exec(lines.slice(0, closing).join("\n"))?.[1];
  const key = /^([\w-]+):/.exec(before)?.[1];
  // Inside a flow list: a `[` after the line's last `]`.
  if (key !== undefined && SKILL_LIST_KEYS.has(key) && before.lastIndexOf("[") > before.lastIndexOf("]")) return skillItems(analysis, self);
  if (SKILL_ITEM.test(before) && SKILL_LIST_KEYS.has(parentKey(lines, line) ?? "")) return skillItems(analysis, self);
  // The portable spelling under metadata: skill names inside the space-separated string, the type's two values, the keys.
  if (inPortableSkillList(before) && parentKey(lines, line) === "metadata") return skillItems(analysis, self);
  if (/^\s+gamma-type:\s*[\w-]*$/.test(before) && parentKey(lines, line) === "metadata") return valueItems("type");
  if (/^\s+[\w-]*$/.test(before) && parentKey(lines, line) === "metadata") return portableKeyItems(lines.slice(1, closing));
  if (key !== undefined && before.length > key.length) return valueItems(key);
  if (/^[\w-]*$/.test(before)) return keyItems(analysis, lines.slice(1, closing));
  return [];
}

/**
 * `  gamma-requires-skills: a b `, plain or inside a string opened with a quote: a skill name is completed after
 * the colon or after a space. (A pattern of repeated "spaces, then a name" would try every way of cutting a run
 * of spaces, which doubles with each space; the text after the key is read in steps instead.)
 */
function inPortableSkillList(before: string): boolean {
  const key = PORTABLE_SKILL_KEY.exec(before);
  if (!key) return false;
  const value = before.slice(key[0].length).trimStart();
  return /^[\s\w-]*$/.test(/^["']/.test(value) ? value.slice(1) : value);
}

function frontmatterEnd(lines: readonly string[]): number | undefined {
  // A byte order mark a client leaves in the text is no part of the opening line.
  if (!/^\uFEFF?---[ \t]*$/.test(lines[0] ?? "")) return undefined;
  const end = lines.findIndex((text, index) => index > 0 && /^---[ \t]*$/.test(text));
  return end < 0 ? lines.length : end;
}

/** The unindented key a list item belongs to. */
function parentKey(lines: readonly string[], line: number): string | undefined {
  for (let index = line - 1; index >= 0; index--) {
    const match = /^([\w-]+):/.exec(lines[index] ?? "");
    if (match) return match[1];
  }
  return undefined;
}

function inPreload(lines: readonly string[], line: number, before: string): boolean {
  if (/^\s*preload:\s*\[[^\]]*$/.test(before)) return true;
  if (!SKILL_ITEM.test(before)) return false;
  for (let index = line - 1; index >= 0; index--) {
    const text = lines[index] ?? "";
    if (/^\s*-/.test(text)) continue;
    return /^\s*preload:\s*$/.test(text);
  }
  return false;
}

function skillItems(analysis: ProjectAnalysis, exclude: string | undefined): CompletionItem[] {
  const items: CompletionItem[] = [];
  for (const file of analysis.skillFiles) {
    const name = file.manifest?.name;
    if (name === undefined || name === exclude) continue;
    const item: CompletionItem = { label: name, kind: CompletionItemKind.Reference };
    if (file.manifest?.type) item.detail = `${file.manifest.type} skill`;
    if (file.manifest?.description) item.documentation = file.manifest.description;
    items.push(item);
  }
  return items.sort((a, b) => (a.label < b.label ? -1 : 1));
}

function partialItems(analysis: ProjectAnalysis): CompletionItem[] {
  return (analysis.sources?.partials ?? [])
    .map((partial) => partialName(partial.path))
    .filter((name): name is string => name !== undefined)
    .map((name) => ({ label: name, kind: CompletionItemKind.File, detail: `prompts/partials/${name}.hbs` }));
}

/**
 * One spelling per SKILL.md: in a manifest that writes the design's fields in one spelling only, the other
 * spelling's keys are not offered (each would be a skill/manifest-spelling error there). The agentskills profile
 * never offers the top-level ones.
 */
function spellingsIn(frontmatter: readonly string[]): { topLevel: boolean; portable: boolean } {
  return {
    topLevel: frontmatter.some((text) => GAMMA_ONLY_KEYS.has(/^([\w-]+):/.exec(text)?.[1] ?? "")),
    portable: frontmatter.some((text) => PORTABLE_KEYS.has(/^\s+([\w-]+):/.exec(text)?.[1] ?? "")),
  };
}

const PORTABLE_KEYS = new Set(DESIGN_FIELDS.map((spelling) => spelling.portableKey));

function keyItems(analysis: ProjectAnalysis, frontmatter: readonly string[]): CompletionItem[] {
  const present = new Set(frontmatter.map((text) => /^([\w-]+):/.exec(text)?.[1]).filter((key): key is string => key !== undefined));
  const hostKeys = new Map(HOST_KEYS.map((entry) => [entry.key, entry]));
  const spellings = spellingsIn(frontmatter);
  const withoutDesign = analysis.profile === "agentskills" || (spellings.portable && !spellings.topLevel);
  const items: CompletionItem[] = [];
  for (const [key, property] of Object.entries(manifestSchema())) {
    if (present.has(key) || (withoutDesign && GAMMA_ONLY_KEYS.has(key))) continue;
    const host = hostKeys.get(key);
    const item: CompletionItem = { label: key, kind: CompletionItemKind.Property, insertText: `${key}: `, detail: host ? `host key (${host.hosts})` : "manifest key" };
    if (property.description) item.documentation = property.description;
    items.push(item);
  }
  return items;
}

/** The design's portable keys not yet under metadata; none in a manifest that writes the design's top-level keys only. */
function portableKeyItems(frontmatter: readonly string[]): CompletionItem[] {
  const spellings = spellingsIn(frontmatter);
  if (spellings.topLevel && !spellings.portable) return [];
  const present = new Set(frontmatter.map((text) => /^\s+([\w-]+):/.exec(text)?.[1]));
  return DESIGN_FIELDS.filter((spelling) => !present.has(spelling.portableKey)).map((spelling) => {
    const item: CompletionItem = { label: spelling.portableKey, kind: CompletionItemKind.Property, insertText: `${spelling.portableKey}: `, detail: `manifest key (${spelling.field}, portable spelling)` };
    const documentation = manifestSchema()[spelling.field]?.description;
    if (documentation) item.documentation = spelling.list ? `${documentation} One string, names separated by spaces.` : documentation;
    return item;
  });
}

function valueItems(key: string): CompletionItem[] {
  const property = manifestSchema()[key];
  if (!property) return [];
  if (property.enum) return property.enum.map((value) => ({ label: value, kind: CompletionItemKind.EnumMember }));
  if (property.type === "boolean") return ["true", "false"].map((value) => ({ label: value, kind: CompletionItemKind.Value }));
  return [];
}

function ruleItems(accept: (id: RuleId) => boolean): CompletionItem[] {
  return (Object.keys(ruleRegistry) as RuleId[])
    .filter(accept)
    .map((id) => ({ label: id, kind: CompletionItemKind.Constant, detail: ruleRegistry[id].severity, documentation: ruleRegistry[id].description }));
}

const SETTINGS = ["off", "note", "warn", "error"];

/** Inside the config's `rules` object: rule ids as keys, severities as values. */
function configItems(lines: readonly string[], line: number, before: string): CompletionItem[] {
  const upTo = [...lines.slice(0, line), before].join("\n");
  const rulesAt = upTo.lastIndexOf('"rules"');
  if (rulesAt < 0) return [];
  const inside = upTo.slice(rulesAt);
  const depth = (inside.match(/\{/g)?.length ?? 0) - (inside.match(/\}/g)?.length ?? 0);
  if (depth !== 1) return [];
  if (/:\s*"[a-z]*$/.test(before)) return SETTINGS.map((setting) => ({ label: setting, kind: CompletionItemKind.EnumMember }));
  // Only skill rules can be configured.
  if (/(?:^|[{,])\s*"[\w/-]*$/.test(before)) return ruleItems((id) => id.startsWith("skill/"));
  return [];
}
