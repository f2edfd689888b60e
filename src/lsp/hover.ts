import { MarkupKind, type Hover } from "vscode-languageserver/node";
import type { ProjectAnalysis } from "../analyze.js";
import { ruleDocUrl, ruleRegistry, type RuleId } from "../diagnostics/rules/index.js";
import { ruleDoc } from "../diagnostics/rules/docs.js";
import { tokenizer } from "../tokens.js";
import { normalizeSkillBody } from "../pipeline/render/render.js";
import type { SymbolKind } from "./symbols.js";
import { templateUse } from "./template-use.js";

/**
 * Hover: what the compiler knows about the name under the cursor. A skill:
 * its description, type and what its body costs in o200k tokens; a partial:
 * its tokens and where the prompt holds it; a rule id: its documentation.
 */

export function symbolHover(analysis: ProjectAnalysis, symbol: { kind: SymbolKind; name: string }, toolFile: string | undefined): Hover | undefined {
  if (symbol.kind === "skill") {
    const file = analysis.skillFiles.find((record) => record.manifest?.name === symbol.name);
    if (!file?.manifest) return markdown(`**${symbol.name}**: no skill has this name`);
    const compiled = analysis.manifest?.skills[symbol.name];
    const tokens = compiled?.tokens ?? tokenizer().count(normalizeSkillBody(file.body));
    const lines = [`**${symbol.name}** (${file.manifest.type ?? "no type"} skill, \`${file.path}\`)`, "", file.manifest.description ?? "(no description)", "", `Body: ${formatCount(tokens)} o200k tokens`];
    const preloadedBy = Object.entries(analysis.manifest?.variants ?? {})
      .filter(([, variant]) => variant.preloadedSkills.includes(symbol.name))
      .map(([name]) => name);
    if (preloadedBy.length > 0) lines.push(`Preloaded by: ${preloadedBy.join(", ")}`);
    return markdown(lines.join("\n"));
  }
  if (symbol.kind === "partial") {
    const use = templateUse(analysis, `prompts/partials/${symbol.name}.hbs`);
    if (!use) return markdown(`**{{> ${symbol.name}}}**: no partial has this name`);
    return markdown(`**{{> ${symbol.name}}}** (\`${use.path}\`)\n\n${formatCount(use.tokens)} o200k tokens of template text, ${use.where}`);
  }
  const source = analysis.sources?.toolFiles.find((file) => file.path === toolFile);
  let description = "";
  try {
    const value = source ? (JSON.parse(source.text) as { description?: unknown }) : undefined;
    if (typeof value?.description === "string") description = value.description;
  } catch {
    // A schema that is not JSON has its own finding.
  }
  const tokens = source ? `\n\nSchema: ${formatCount(tokenizer().count(source.text))} o200k tokens, in the tools block every variant caches first` : "";
  return markdown(`**${symbol.name}** tool${toolFile ? ` (\`${toolFile}\`)` : ""}\n\n${description}${tokens}`);
}

/** A rule id under the cursor (in a suppression comment, the config, anywhere): its documentation. */
export function ruleHover(line: string, character: number): Hover | undefined {
  // Only the run of id characters around the cursor is read: a pattern over the whole line would take
  // time in the square of a long run of letters (a minified line), and every request waits behind a hover.
  const run = idRunAt(line, character);
  if (run === undefined) return undefined;
  // A rule id is two parts of the run (`docs/rules/skill/broken-link.md` holds one): the pair the cursor is in.
  const parts = run.text.split("/");
  for (let index = 0, offset = run.start; index < parts.length - 1; offset += (parts[index] as string).length + 1, index++) {
    const candidate = `${parts[index]}/${parts[index + 1]}`;
    if (character < offset || character > offset + candidate.length || !Object.prototype.hasOwnProperty.call(ruleRegistry, candidate)) continue;
    const id = candidate as RuleId;
    const doc = ruleDoc(id);
    return markdown([`**${id}** (${ruleRegistry[id].severity})`, "", doc.text, "", "Bad:", "```", doc.bad, "```", "Good:", "```", doc.good, "```", "", `[Rule documentation](${ruleDocUrl(id)})`].join("\n"));
  }
  return undefined;
}

/** Longer than any path a rule id is written in: a run of id characters past this holds none. */
const MAX_ID_RUN = 100;

/** The run of characters rule ids are made of (`a-z`, `0-9`, `-`, `/`) that holds the cursor (or ends at it), when it is short enough to hold one. */
function idRunAt(line: string, character: number): { text: string; start: number } | undefined {
  const isIdCharacter = (at: number): boolean => /[a-z0-9/-]/.test(line[at] ?? "");
  let start = Math.min(character, line.length);
  let end = start;
  while (start > 0 && isIdCharacter(start - 1)) if (end - --start > MAX_ID_RUN) return undefined;
  while (end < line.length && isIdCharacter(end)) if (++end - start > MAX_ID_RUN) return undefined;
  return end > start ? { text: line.slice(start, end), start } : undefined;
}

export function formatCount(value: number): string {
  return value.toLocaleString("en-US");
}

function markdown(value: string): Hover {
  return { contents: { kind: MarkupKind.Markdown, value } };
}
