import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { RuleId } from "../../diagnostics/rules/index.js";
import type { SkillType } from "../../stage-data.js";
import { chooseFixType } from "../../skills/type-rule.js";
import { isMapping, type ParsedSkillFile } from "../parse/parse.js";
import { fixedAllowedTools, quoteIfNeeded } from "../validate/allowed-tools.js";
import type { Profile } from "../validate/lint-config.js";
import { allowedToolsOf, portableYamlProblems } from "../validate/portable-yaml.js";
import { overlapping, type DeclinedFix, type FixSite, type PlannedFix } from "./planned-fix.js";
import { metadataEnd, planPortableManifest, planPortableYaml, PORTABLE_MANIFEST_RULES } from "./portable-fixes.js";

/**
 * The safe, mechanical fixes `lint --fix` makes, planned as text edits on a
 * SKILL.md's normalised text (LF, no BOM). Only the frontmatter is touched,
 * and only for a finding the lint run still reports (a suppressed or "off"
 * rule is never fixed):
 * - `skill/missing-key` for `type` (gamma profile): a `type` line guessed from the body's shape;
 * - `skill/allowed-tools-format`: the list or comma-separated string becomes the space-separated string;
 * - `skill/description-whitespace`: the spaces inside the description's quotes are trimmed;
 * - `skill/portable-manifest` and `skill/manifest-spelling`: the design's top-level fields move under metadata;
 * - `skill/yaml-portable`: a one-line flow list or mapping is written in block style, a tab as a space
 *   (a flow list as `allowed-tools` becomes the space-separated string, as for `skill/allowed-tools-format`).
 * Anything the planner cannot rewrite without losing a byte it does not own
 * (a comment inside a list, an alias, a flow mapping) is left as a finding.
 * A fix that would change what a suppression comment covers, or bring a
 * finding the file does not have, is left too, and said (`declined`).
 */

export type { DeclinedFix, PlannedFix, TextEdit } from "./planned-fix.js";

/** The rule ids --fix knows how to fix. */
export const FIXABLE_RULES: ReadonlySet<RuleId> = new Set<RuleId>([
  "skill/missing-key",
  "skill/allowed-tools-format",
  "skill/description-whitespace",
  "skill/portable-manifest",
  "skill/manifest-spelling",
  "skill/yaml-portable",
]);

/** `declined`, when given, receives the findings left for a person that the user would otherwise expect fixed, and why. */
export async function planFixes(parsed: ParsedSkillFile, findings: readonly Diagnostic[], profile: Profile, declined?: DeclinedFix[]): Promise<PlannedFix[]> {
  const { split, tree, index } = parsed;
  if (!split || !tree || !isMapping(tree.value)) return [];
  // A flow mapping (`{name: x}`) has no line to add a key on.
  if (/^(?:[ \t]*(?:#.*)?\n)*[ \t]*\{/.test(index.text.slice(split.yamlStart, split.yamlEnd))) return [];
  const fixes: PlannedFix[] = [];
  // Moving the manifest is one fix for the whole file, whichever of its findings asked; it goes first, and a
  // fix that would touch the lines it rewrites (a flow list it moves anyway) is left out.
  const moving = findings.find((finding) => PORTABLE_MANIFEST_RULES.has(finding.ruleId));
  const move = moving ? planPortableManifest(parsed, { ruleId: moving.ruleId, line: moving.line, column: moving.column }, declined) : undefined;
  if (move) fixes.push(move);
  for (const finding of findings) {
    if (PORTABLE_MANIFEST_RULES.has(finding.ruleId)) continue;
    const fix = await planFix(finding, parsed, tree.value, profile, declined);
    if (fix && !overlapping([...fixes.flatMap((kept) => kept.edits), ...fix.edits])) fixes.push(fix);
  }
  return fixes;
}

async function planFix(finding: Diagnostic, parsed: ParsedSkillFile, frontmatter: Record<string, unknown>, profile: Profile, declined?: DeclinedFix[]): Promise<PlannedFix | undefined> {
  const at = { ruleId: finding.ruleId, line: finding.line, column: finding.column };
  switch (finding.ruleId) {
    case "skill/missing-key":
      if (profile !== "gamma" || !finding.message.includes('without "type"') || Object.prototype.hasOwnProperty.call(frontmatter, "type")) return undefined;
      return insertType(parsed, at, declined);
    case "skill/allowed-tools-format":
      return rewriteAllowedTools(parsed, frontmatter["allowed-tools"], at);
    case "skill/description-whitespace":
      return trimDescription(parsed, frontmatter["description"], at, declined);
    case "skill/yaml-portable": {
      // A flow-style list as allowed-tools is rewritten as the one string the specification wants, as allowed-tools-format's fix does.
      const tools = parsed.tree?.valueRanges.get("/allowed-tools");
      const atTools = tools !== undefined && tools.start.line === finding.line && tools.start.column === finding.column;
      return (atTools ? rewriteAllowedTools(parsed, frontmatter["allowed-tools"], at) : undefined) ?? planPortableYaml(parsed, finding, at);
    }
    default:
      return undefined;
  }
}

/**
 * The type {@link chooseFixType} gives for one file (init, for a whole collection, is warier of a workflow), or
 * none, said, when either type would bring a finding. In the portable spelling, as `gamma-type` under metadata (a
 * new block at the end of the frontmatter when there is none); in a file that writes the design's fields at the
 * top level, or whose frontmatter holds YAML other Agent Skills tools cannot read (the portable spelling would
 * bring `skill/yaml-portable` findings about it), as `type` right after `name`'s value, or before the closing
 * `---` when there is no name.
 */
async function insertType(parsed: ParsedSkillFile, site: FixSite, declined?: DeclinedFix[]): Promise<PlannedFix | undefined> {
  const { split, tree, index, source } = parsed;
  if (!split || !tree) return undefined;
  const choice = await chooseFixType(source.text, split, (parsed.manifest?.toolNamespaces.length ?? 0) > 0);
  if (choice === undefined) return undefined;
  if ("unfit" in choice) {
    declined?.push({ ...site, reason: `the type is left for a person: ${choice.unfit}` });
    return undefined;
  }
  const type: SkillType = choice.type;
  const nameKey = tree.keyRanges.get("/name");
  const nameValue = tree.valueRanges.get("/name");
  const anyKey = [...tree.keyRanges.entries()].find(([pointer]) => pointer.lastIndexOf("/") === 0)?.[1];
  const indentOf = (line: number, column: number): string | undefined => {
    const prefix = index.text.slice(index.lineStart(line), index.lineStart(line) + column - 1);
    return /^ *$/.test(prefix) ? prefix : undefined;
  };
  let offset: number;
  let indent: string | undefined;
  if (nameKey && nameValue && nameValue.end.line < split.closing.start.line) {
    offset = index.lineStart(nameValue.end.line + 1);
    indent = indentOf(nameKey.start.line, nameKey.start.column);
  } else {
    offset = split.yamlEnd;
    indent = anyKey ? indentOf(anyKey.start.line, anyKey.start.column) : "";
  }
  if (indent === undefined || offset > split.yamlEnd) return undefined;
  const why = choice.reason;
  const written = parsed.spellings?.written ?? [];
  // Portable by default: a skill that writes none of the design's fields at the top level (a plain Agent Skill),
  // or writes any under metadata, gets its type under metadata, where every Agent Skills validator accepts it;
  // one wholly in the top-level spelling gets it there, one spelling per file.
  const underMetadata = written.some((field) => field.portable !== undefined);
  // Under gamma, a file with a field under metadata is judged as portable (skill/yaml-portable): a first one
  // must not bring findings about YAML the file already had.
  const staysReadable = underMetadata || portableYamlProblems(split, index, source.byteOrderMark === true, allowedToolsOf(parsed)).length === 0;
  const frontmatter = isMapping(tree.value) ? tree.value : undefined;
  // One with no entry line to insert before (a flow mapping, `{}`, an empty value) stays for a person: a top-level
  // type would make the skill non-portable, and gamma-type would bring skill/yaml-portable about the flow mapping.
  const place = frontmatter?.["metadata"] === undefined ? undefined : metadataEnd(parsed);
  const wantsMetadata = underMetadata || !written.some((field) => field.topLevel !== undefined);
  if (wantsMetadata && frontmatter?.["metadata"] !== undefined && (!place || !isMapping(frontmatter["metadata"]))) {
    declined?.push({ ...site, reason: 'the type is left for a person: metadata is written on one line (a flow mapping, or empty), which "gamma-type" cannot join, and a top-level "type" would make the skill non-portable' });
    return undefined;
  }
  if (underMetadata || (staysReadable && wantsMetadata)) {
    if (frontmatter?.["metadata"] === undefined) {
      // No metadata yet: a block of its own at the end of the frontmatter.
      return {
        ...site,
        message: `inserted "gamma-type: ${type}" under metadata (${why})`,
        edits: [{ start: split.yamlEnd, end: split.yamlEnd, insert: `${indent}metadata:\n${indent}  gamma-type: ${type}\n` }],
        expect: (value) => {
          value["metadata"] = Object.assign(Object.create(null) as Record<string, unknown>, { "gamma-type": type });
        },
      };
    }
    // As the metadata mapping's first entry, above any comment over the one that was first.
    if (!place || !isMapping(frontmatter["metadata"])) return undefined;
    return {
      ...site,
      message: `inserted "gamma-type: ${type}" under metadata (${why})`,
      edits: [{ start: place.first, end: place.first, insert: `${place.indent}gamma-type: ${type}\n` }],
      expect: (value) => {
        (value["metadata"] as Record<string, unknown>)["gamma-type"] = type;
      },
    };
  }
  return {
    ...site,
    message: `inserted "type: ${type}" (${why})`,
    edits: [{ start: offset, end: offset, insert: `${indent}type: ${type}\n` }],
    expect: (value) => {
      value["type"] = type;
    },
  };
}

/** A list or comma-separated `allowed-tools` becomes one space-separated string, keeping the key and anything around it. */
function rewriteAllowedTools(parsed: ParsedSkillFile, value: unknown, site: FixSite): PlannedFix | undefined {
  const { tree, index } = parsed;
  const fixed = fixedAllowedTools(value);
  const valueRange = tree?.valueRanges.get("/allowed-tools");
  const keyRange = tree?.keyRanges.get("/allowed-tools");
  if (fixed === undefined || fixed === "" || !valueRange || !keyRange) return undefined;
  const valueStart = index.lineStart(valueRange.start.line) + valueRange.start.column - 1;
  const valueEnd = index.lineStart(valueRange.end.line) + valueRange.end.column - 1;
  // An alias, anchor or tag belongs to more than this value.
  if (/^[*&!]/.test(index.text.slice(valueStart, valueEnd))) return undefined;
  let start = valueStart;
  if (Array.isArray(value)) {
    // From just after the key's colon: a block list starts on the next line.
    const keyEnd = index.lineStart(keyRange.end.line) + keyRange.end.column - 1;
    // Only spaces and line breaks may sit between the colon and the list: an anchor or a tag belongs to more than this value.
    const colon = /^[ \t]*:[ \t\n]*$/.exec(index.text.slice(keyEnd, valueStart));
    if (!colon) return undefined;
    start = keyEnd + index.text.slice(keyEnd, valueStart).indexOf(":") + 1;
  }
  // A comment between or after the items would be lost.
  if (index.text.slice(start, valueEnd).includes("#")) return undefined;
  const written = quoteIfNeeded(fixed);
  return {
    ...site,
    message: `rewrote allowed-tools ${Array.isArray(value) ? "from a list" : "without commas"} as one space-separated string: ${written}`,
    edits: [{ start, end: valueEnd, insert: Array.isArray(value) ? ` ${written}` : written }],
    expect: (frontmatter) => {
      frontmatter["allowed-tools"] = fixed;
    },
  };
}

/** What each one-character escape of a double-quoted YAML string stands for (an escaped line break joins two lines: nothing). */
const YAML_ESCAPES: Readonly<Record<string, string>> = { "0": "\0", a: "\x07", b: "\b", t: "\t", "\t": "\t", n: "\n", v: "\v", f: "\f", r: "\r", e: "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", N: "\x85", _: "\xa0", L: "\u2028", P: "\u2029", "\n": "" };
/** A quoted string's text in its units: an escape whole (`\\` is one backslash, never the start of `\ `), any other character alone. */
const DOUBLE_QUOTED_UNIT = /\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[\s\S])|[\s\S]/g;
const SINGLE_QUOTED_UNIT = /''|[\s\S]/g;

/** True when a unit of a quoted string reads as white space only (what String.prototype.trim removes), or as nothing. */
function blankUnit(unit: string): boolean {
  if (unit.length === 1 || !unit.startsWith("\\")) return unit.trim() === "";
  const hex = /^\\[xuU]([0-9a-fA-F]+)$/.exec(unit)?.[1];
  const code = hex === undefined ? undefined : Number.parseInt(hex, 16);
  const decoded = code === undefined ? YAML_ESCAPES[unit.slice(1)] : code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
  return decoded !== undefined && decoded.trim() === "";
}

/** The spaces (and space escapes) just inside a quoted description's quotes are removed. */
function trimDescription(parsed: ParsedSkillFile, value: unknown, site: FixSite, declined?: DeclinedFix[]): PlannedFix | undefined {
  const { tree, index } = parsed;
  const range = tree?.valueRanges.get("/description");
  if (typeof value !== "string" || !range) return undefined;
  const start = index.lineStart(range.start.line) + range.start.column - 1;
  const end = index.lineStart(range.end.line) + range.end.column - 1;
  const quote = index.text[start];
  if ((quote !== '"' && quote !== "'") || index.text[end - 1] !== quote || end - start < 2) return undefined;
  const inner = index.text.slice(start + 1, end - 1);
  // Read from the start, so that an escaped backslash before a space is never taken for an escaped space.
  const units = inner.match(quote === '"' ? DOUBLE_QUOTED_UNIT : SINGLE_QUOTED_UNIT) ?? [];
  const first = units.findIndex((unit) => !blankUnit(unit));
  let last = units.length - 1;
  while (last >= 0 && blankUnit(units[last] as string)) last--;
  const trimmed = first === -1 ? "" : units.slice(first, last + 1).join("");
  if (trimmed === inner || trimmed === "") {
    declined?.push({ ...site, reason: "the description is left for a person: --fix found no space it can remove just inside its quotes" });
    return undefined;
  }
  return {
    ...site,
    message: "trimmed the spaces inside the description's quotes",
    edits: [{ start: start + 1, end: end - 1, insert: trimmed }],
    expect: (frontmatter) => {
      frontmatter["description"] = value.trim();
    },
  };
}
