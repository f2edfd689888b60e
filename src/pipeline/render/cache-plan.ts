import type { CachePlan, CachePlanBlock } from "../../protocol/cache-plan.js";
import { CACHE_PLAN_VERSION } from "../../protocol/cache-plan.js";
import type { ArtifactEntry, ToolSchemaArtifact } from "../../protocol/dist-manifest.js";
import { sha256Hex } from "../discover/read-source.js";

/**
 * The cache plan of every variant, from the texts the render produced: the
 * tool schemas, the static prefix, then what the variant appends. Providers
 * cache in that order (tools, system, messages), so a breakpoint at the end
 * of each block lets a session of any variant reuse everything up to the
 * first block it does not share.
 */

export interface CachePlanInput {
  prefix: string;
  /** The prefix's o200k tokens as the build measured them (counting the prefix again would cost a whole encode per watch rebuild). */
  prefixTokens: number;
  /** Variant name → the text appended after the prefix ("" for none). */
  suffixes: ReadonlyMap<string, string>;
  tools: readonly ToolSchemaArtifact[];
  /** The tools.json artifact's own entry and path. */
  toolsArtifact: { file: string; entry: ArtifactEntry };
  prefixArtifact: { file: string; entry: ArtifactEntry };
  variantFile: (name: string) => string;
  /** Counts o200k tokens (the build's shared counter). */
  count: (text: string) => number;
  /** Per variant, the namespaces it sends from session start, in order: artifact, entry and tokens. Absent or empty: none. */
  startNamespaces?: ReadonlyMap<string, ReadonlyArray<{ file: string; entry: ArtifactEntry; tokens: number }>>;
}

export function computeCachePlan(input: CachePlanInput): CachePlan {
  const toolsTokens = input.count(compactTools(input.tools));
  const prefixTokens = input.prefixTokens;
  const prefixBytes = input.prefixArtifact.entry.bytes;
  const toolsBlock: CachePlanBlock = {
    name: "tools",
    source: input.toolsArtifact.file,
    bytes: input.toolsArtifact.entry.bytes,
    sha256: input.toolsArtifact.entry.sha256,
    tokens: toolsTokens,
    cumulativeTokens: toolsTokens,
    breakpoint: true,
  };
  const prefixBlock: CachePlanBlock = {
    name: "static-prefix",
    source: input.prefixArtifact.file,
    system: { start: 0, end: prefixBytes },
    bytes: prefixBytes,
    sha256: input.prefixArtifact.entry.sha256,
    tokens: prefixTokens,
    cumulativeTokens: toolsTokens + prefixTokens,
    breakpoint: true,
  };
  const variants: CachePlan["variants"] = {};
  for (const [name, suffix] of input.suffixes) {
    const blocks = [toolsBlock];
    let toolsEnd = toolsTokens;
    // Later tools of the same list: no breakpoint of their own, so a variant without them still shares the stable tools' entry.
    for (const namespace of input.startNamespaces?.get(name) ?? []) {
      toolsEnd += namespace.tokens;
      blocks.push({ name: "namespace-tools", source: namespace.file, bytes: namespace.entry.bytes, sha256: namespace.entry.sha256, tokens: namespace.tokens, cumulativeTokens: toolsEnd, breakpoint: false });
    }
    const variantPrefix = toolsEnd === toolsTokens ? prefixBlock : { ...prefixBlock, cumulativeTokens: toolsEnd + prefixTokens };
    blocks.push(variantPrefix);
    if (suffix !== "") {
      const bytes = Buffer.byteLength(suffix);
      const tokens = input.count(suffix);
      blocks.push({
        name: "variant-tail",
        source: input.variantFile(name),
        system: { start: prefixBytes, end: prefixBytes + bytes },
        bytes,
        sha256: sha256Hex(suffix),
        tokens,
        cumulativeTokens: variantPrefix.cumulativeTokens + tokens,
        breakpoint: true,
      });
    }
    variants[name] = { blocks };
  }
  return { planVersion: CACHE_PLAN_VERSION, variants };
}

/** The tool schemas as one line of JSON: the basis of the tools block's token estimate. */
export function compactTools(tools: readonly ToolSchemaArtifact[]): string {
  return JSON.stringify(tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })));
}
