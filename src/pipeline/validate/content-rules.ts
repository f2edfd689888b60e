import type { Range } from "../../diagnostics/diagnostic.js";
import type { FrontmatterSplit } from "../parse/frontmatter.js";
import type { LineIndex } from "../parse/positions.js";
import type { YamlProblem, YamlTree } from "../parse/yaml-tree.js";
import { allowedToolsProblem, firstSeparatingComma } from "./allowed-tools.js";
import { characterRange } from "./frontmatter-schema.js";
import { lacksTrigger } from "../../protocol/description-trigger.js";
import { firstCharacterNotInXml } from "../../protocol/xml-escape.js";
import { findWrapperClosers } from "../../protocol/reserved-tags.js";

/** The Agent Skills specification's recommended most lines for a SKILL.md body. */
export const MAX_BODY_LINES = 500;

/**
 * Per-file content rules, beyond the schema: they read what a value says (a trigger,
 * a comma list) or the body's length, not only its type.
 */
export function contentProblems(tree: YamlTree, split: FrontmatterSplit, index: LineIndex): YamlProblem[] {
  const problems: YamlProblem[] = [];
  const value = tree.value as Record<string, unknown>;
  const description = value["description"];
  const descriptionRange = tree.valueRanges.get("/description") ?? split.opening;
  const notInXml = typeof description === "string" ? firstCharacterNotInXml(description) : undefined;
  if (typeof description === "string" && notInXml) {
    // Any profile: the character reaches every host's catalog, and no XML reader can take it, escaped or not.
    problems.push({
      ruleId: "skill/description-control-character",
      range: characterRange(descriptionRange, index, description, notInXml.codePointIndex),
      message: `Unexpected ${notInXml.name} in description, expected plain text (the catalog is XML, which cannot hold it even escaped)`,
    });
  }
  if (typeof description === "string" && description.trim() !== "") {
    // A skill kept out of the model's catalog (only the user invokes it) is never chosen by its description.
    if (value["disable-model-invocation"] !== true && lacksTrigger(description)) {
      problems.push({
        ruleId: "skill/description-trigger",
        range: descriptionRange,
        message: `Unexpected description that says what the skill is but not when to use it, expected the matching task in direct terms ("Use when …", "TRIGGER when …", "Use BEFORE …", "Use for …")`,
      });
    }
    if (description !== description.trim() && isQuoted(descriptionRange, index)) {
      problems.push({ ruleId: "skill/description-whitespace", range: descriptionRange, message: "Unexpected spaces at the start or end of the quoted description, expected the text alone (gamma-prompt lint --fix trims them)" });
    }
  }
  const tools = value["allowed-tools"];
  if (typeof tools === "string") {
    const toolsRange = tree.valueRanges.get("/allowed-tools") ?? split.opening;
    const problem = allowedToolsProblem(tools, toolsRange);
    const comma = firstSeparatingComma(tools);
    // The finding is about a character: it points at the first separating comma, wherever the scalar writes it.
    if (problem) problems.push(comma === undefined ? problem : { ...problem, range: characterRange(toolsRange, index, tools, comma) });
  }
  const bodyLines = split.body === "" ? 0 : lineFeeds(split.body);
  if (bodyLines > MAX_BODY_LINES) {
    const line = split.bodyStartLine + MAX_BODY_LINES;
    problems.push({
      ruleId: "skill/body-too-long",
      range: index.lineRange(line),
      message: `Unexpected body of ${bodyLines} lines, expected at most ${MAX_BODY_LINES} (the Agent Skills recommendation): move detail into files under references/ and link them`,
    });
  }
  return problems;
}

/**
 * Each closing tag of a wrapper the runtime puts the body in (`</skill>`,
 * `</preloaded_skill>`, `</session_state>`), wherever it stands, code
 * included: the runtime puts a skill's body inside them as text, where such
 * a closer ends one.
 */
export function reservedCloserProblems(split: FrontmatterSplit, index: LineIndex): YamlProblem[] {
  if (split.body === "") return [];
  const offset = index.lineStart(split.bodyStartLine);
  return findWrapperClosers(split.body).map((closer) => ({
    ruleId: "skill/reserved-closer",
    range: index.range(offset + closer.start, offset + closer.end),
    message: `Unexpected "${closer.written}" in the body, expected no closing tag of the runtime's <${closer.name}>, which the body is put inside when it is preloaded or returned: it ends that wrapper early (write "&lt;/${closer.name}>", or name the tag otherwise)`,
  }));
}

/** How many line feeds the text holds (what splitting it at each would give, less one), without making the lines. */
function lineFeeds(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

function isQuoted(range: Range, index: LineIndex): boolean {
  const first = index.text[index.lineStart(range.start.line) + range.start.column - 1];
  return first === '"' || first === "'";
}
