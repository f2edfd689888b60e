import { join } from "node:path";
import { expectObject, expectOneOf, expectString, shownValue } from "./protocol/arguments.js";
import type { CacheBlockName, CachePlan } from "./protocol/cache-plan.js";
import { MANIFEST_FILE } from "./protocol/dist-manifest.js";
import { statIfPossible } from "./protocol/regular-file.js";
import { ArtifactVerificationError, loadArtifacts, type ArtifactProblem, type LoadedArtifacts } from "./runtime/artifacts.js";
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
  if (!(artifacts instanceof Map)) throw new TypeError(`Unexpected artifacts ${shownValue(artifacts)}, expected the build's artifacts (a Map, as createProjectAnalyzer's analysis holds them)`);
  expectObject(plan, "cachePlan", "the build's cache plan (the analysis's cachePlan)");
  expectObject(plan.variants, "cachePlan.variants", "the build's cache plan (the analysis's cachePlan)");
  expectString(variant, "variant", "a variant name, such as \"base\"", true);
  expectOneOf(from, "from", ["sources", "output"]);
  const content = artifacts.get(`variants/${variant}.md`);
  const variantPlan = Object.hasOwn(plan.variants, variant) ? plan.variants[variant] : undefined;
  if (content === undefined || variantPlan === undefined) return undefined;
  const text = typeof content === "string" ? content : Buffer.from(content).toString("utf8");
  const blocks = variantPlan.blocks.map(({ name, source, tokens, cumulativeTokens, breakpoint, system }) => ({ name, source, tokens, cumulativeTokens, breakpoint, ...(system ? { system: { start: system.start, end: system.end } } : {}) }));
  return { variant, from, text, blocks };
}

/**
 * The output folder as the runtime loads it (verified against its manifest,
 * by the runtime's own loader), the problems when it fails verification, or
 * `absent` when it has no manifest at all.
 */
export type BuiltOutput = { kind: "verified"; artifacts: LoadedArtifacts } | { kind: "failed"; problems: readonly ArtifactProblem[] } | { kind: "absent" };

export function readBuiltOutput(outDir: string): BuiltOutput {
  if (statIfPossible(join(outDir, MANIFEST_FILE)) === undefined) return { kind: "absent" };
  try {
    return { kind: "verified", artifacts: loadArtifacts({ distDir: outDir }) };
  } catch (error) {
    if (error instanceof ArtifactVerificationError) return { kind: "failed", problems: error.problems };
    throw error;
  }
}

/** A failed verification's problems in one line: the first three, and how many more. */
export function verificationSummary(problems: readonly ArtifactProblem[]): string {
  const shown = problems.slice(0, 3).map((problem) => `${problem.file}: ${problem.message}`);
  const more = problems.length - shown.length;
  return more > 0 ? `${shown.join("; ")}; and ${more} more` : shown.join("; ");
}

/** A variant as the output folder holds it, once the folder passes verification; undefined when it has no such variant, no manifest or fails verification. */
export function builtPrompt(outDir: string, variant: string, output?: BuiltOutput): CompiledPrompt | undefined {
  expectString(outDir, "outDir", 'the output folder, such as "dist"', true);
  expectString(variant, "variant", 'a variant name, such as "base"', true);
  output ??= readBuiltOutput(outDir);
  if (output.kind !== "verified" || !Object.hasOwn(output.artifacts.variants, variant)) return undefined;
  const text = output.artifacts.variants[variant];
  return text === undefined ? undefined : compiledPrompt(new Map([[`variants/${variant}.md`, text]]), output.artifacts.cachePlan, variant, "output");
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
