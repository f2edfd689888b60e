import type { ProjectAnalysis } from "../analyze.js";
import { PREFIX_TEMPLATE, VARIANT_TEMPLATE } from "../pipeline/discover/source-paths.js";
import { tokenizer } from "../tokens.js";
import { partialName } from "./symbols.js";

/**
 * Where a template's text lands in the compiled prompts: the static prefix
 * every variant shares (and caches), or each variant's own tail. A partial
 * lands where the templates that call it (directly or through other
 * partials) land.
 */

export interface TemplateUse {
  path: string;
  /** o200k tokens of the template's own text (before rendering). */
  tokens: number;
  inPrefix: boolean;
  inVariantTail: boolean;
  variants: string[];
  /** The same in words. */
  where: string;
}

const CALL = /\{\{~?#?>\s*([A-Za-z0-9_\-./]+)/g;

export function templateUse(analysis: ProjectAnalysis, path: string): TemplateUse | undefined {
  const sources = analysis.sources;
  const templates = [sources?.prefix, sources?.variant, ...(sources?.partials ?? [])];
  const file = templates.find((template) => template?.path === path);
  if (!sources || !file) return undefined;
  const calls = new Map<string, string[]>();
  for (const template of templates) if (template) calls.set(template.path, [...template.text.matchAll(CALL)].map((match) => `prompts/partials/${match[1] as string}.hbs`));
  const reach = (start: string): Set<string> => {
    const seen = new Set<string>([start]);
    const pending = [start];
    while (pending.length > 0) for (const next of calls.get(pending.pop() as string) ?? []) if (!seen.has(next)) (seen.add(next), pending.push(next));
    return seen;
  };
  const inPrefix = reach(PREFIX_TEMPLATE).has(path);
  const inVariantTail = reach(VARIANT_TEMPLATE).has(path);
  const variants = Object.keys(analysis.manifest?.variants ?? {});
  const every = variants.length > 0 ? `every variant (${variants.join(", ")})` : "every variant";
  const parts: string[] = [];
  if (inPrefix) parts.push(`inside the shared static prefix of ${every}`);
  if (inVariantTail) parts.push(`in the variant tail of ${every}, after the shared prefix`);
  const where = parts.length > 0 ? parts.join("; ") : partialName(path) !== undefined ? "called by no template" : "not part of any prompt";
  return { path, tokens: tokenizer().count(file.text), inPrefix, inVariantTail, variants: inPrefix || inVariantTail ? variants : [], where };
}
