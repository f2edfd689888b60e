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
  for (const match of line.matchAll(/[a-z]+\/[a-z0-9-]+/g)) {
    const start = match.index ?? 0;
    if (character < start || character > start + match[0].length) continue;
    if (!Object.prototype.hasOwnProperty.call(ruleRegistry, match[0])) return undefined;
    const id = match[0] as RuleId;
    const doc = ruleDoc(id);
    return markdown([`**${id}** (${ruleRegistry[id].severity})`, "", doc.text, "", "Bad:", "```", doc.bad, "```", "Good:", "```", doc.good, "```", "", `[Rule documentation](${ruleDocUrl(id)})`].join("\n"));
  }
  return undefined;
}

export function formatCount(value: number): string {
  return value.toLocaleString("en-US");
}

function markdown(value: string): Hover {
  return { contents: { kind: MarkupKind.Markdown, value } };
}
