import { join } from "node:path";
import { CACHE_PLAN_FILE, type CacheBlockName, type CachePlan } from "./protocol/cache-plan.js";
import { readRegularFile } from "./protocol/regular-file.js";
import type { ArtifactContent } from "./pipeline/emit/artifacts.js";

/**
 * A variant's system prompt exactly as the build writes it, cut into the
 * blocks of its cache plan: what the language server shows as a read-only
 * document and the MCP server returns as data. From an in-memory build of
 * the sources, or from the output folder as last built.
 */

export interface CompiledPromptBlock {
  name: CacheBlockName;
  /** The artifact the block's bytes come from. */
  source: string;
  tokens: number;
  cumulativeTokens: number;
  /** A cache breakpoint belongs at the end of this block. */
  breakpoint: boolean;
  /** For the system-prompt blocks: the UTF-8 byte range of the variant's prompt, end exclusive. */
  system?: { start: number; end: number };
}

export interface CompiledPrompt {
  variant: string;
  /** `sources`: rendered from the sources as they are now; `output`: read from the output folder (the last build). */
  from: "sources" | "output";
  /** The system prompt, byte for byte what `variants/<variant>.md` holds. */
  text: string;
  blocks: CompiledPromptBlock[];
}

/** A variant of an in-memory build; undefined when the build has no such variant. */
export function compiledPrompt(artifacts: ReadonlyMap<string, ArtifactContent>, plan: CachePlan, variant: string, from: CompiledPrompt["from"] = "sources"): CompiledPrompt | undefined {
  const content = artifacts.get(`variants/${variant}.md`);
  const variantPlan = Object.hasOwn(plan.variants, variant) ? plan.variants[variant] : undefined;
  if (content === undefined || variantPlan === undefined) return undefined;
  const text = typeof content === "string" ? content : Buffer.from(content).toString("utf8");
  const blocks = variantPlan.blocks.map(({ name, source, tokens, cumulativeTokens, breakpoint, system }) => ({ name, source, tokens, cumulativeTokens, breakpoint, ...(system ? { system: { start: system.start, end: system.end } } : {}) }));
  return { variant, from, text, blocks };
}

/** A variant as the output folder holds it (never a blocking read); undefined when the folder has no such variant or no readable plan. */
export function builtPrompt(outDir: string, variant: string): CompiledPrompt | undefined {
  if (!/^[^/\\]+$/.test(variant) || variant === "." || variant === "..") return undefined;
  const plan = builtPlan(outDir);
  const promptRead = readRegularFile(join(outDir, "variants", `${variant}.md`));
  if (plan === undefined || promptRead.kind !== "file") return undefined;
  return compiledPrompt(new Map([[`variants/${variant}.md`, promptRead.bytes]]), plan, variant, "output");
}

/** The variants of the output folder's cache plan (none without a readable plan). */
export function builtVariantNames(outDir: string): string[] {
  return Object.keys(builtPlan(outDir)?.variants ?? {});
}

function builtPlan(outDir: string): CachePlan | undefined {
  const read = readRegularFile(join(outDir, CACHE_PLAN_FILE));
  if (read.kind !== "file") return undefined;
  try {
    const plan = JSON.parse(read.bytes.toString("utf8")) as CachePlan;
    return typeof plan === "object" && plan !== null && typeof plan.variants === "object" && plan.variants !== null ? plan : undefined;
  } catch {
    return undefined;
  }
}

/** The prompt with each block's boundary marked on a line of its own (the language server's read-only document). */
export function markBlocks(prompt: CompiledPrompt): string {
  const bytes = Buffer.from(prompt.text, "utf8");
  const count = (value: number): string => value.toLocaleString("en-US");
  const parts: string[] = [];
  if (prompt.from === "output") parts.push(`⟦ variants/${prompt.variant}.md as last built: the sources have errors, so this is the output folder's copy ⟧\n`);
  for (const block of prompt.blocks) {
    const marker = `${block.name}: ${count(block.tokens)} tokens (${count(block.cumulativeTokens)} from the start)${block.breakpoint ? ", cache breakpoint at its end" : ""}`;
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
