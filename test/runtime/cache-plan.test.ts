/**
 * The runtime's side of the cache plan (src/runtime/cache-plan.ts): a plan is
 * accepted only when it describes the verified bytes of its variants, and a
 * variant's system prompt is cut at the plan's byte boundaries. A tiny
 * hand-made dist (a prefix and a variant that extends it) keeps each refusal
 * visible; test/build/cache-plan.test.ts checks the plans the compiler writes.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { CachePlan, CachePlanBlock } from "../../src/protocol/cache-plan.js";
import type { DistManifest } from "../../src/protocol/dist-manifest.js";
import { systemBlocks, verifyCachePlan } from "../../src/runtime/cache-plan.js";

const sha = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex");

const PREFIX = "You write decks. « Prefix »\n";
const TAIL = "Preloaded: café skill.\n";
const FILES: Record<string, Buffer> = {
  "tools.json": Buffer.from('[{"name":"skill"}]'),
  "prefix.md": Buffer.from(PREFIX),
  "variants/base.md": Buffer.from(PREFIX),
  "variants/deck.md": Buffer.from(PREFIX + TAIL),
};
const prefixBytes = FILES["prefix.md"]!.length;
const deckBytes = FILES["variants/deck.md"]!.length;

const manifest = {
  tools: { file: "tools.json", sha256: sha(FILES["tools.json"]!) },
  staticPrefix: { file: "prefix.md", sha256: sha(PREFIX), bytes: prefixBytes },
  variants: { base: { file: "variants/base.md" }, deck: { file: "variants/deck.md" } },
} as unknown as DistManifest;

function block(name: CachePlanBlock["name"], fields: Partial<CachePlanBlock>): CachePlanBlock {
  return { name, source: "", bytes: 0, sha256: "", tokens: 0, cumulativeTokens: 0, breakpoint: true, ...fields };
}

function goodPlan(): CachePlan {
  const tools = block("tools", { source: "tools.json", sha256: manifest.tools.sha256 });
  const prefix = block("static-prefix", { source: "prefix.md", sha256: sha(PREFIX), system: { start: 0, end: prefixBytes } });
  const tail = block("variant-tail", { source: "variants/deck.md", sha256: sha(TAIL), system: { start: prefixBytes, end: deckBytes } });
  return { planVersion: 1, variants: { base: { blocks: [tools, prefix] }, deck: { blocks: [tools, prefix, tail] } } };
}

function problemsOf(plan: unknown, bytesOf: (file: string) => Buffer | undefined = (file) => FILES[file]): string[] {
  const verified = verifyCachePlan(plan, manifest, bytesOf);
  return "problems" in verified ? verified.problems : [];
}

/** The good plan with one block of one variant replaced (undefined: removed, with the blocks after it). */
function withBlock(variant: "base" | "deck", index: number, edit: (block: CachePlanBlock) => CachePlanBlock | undefined): CachePlan {
  const plan = goodPlan();
  const blocks = plan.variants[variant]!.blocks;
  const edited = edit(structuredClone(blocks[index]!));
  plan.variants[variant] = { blocks: edited === undefined ? blocks.slice(0, index) : blocks.map((each, at) => (at === index ? edited : each)) };
  return plan;
}

describe("verifying the cache plan against the verified dist", () => {
  it("accepts a plan that describes every variant's bytes and returns it", () => {
    const plan = goodPlan();
    expect(verifyCachePlan(plan, manifest, (file) => FILES[file])).toEqual({ plan });
  });

  it.each([
    ["not an object", []],
    ["null", null],
    ["another plan version", { planVersion: 2, variants: {} }],
    ["variants that are not an object", { planVersion: 1, variants: [] }],
  ])("refuses a plan of the wrong shape (%s) with one problem", (_name, plan) => {
    expect(problemsOf(plan)).toEqual(["Unexpected cache plan shape, expected {planVersion: 1, variants: {...}}"]);
  });

  it("refuses a plan that misses a manifest variant, has no blocks for it, or names one the manifest does not have, every variant in name order", () => {
    const plan = goodPlan();
    delete plan.variants["base"];
    (plan.variants as Record<string, unknown>)["deck"] = { blocks: "all" };
    (plan.variants as Record<string, unknown>)["extra"] = { blocks: [] };
    expect(problemsOf(plan)).toEqual([
      'Unexpected missing plan for variant "base", expected its blocks',
      'Unexpected missing plan for variant "deck", expected its blocks',
      'Unexpected plan for unknown variant "extra", expected only the manifest\'s variants',
    ]);
  });

  it("refuses a plan whose variant entry is not an object, or whose variant file has no verified bytes", () => {
    const plan = goodPlan();
    (plan.variants as Record<string, unknown>)["base"] = [];
    expect(problemsOf(plan, (file) => (file === "variants/deck.md" ? undefined : FILES[file]))).toEqual([
      'Unexpected missing plan for variant "base", expected its blocks',
      'Unexpected missing plan for variant "deck", expected its blocks',
    ]);
  });

  it.each([
    ["another name", (b: CachePlanBlock) => ({ ...b, name: "static-prefix" as const })],
    ["another sha256", (b: CachePlanBlock) => ({ ...b, sha256: sha("other") })],
  ])("refuses a first block with %s than the tools'", (_name, edit) => {
    expect(problemsOf(withBlock("base", 0, edit))).toEqual(['Unexpected first block of variant "base", expected the tools block with the sha256 of tools.json']);
  });

  it.each([
    ["another name", (b: CachePlanBlock) => ({ ...b, name: "variant-tail" as const })],
    ["another sha256", (b: CachePlanBlock) => ({ ...b, sha256: sha("other") })],
    ["a start after 0", (b: CachePlanBlock) => ({ ...b, system: { start: 1, end: prefixBytes } })],
    ["an end before the prefix's", (b: CachePlanBlock) => ({ ...b, system: { start: 0, end: prefixBytes - 1 } })],
    ["no byte range", ({ system: _range, ...b }: CachePlanBlock): CachePlanBlock => b],
  ])("refuses a second block with %s than the static prefix's", (_name, edit) => {
    expect(problemsOf(withBlock("base", 1, edit))).toEqual([`Unexpected second block of variant "base", expected the static prefix covering bytes 0-${prefixBytes}`]);
  });

  it("refuses a missing second block", () => {
    expect(problemsOf(withBlock("base", 1, () => undefined))).toEqual([`Unexpected second block of variant "base", expected the static prefix covering bytes 0-${prefixBytes}`]);
  });

  it.each([
    ["another name", (b: CachePlanBlock) => ({ ...b, name: "tools" as const })],
    ["a start past the prefix", (b: CachePlanBlock) => ({ ...b, system: { start: prefixBytes + 1, end: deckBytes } })],
    ["an end before the variant's", (b: CachePlanBlock) => ({ ...b, system: { start: prefixBytes, end: deckBytes - 1 } })],
    ["no byte range", ({ system: _range, ...b }: CachePlanBlock): CachePlanBlock => b],
  ])("refuses a third block with %s than the variant tail's, and says the prompt is not covered", (_name, edit) => {
    expect(problemsOf(withBlock("deck", 2, edit))).toEqual([
      `Unexpected third block of variant "deck", expected the variant tail covering bytes ${prefixBytes}-${deckBytes}`,
      `Unexpected plan of variant "deck" covering ${prefixBytes} of ${deckBytes} bytes, expected the whole system prompt`,
    ]);
  });

  it("refuses a variant tail whose sha256 is not the hash of its bytes", () => {
    expect(problemsOf(withBlock("deck", 2, (b) => ({ ...b, sha256: sha(PREFIX + TAIL) })))).toEqual([
      'Unexpected sha256 of the variant tail of variant "deck", expected the hash of those bytes of the variant',
      `Unexpected plan of variant "deck" covering ${prefixBytes} of ${deckBytes} bytes, expected the whole system prompt`,
    ]);
  });

  it("refuses a plan that leaves the end of a longer variant uncovered", () => {
    expect(problemsOf(withBlock("deck", 2, () => undefined))).toEqual([`Unexpected plan of variant "deck" covering ${prefixBytes} of ${deckBytes} bytes, expected the whole system prompt`]);
  });

  it("refuses blocks after the variant tail", () => {
    const plan = goodPlan();
    const blocks = plan.variants["deck"]!.blocks;
    plan.variants["deck"] = { blocks: [...blocks, { ...blocks[2]!, breakpoint: false }, { ...blocks[2]!, breakpoint: false }] };
    expect(problemsOf(plan)).toEqual(['Unexpected 2 extra block(s) in variant "deck", expected tools, static prefix and at most a variant tail']);
  });

  it("allows three breakpoints and refuses a fourth, which belongs to the newest message", () => {
    const plan = goodPlan();
    const blocks = plan.variants["deck"]!.blocks;
    expect(blocks.filter((each) => each.breakpoint)).toHaveLength(3);
    expect(problemsOf(plan)).toEqual([]);
    plan.variants["deck"] = { blocks: [...blocks, { ...blocks[2]!, breakpoint: true }] };
    expect(problemsOf(plan)).toEqual([
      'Unexpected 1 extra block(s) in variant "deck", expected tools, static prefix and at most a variant tail',
      'Unexpected 4 breakpoints in variant "deck", expected at most 3 (one stays for the newest message)',
    ]);
  });
});

describe("cutting a system prompt into the plan's blocks", () => {
  it("cuts at the plan's UTF-8 byte boundaries, keeps each breakpoint, and skips the tools block (no system bytes)", () => {
    const plan = goodPlan();
    plan.variants["deck"]!.blocks[1]!.breakpoint = false;
    expect(systemBlocks(plan, "deck", PREFIX + TAIL)).toEqual([
      { name: "static-prefix", text: PREFIX, breakpoint: false },
      { name: "variant-tail", text: TAIL, breakpoint: true },
    ]);
  });

  it("sends a variant the plan does not know as one block with a breakpoint", () => {
    expect(systemBlocks(goodPlan(), "unknown", "Whole prompt.")).toEqual([{ name: "static-prefix", text: "Whole prompt.", breakpoint: true }]);
  });
});

describe("verifying the blocks of the namespaces a variant sends from session start", () => {
  const NAMESPACE = Buffer.from('{"name":"drive"}');
  const withNamespaces = {
    ...manifest,
    namespaces: { drive: { file: "namespaces/drive.json", sha256: sha(NAMESPACE) }, files: { file: "namespaces/files.json", sha256: sha("files") } },
    variants: { base: { file: "variants/base.md", namespaces: ["drive"] } },
  } as unknown as DistManifest;
  const namespaceBlock = block("namespace-tools", { source: "namespaces/drive.json", sha256: sha(NAMESPACE) });

  function planWith(second: CachePlanBlock | undefined): CachePlan {
    const [tools, prefix] = goodPlan().variants["base"]!.blocks;
    return { planVersion: 1, variants: { base: { blocks: second === undefined ? [tools!, prefix!] : [tools!, second, prefix!] } } };
  }
  const problems = (plan: CachePlan, on: DistManifest = withNamespaces): string[] => {
    const verified = verifyCachePlan(plan, on, (file) => FILES[file]);
    return "problems" in verified ? verified.problems : [];
  };
  const WRONG = 'Unexpected block 2 of variant "base", expected the tools of namespace "drive" with the sha256 of its artifact';

  it("accepts the namespace's tools right after the tools block, before the static prefix", () => {
    expect(problems(planWith(namespaceBlock))).toEqual([]);
  });

  it.each<[string, CachePlanBlock | undefined]>([
    ["another block name", { ...namespaceBlock, name: "tools" }],
    ["another namespace's file", { ...namespaceBlock, source: "namespaces/files.json" }],
    ["another sha256", { ...namespaceBlock, sha256: sha("other") }],
  ])("refuses a namespace block with %s", (_name, second) => {
    expect(problems(planWith(second))).toEqual([WRONG]);
  });

  it("refuses a plan without the namespace's block, which also shifts the static prefix", () => {
    expect(problems(planWith(undefined))).toEqual([WRONG, `Unexpected second block of variant "base", expected the static prefix covering bytes 0-${prefixBytes}`]);
  });

  it("refuses a namespace the manifest does not describe", () => {
    const { namespaces: _namespaces, ...rest } = withNamespaces as unknown as Record<string, unknown>;
    expect(problems(planWith(namespaceBlock), rest as unknown as DistManifest)).toEqual([WRONG]);
    const other = { ...withNamespaces, namespaces: { files: { file: "namespaces/files.json", sha256: sha("files") } } } as unknown as DistManifest;
    expect(problems(planWith(namespaceBlock), other)).toEqual([WRONG]);
    // A name of Object's own members is no namespace either, even for a block whose fields are as absent as the member's.
    const inherited = { ...withNamespaces, variants: { base: { file: "variants/base.md", namespaces: ["constructor"] } } } as unknown as DistManifest;
    const bare = { name: "namespace-tools", bytes: 0, tokens: 0, cumulativeTokens: 0, breakpoint: true } as unknown as CachePlanBlock;
    expect(problems(planWith(bare), inherited)).toEqual([WRONG.replace('"drive"', '"constructor"')]);
  });
});
