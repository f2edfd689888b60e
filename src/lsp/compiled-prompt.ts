import { join } from "node:path";
import type { ProjectAnalysis } from "../analyze.js";
import { builtPrompt, compiledPrompt, markBlocks } from "../compiled-prompt.js";

/**
 * A variant's system prompt with the cache plan's block boundaries marked on
 * lines of their own, for a read-only document (`gamma-prompt-compiled:`
 * URIs): from the sources as they are, else (while they have errors) from
 * the output folder as last built.
 */

export const COMPILED_SCHEME = "gamma-prompt-compiled";

/** The document of a variant's prompt; `project` (the root's file URI) names a project other than the first workspace folder's. */
export function compiledPromptUri(variant: string, project?: string): string {
  return `${COMPILED_SCHEME}:/variants/${encodeURIComponent(variant)}.md${project === undefined ? "" : `?project=${encodeURIComponent(project)}`}`;
}

export function variantOfUri(uri: string): { variant: string; project?: string } | undefined {
  const match = new RegExp(`^${COMPILED_SCHEME}:/variants/([^?]+)\\.md(?:\\?project=([^&#]+))?$`).exec(uri);
  if (!match) return undefined;
  try {
    const variant = decodeURIComponent(match[1] as string);
    return match[2] === undefined ? { variant } : { variant, project: decodeURIComponent(match[2]) };
  } catch {
    return undefined;
  }
}

/** Undefined when neither the sources (they have errors) nor the output folder have the variant. */
export function markedPrompt(analysis: ProjectAnalysis, root: string, variant: string): string | undefined {
  const fromSources = analysis.artifacts && analysis.cachePlan ? compiledPrompt(analysis.artifacts, analysis.cachePlan, variant) : undefined;
  const prompt = fromSources ?? builtPrompt(join(root, "dist"), variant);
  return prompt === undefined ? undefined : markBlocks(prompt);
}

/** Why a variant has no compiled prompt to show: sources with errors and no build in dist/, or no such variant. */
export function noCompiledPromptReason(analysis: ProjectAnalysis | undefined): string {
  if (analysis !== undefined && analysis.errorCount > 0) {
    const errors = analysis.errorCount === 1 ? "1 error" : `${analysis.errorCount} errors`;
    return `the sources have ${errors} (see the problems list), and dist/ holds no build of it`;
  }
  return "no such variant in the sources or in dist/";
}
