/**
 * The code blocks of the pages a user follows (README.md, docs/guide/*.md and
 * the library reference, docs/reference/library.md),
 * each with what it is: a transcript to run, shell commands, a code sample, a
 * sample's printed output, a file to write, or data to show. The convention
 * (docs/reference/doc-samples.md) is decided by a block's language and first
 * line, or by `<!-- sample: … -->` comments on the lines right before its
 * opening fence, invisible on the rendered page.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The pages whose samples run against the installed package. */
export function samplePages(): string[] {
  const guide = readdirSync(join(repoRoot, "docs", "guide"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/guide/${name}`);
  return ["README.md", ...guide, "docs/reference/library.md"];
}

export type Directive =
  /** The block is what the code sample before it prints on stdout. */
  | { name: "output" }
  /** The block is written to this path (from the page's current folder) before what follows runs. */
  | { name: "file"; path: string }
  /** The block's last command exits with this code (0 otherwise). */
  | { name: "exit"; code: number }
  /** Runs only in a checkout of the repository: the text before the block must say so. */
  | { name: "checkout" }
  /** Not run, for the reason given (a provider's key, a paid call). */
  | { name: "skip"; reason: string }
  /** Run by this test file instead (a long-running session, a scripted edit), which reads this page. */
  | { name: "elsewhere"; test: string }
  /** A shell command run first, for a state the page describes in words. */
  | { name: "before"; command: string }
  /** Shown, not run: an excerpt, a layout, an event. */
  | { name: "data" }
  /** The install command: the test installs the packed package and the Pi packages it names instead of the registry's. */
  | { name: "install" };

export type SampleKind = "transcript" | "shell" | "code" | "output" | "file" | "data";

export interface DocSample {
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  language: string;
  /** The block's text without the fences and the indentation of a list item. */
  text: string;
  directives: Directive[];
  kind: SampleKind;
  /** The page's text between the previous block (or the page's start) and this block: where a step is marked in words. */
  lead: string;
  /** A problem with the block's marking, if any. */
  problem?: string;
}

const FENCE = /^( *)```([\w-]*)\s*$/;
const DIRECTIVE = /^ *<!-- sample: (.+?) -->\s*$/;

export function pageSamples(page: string): DocSample[] {
  const lines = readFileSync(join(repoRoot, page), "utf8").split("\n");
  const samples: DocSample[] = [];
  let leadStart = 0;
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index] ?? "");
    if (!open) continue;
    const indent = open[1] ?? "";
    const close = lines.findIndex((line, at) => at > index && line === `${indent}\`\`\``);
    if (close < 0) break;
    const text = lines
      .slice(index + 1, close)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join("\n");
    const parsed: Array<Directive | string> = [];
    for (let above = index - 1; above >= 0; above--) {
      const directive = DIRECTIVE.exec(lines[above] ?? "");
      if (!directive) break;
      parsed.unshift(parseDirective(directive[1] ?? ""));
    }
    const directives = parsed.filter((item): item is Directive => typeof item !== "string");
    const unknown = parsed.filter((item): item is string => typeof item === "string");
    const language = open[2] ?? "";
    const sample: DocSample = {
      page,
      line: index + 1,
      language,
      text: text === "" ? "" : `${text}\n`,
      directives,
      kind: kindOf(language, text, directives),
      lead: lines.slice(leadStart, index).join("\n"),
    };
    const problem = unknown.length > 0 ? `unknown sample directive ${unknown.map((item) => `"${item}"`).join(", ")}` : markingProblem(sample);
    if (problem !== undefined) sample.problem = problem;
    samples.push(sample);
    leadStart = close + 1;
    index = close;
  }
  return samples;
}

function parseDirective(body: string): Directive | string {
  const [name = "", ...rest] = body.trim().split(/\s+/);
  const argument = body.trim().slice(name.length).trim();
  switch (name) {
    case "output":
    case "checkout":
    case "data":
    case "install":
      return rest.length === 0 ? { name } : body;
    case "file":
      return argument === "" ? body : { name, path: argument };
    case "exit":
      return /^\d+$/.test(argument) ? { name, code: Number(argument) } : body;
    case "skip":
      return argument === "" ? body : { name, reason: argument };
    case "elsewhere":
      return argument === "" ? body : { name, test: argument };
    case "before":
      return argument === "" ? body : { name, command: argument };
    default:
      return body;
  }
}

function kindOf(language: string, text: string, directives: readonly Directive[]): SampleKind {
  if (directives.some((directive) => directive.name === "output")) return "output";
  if (directives.some((directive) => directive.name === "file")) return "file";
  if (directives.some((directive) => directive.name === "data")) return "data";
  if (["sh", "bash", "shell", "console", ""].includes(language) && text.startsWith("$ ")) return "transcript";
  if (["sh", "bash", "shell"].includes(language)) return "shell";
  if (["ts", "js", "mjs", "typescript", "javascript"].includes(language)) return "code";
  return "data";
}

/** What is wrong with how a block is marked: a step only a checkout runs must say so where a reader sees it, and every plain block must be classified. */
function markingProblem(sample: DocSample): string | undefined {
  const has = (name: Directive["name"]): boolean => sample.directives.some((directive) => directive.name === name);
  if (has("checkout") && !/\bcheckout\b/i.test(sample.lead)) return 'marked "checkout", but the text before it does not say that it runs from a checkout of the repository';
  if (sample.language === "" && sample.kind === "data" && !has("checkout") && !has("skip") && !has("elsewhere") && !has("data")) {
    return "a plain block that is neither a transcript (`$ ` lines) nor marked: add <!-- sample: output -->, data, file PATH, elsewhere TEST, checkout or skip REASON (docs/reference/doc-samples.md)";
  }
  return undefined;
}

/** Mentions, outside code blocks, of what only a checkout has (`npm run x`, the repository's scripts/ and examples/), with the paragraph they are in. */
export function checkoutMentions(page: string): Array<{ mention: string; paragraph: string }> {
  const text = readFileSync(join(repoRoot, page), "utf8").replace(/^( *)```[\s\S]*?^\1```$/gm, "");
  const found: Array<{ mention: string; paragraph: string }> = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    for (const match of paragraph.matchAll(/`(npm run [\w:-]+|node (?:scripts|examples|bench)\/[\w./-]+)[^`]*`|\b((?:scripts|examples)\/[\w.-]+\.m?js)\b/g)) {
      found.push({ mention: match[1] ?? match[2] ?? "", paragraph });
    }
  }
  return found;
}
