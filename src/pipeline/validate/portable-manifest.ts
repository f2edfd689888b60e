import type { Range } from "../../diagnostics/diagnostic.js";
import type { RuleId } from "../../diagnostics/rules/index.js";
import { quoteIfNeeded } from "./allowed-tools.js";
import { DESIGN_FIELDS, portableLabel, tokensOf, type FieldPlace, type ManifestSpellings, type WrittenField } from "../parse/design-fields.js";
import type { YamlTree } from "../parse/yaml-tree.js";
import { didYouMean } from "../../protocol/suggest.js";
import { quoted } from "../../diagnostics/quote.js";

/**
 * The two spellings of the design's fields, judged per file:
 * - `skill/manifest-spelling` (both profiles): one SKILL.md writes each field
 *   once and uses one spelling, so no reader has to guess which one counts;
 * - `skill/portable-manifest` (the agentskills profile): a top-level design
 *   field is named with the metadata key that Agent Skills validators accept;
 * - `skill/unknown-key` for a `gamma-` key under metadata that is none of the
 *   portable keys: the prefix is this project's, so it is a typo, and a
 *   misspelt field would otherwise be dropped without a word.
 */

export interface SpellingProblem {
  ruleId: RuleId;
  range: Range;
  message: string;
  related?: { range: Range; message: string };
}

export function manifestSpellingProblems(spellings: ManifestSpellings, portableRule: boolean): SpellingProblem[] {
  const problems: SpellingProblem[] = [];
  const { written } = spellings;
  const underMetadataOnly = written.filter((field) => field.portable && !field.topLevel);
  const firstPortable = underMetadataOnly[0]?.portable;
  for (const field of written) {
    const { spelling, topLevel, portable } = field;
    if (!topLevel) continue;
    const label = portableLabel(spelling.field);
    if (portable) {
      const same = sameValue(field);
      problems.push({
        ruleId: "skill/manifest-spelling",
        range: topLevel.keyRange,
        message: same
          ? `Unexpected "${spelling.field}" written twice, at the top level (${at(topLevel)}) and as ${label} (${at(portable)}), expected it once: ${label}`
          : `Unexpected two values for "${spelling.field}": ${show(topLevel.value)} at the top level (${at(topLevel)}) and ${show(portable.value)} as ${label} (${at(portable)}), expected one`,
        related: { range: portable.keyRange, message: `${label}, the other spelling` },
      });
      continue;
    }
    if (firstPortable) {
      const other = underMetadataOnly[0]?.spelling.field ?? "type";
      problems.push({
        ruleId: "skill/manifest-spelling",
        range: topLevel.keyRange,
        message: `Unexpected top-level "${spelling.field}" (${at(topLevel)}) in a manifest that writes ${portableLabel(other)} (${at(firstPortable)}), expected one spelling per SKILL.md: ${label}`,
        related: { range: firstPortable.keyRange, message: `${portableLabel(other)}, the portable spelling` },
      });
      continue;
    }
    // A type that is neither workflow nor reference is skill/type-value's finding, with its own way out.
    const invalidType = spelling.field === "type" && topLevel.value !== "workflow" && topLevel.value !== "reference";
    if (portableRule && !invalidType) problems.push({ ruleId: "skill/portable-manifest", range: topLevel.keyRange, message: portableMessage(field, topLevel) });
  }
  return problems;
}

/** What to write instead, with the value when it is one a metadata string can hold. */
function portableMessage(field: WrittenField, topLevel: FieldPlace): string {
  const { spelling } = field;
  // lint --fix moves a field of a block mapping; one inside a frontmatter written as a flow mapping is moved by hand.
  const how = topLevel.keyRange.start.column === 1 ? "gamma-prompt lint --fix moves it" : "move it by hand: lint --fix moves the fields of a block mapping only";
  const why = `the spelling Agent Skills validators such as skills-ref accept (${how})`;
  const value = topLevel.value;
  if (spelling.list && Array.isArray(value) && value.length === 0) {
    return `Unexpected top-level "${spelling.field}", expected the empty list left out (a list goes under metadata as "${spelling.portableKey}: a b"), ${why}`;
  }
  const text = !spelling.list && typeof value === "string" ? value : spelling.list && Array.isArray(value) && value.every((item) => typeof item === "string") ? value.join(" ") : undefined;
  const entry = text === undefined ? `"${spelling.portableKey}"` : `"${spelling.portableKey}: ${quoteIfNeeded(text)}"`;
  return `Unexpected top-level "${spelling.field}", expected ${entry} under metadata, ${why}`;
}

function sameValue(field: WrittenField): boolean {
  const top = field.topLevel?.value;
  const portable = field.portable?.value;
  if (typeof portable !== "string") return false;
  if (!field.spelling.list) return top === portable;
  const names = tokensOf(portable).map((token) => token.text);
  return Array.isArray(top) && top.length === names.length && top.every((item, position) => item === names[position]);
}

function at(place: FieldPlace): string {
  return `${place.keyRange.start.line}:${place.keyRange.start.column}`;
}

function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => (typeof item === "string" ? item : JSON.stringify(item))).join(", ")}]`;
  return JSON.stringify(value) ?? String(value);
}

const PORTABLE_KEYS = DESIGN_FIELDS.map((spelling) => spelling.portableKey);

export function unknownPortableKeys(tree: YamlTree): SpellingProblem[] {
  const metadata = (tree.value as Record<string, unknown>)["metadata"];
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return [];
  const problems: SpellingProblem[] = [];
  for (const key of Object.keys(metadata)) {
    if (!key.startsWith("gamma-") || PORTABLE_KEYS.includes(key)) continue;
    const range = tree.keyRanges.get(`/metadata/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`);
    if (!range) continue;
    const hint = didYouMean(key, PORTABLE_KEYS);
    problems.push({
      ruleId: "skill/unknown-key",
      range,
      message: `Unexpected key ${quoted(key)} under metadata, expected ${hint === "" ? `one of the design's keys (${PORTABLE_KEYS.join(", ")})` : "a design key"}: keys starting with gamma- are gamma-prompt's${hint}`,
    });
  }
  return problems;
}
