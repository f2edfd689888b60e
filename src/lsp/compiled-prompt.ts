import type { ProjectAnalysis } from "../analyze.js";
import { formatCount } from "./hover.js";

/**
 * A variant's system prompt exactly as the build would write it, with the
 * cache plan's block boundaries marked on lines of their own, for a
 * read-only document (`gamma-prompt-compiled:` URIs).
 */

export const COMPILED_SCHEME = "gamma-prompt-compiled";

export function compiledPromptUri(variant: string): string {
  return `${COMPILED_SCHEME}:/variants/${encodeURIComponent(variant)}.md`;
}

export function variantOfUri(uri: string): string | undefined {
  const match = new RegExp(`^${COMPILED_SCHEME}:/variants/(.+)\\.md$`).exec(uri);
  return match ? decodeURIComponent(match[1] as string) : undefined;
}

/** Undefined when the project has errors (the build would write nothing) or no such variant. */
export function compiledPrompt(analysis: ProjectAnalysis, variant: string): string | undefined {
  const content = analysis.artifacts?.get(`variants/${variant}.md`);
  const plan = analysis.cachePlan?.variants[variant];
  if (content === undefined || plan === undefined) return undefined;
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : Buffer.from(content);
  const parts: string[] = [];
  for (const block of plan.blocks) {
    const marker = `${block.name}: ${formatCount(block.tokens)} tokens (${formatCount(block.cumulativeTokens)} from the start)${block.breakpoint ? ", cache breakpoint at its end" : ""}`;
    if (!block.system) {
      parts.push(`⟦ cache block ${marker}; from ${block.source}, sent before the system prompt ⟧\n`);
      continue;
    }
    parts.push(`⟦ cache block ${marker}; bytes ${block.system.start}–${block.system.end} of ${block.source} ⟧\n`);
    parts.push(bytes.subarray(block.system.start, block.system.end).toString("utf8"));
    if (!parts[parts.length - 1]?.endsWith("\n")) parts.push("\n");
  }
  parts.push("⟦ end of the cached blocks ⟧\n");
  return parts.join("");
}
