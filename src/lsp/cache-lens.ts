import type { CodeLens } from "vscode-languageserver/node";
import type { ProjectAnalysis } from "../analyze.js";
import { formatInvalidationCost } from "../cost/invalidation.js";
import { TOOLS_DIR, TOOL_ORDER_FILE } from "../pipeline/discover/source-paths.js";
import { normalizeSkillBody } from "../pipeline/render/render.js";
import { tokenizer } from "../tokens.js";
import { formatCount } from "./hover.js";
import { templateUse } from "./template-use.js";

/**
 * The cache in the editor: on each template and partial, each skill a
 * variant preloads and each tool schema, a lens with its o200k tokens, the
 * variants that hold it and whether it lies inside the shared static prefix;
 * and, while the sources differ from the output folder's cache plan, what
 * the next build invalidates (per variant, tokens and dollars per 1,000
 * sessions, as `check` and `watch` report it).
 */

export const SHOW_COMPILED_PROMPT = "gamma-prompt.showCompiledPrompt";

export function cacheLenses(analysis: ProjectAnalysis, path: string): CodeLens[] {
  const titles = lensTitles(analysis, path);
  if (titles.length === 0) return [];
  // One lens per variant, in the words `check` and `watch` use.
  if (analysis.invalidation) for (const line of formatInvalidationCost(analysis.invalidation).split("\n")) titles.push(`Next build: ${line}`);
  const top = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  const lenses: CodeLens[] = titles.map((title) => ({ range: top, command: { title, command: "" } }));
  for (const variant of variantsHolding(analysis, path)) {
    lenses.push({ range: top, command: { title: `Show the compiled ${variant} prompt`, command: SHOW_COMPILED_PROMPT, arguments: [variant] } });
  }
  return lenses;
}

function lensTitles(analysis: ProjectAnalysis, path: string): string[] {
  const template = templateUse(analysis, path);
  if (template) return [`${formatCount(template.tokens)} o200k tokens of template text, ${template.where}`];
  if (path.startsWith(`${TOOLS_DIR}/`) && path.endsWith(".json") && path !== TOOL_ORDER_FILE) {
    const source = analysis.sources?.toolFiles.find((file) => file.path === path);
    if (!source) return [];
    return [`${formatCount(tokenizer().count(source.text))} o200k tokens of tool schema, in the tools block every variant caches before the shared static prefix`];
  }
  const skill = analysis.skillFiles.find((file) => file.path === path);
  const name = skill?.manifest?.name;
  if (!skill || name === undefined) return [];
  const titles: string[] = [];
  const preloadedBy = preloading(analysis, name);
  const tokens = analysis.manifest?.skills[name]?.tokens ?? tokenizer().count(normalizeSkillBody(skill.body));
  if (preloadedBy.length > 0) titles.push(`${formatCount(tokens)} o200k tokens, preloaded in the variant tail of ${preloadedBy.join(", ")} (outside the shared static prefix)`);
  if (analysis.manifest?.skills[name] && skill.manifest?.disableModelInvocation !== true) titles.push("Its catalog entry (name, type, description) lies inside the shared static prefix of every variant");
  return titles;
}

function preloading(analysis: ProjectAnalysis, skill: string): string[] {
  return Object.entries(analysis.manifest?.variants ?? {})
    .filter(([, variant]) => variant.preloadedSkills.includes(skill))
    .map(([name]) => name);
}

function variantsHolding(analysis: ProjectAnalysis, path: string): string[] {
  const all = Object.keys(analysis.manifest?.variants ?? {});
  const skill = analysis.skillFiles.find((file) => file.path === path)?.manifest?.name;
  return skill === undefined ? all : preloading(analysis, skill);
}
