import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { hasLongPiece, LONG_PIECE_LENGTH } from "../../src/long-pieces.js";
import { installedTokenizerVersion, libraryRanks, o200kRanks, type RankData, readRanksFile } from "../../src/o200k-ranks.js";
import { o200kEncoding, tokenizer } from "../../src/tokens.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { repoRoot } from "./helpers.js";

// The package build writes gpt-tokenizer's o200k_base ranks as JSON (scripts/write-token-ranks.mjs), and the
// tokenizer loads them from there instead of the library's 2.4 MB module. The counts must be the library's,
// whichever of the two loaded the ranks: these tests hold the file the build wrote (lib/generated/) against
// the installed library, array to array and encoding to encoding.

afterAll(removeTempDirs);

const require = createRequire(import.meta.url);
const library = require("gpt-tokenizer/encoding/o200k_base") as typeof import("gpt-tokenizer/encoding/o200k_base");
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };
const builtRanksFile = join(repoRoot, "lib", "generated", "o200k_base-ranks.json");

/** The ranks the package build wrote; a missing file fails here, not in a fallback that hides it. */
function builtRanks(): RankData {
  if (!existsSync(builtRanksFile)) throw new Error(`${builtRanksFile} is missing: run \`npm run build:ts\``);
  const ranks = readRanksFile(pathToFileURL(builtRanksFile), installedTokenizerVersion());
  if (ranks === undefined) throw new Error(`${builtRanksFile} does not hold ranks for gpt-tokenizer ${installedTokenizerVersion()}`);
  return ranks;
}

/** A form of the ranks that tells a hole from any value, and a string from an array of the same characters. */
function canonicalDigest(ranks: RankData): string {
  const hash = createHash("sha256");
  for (let rank = 0; rank < ranks.length; rank++) {
    const value = ranks[rank];
    hash.update(!(rank in ranks) ? "hole\n" : typeof value === "string" ? `s${JSON.stringify(value)}\n` : `b${JSON.stringify(value)}\n`);
  }
  return hash.digest("hex");
}

function filesUnder(folder: string, keep: (path: string) => boolean): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter(keep)
    .sort()
    .map((path) => join(folder, path));
}

/** Every skill body, prompt, template and knowledge file of the repository. */
function repositoryTexts(): Map<string, string> {
  const texts = new Map<string, string>();
  for (const folder of ["skills", "prompts", "templates", "knowledge"]) {
    for (const file of filesUnder(join(repoRoot, folder), (path) => /\.(md|hbs|ya?ml|json|txt)$/.test(path))) texts.set(file, readFileSync(file, "utf8"));
  }
  return texts;
}

/** The SKILL.md files of the seven public collections the corpus shares with the real-world skills set. */
function collectionSkills(): Map<string, string> {
  const collections = ["anthropics-skills", "openai-skills", "obra-superpowers", "vercel-agent-skills", "getsentry-skills", "expo-skills", "supabase-agent-skills"];
  const texts = new Map<string, string>();
  for (const collection of collections) {
    for (const file of filesUnder(join(repoRoot, "corpus", collection), (path) => path === "SKILL.md" || path.endsWith("/SKILL.md"))) texts.set(file, readFileSync(file, "utf8"));
  }
  return texts;
}

/** Texts that reach the corners of the encoding: special-token strings, emoji, CJK, byte tokens, long pieces. */
const EDGE_TEXTS: readonly string[] = [
  "",
  "Stop at <|endoftext|> and <|im_start|>system<|im_sep|>, then <|fim_prefix|><|fim_middle|><|fim_suffix|><|endofprompt|>.",
  "<|endoftext|><|endoftext|><|im_end|><|start|><|message|><|end|><|return|><|call|><|channel|><|constrain|>",
  "Emoji: 😀👍🏽👨‍👩‍👧‍👦🏳️‍🌈 ✨🚀 and flags 🇫🇷🇯🇵; keycaps 1️⃣ #️⃣.",
  "日本語の文章を数えます。中文的句子也一样。한국어 문장도요. 繁體中文與简体中文混合。",
  "Combining marks: e\u0301 a\u0308 \u0915\u094D\u0937 and Arabic: مرحبا بالعالم, Hebrew: שלום עולם, Thai: สวัสดีครับ",
  "Controls \u0000\u0001\u001f, NBSP\u00a0, ZWSP\u200b, BOM\ufeff, line separator\u2028 and a lone surrogate \ud800 here \udfff.",
  "\r\n\r\n\t\t  \n   \n\n\n/ // /// > >\n>\n",
  "=".repeat(LONG_PIECE_LENGTH + 1),
  `${"x".repeat(3000)} ${"😀".repeat(700)} ${" ".repeat(1500)}\n${"日本".repeat(400)}`,
  "0123456789".repeat(200),
  "ab".repeat(LONG_PIECE_LENGTH * 2),
];

describe("the o200k_base ranks the package build writes", () => {
  it("are gpt-tokenizer's own array, entry for entry, for the version installed", () => {
    const fromFile = builtRanks();
    const fromLibrary = libraryRanks();
    expect(fromFile.length).toBe(fromLibrary.length);
    expect(canonicalDigest(fromFile)).toBe(canonicalDigest(fromLibrary));
    expect(JSON.parse(readFileSync(builtRanksFile, "utf8")).gptTokenizerVersion).toBe(installedTokenizerVersion());
  });

  it("give the library's encoding the same tokens and counts as its own module, on every text of the repository and the collections", () => {
    const fromFile = o200kEncoding(builtRanks());
    const texts = new Map([...repositoryTexts(), ...collectionSkills(), ...EDGE_TEXTS.map((text, index) => [`edge text ${index}`, text] as const)]);
    expect(texts.size).toBeGreaterThan(140);
    let tokens = 0;
    for (const [name, text] of texts) {
      const expected = library.encode(text, PLAIN_TEXT);
      expect(fromFile.encode(text, PLAIN_TEXT), name).toEqual(expected);
      expect(fromFile.countTokens(text, PLAIN_TEXT), name).toBe(expected.length);
      expect(fromFile.decode(expected), name).toBe(library.decode(expected));
      tokens += expected.length;
    }
    expect(tokens).toBeGreaterThan(200_000);
    expect(fromFile.vocabularySize).toBe(library.vocabularySize);
  });

  it("give the package's tokenizer the library's tokens, long pieces included", () => {
    const counter = tokenizer();
    for (const text of EDGE_TEXTS) {
      expect(counter.encode(text), JSON.stringify(text.slice(0, 40))).toEqual(library.encode(text, PLAIN_TEXT));
      expect(counter.count(text)).toBe(library.countTokens(text, PLAIN_TEXT));
    }
    expect(EDGE_TEXTS.some(hasLongPiece)).toBe(true);
  });
});

describe("loading the ranks", () => {
  it("loads them once per process", () => {
    expect(o200kRanks()).toBe(o200kRanks());
  });

  it("refuses a file that is missing, not JSON, of another shape or written for another version of gpt-tokenizer", async () => {
    const folder = await tempDir("o200k-ranks");
    const version = installedTokenizerVersion();
    const write = (name: string, text: string): URL => {
      writeFileSync(join(folder, name), text);
      return pathToFileURL(join(folder, name));
    };
    expect(readRanksFile(pathToFileURL(join(folder, "absent.json")), version)).toBeUndefined();
    expect(readRanksFile(write("truncated.json", '{"gptTokenizerVersion":"'), version)).toBeUndefined();
    expect(readRanksFile(write("array.json", '["a","b"]'), version)).toBeUndefined();
    expect(readRanksFile(write("null.json", "null"), version)).toBeUndefined();
    expect(readRanksFile(write("no-ranks.json", JSON.stringify({ gptTokenizerVersion: version })), version)).toBeUndefined();
    expect(readRanksFile(write("empty.json", JSON.stringify({ gptTokenizerVersion: version, ranks: [] })), version)).toBeUndefined();
    expect(readRanksFile(write("other-version.json", JSON.stringify({ gptTokenizerVersion: `${version}-other`, ranks: ["a"] })), version)).toBeUndefined();
    expect(readRanksFile(write("good.json", JSON.stringify({ gptTokenizerVersion: version, ranks: ["a", [255]] })), version)).toEqual(["a", [255]]);
  });

  it("in the built package, counts from the data file alone: neither the tokenizer nor the long-piece encoder loads the library's ranks module", () => {
    builtRanks();
    const script = `
      const { tokenizer } = await import(${JSON.stringify(pathToFileURL(join(repoRoot, "lib", "tokens.js")).href)});
      const { createRequire } = await import("node:module");
      const counter = tokenizer();
      const counts = [counter.count("Hello, world."), counter.count("=".repeat(${LONG_PIECE_LENGTH + 1}))];
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes("gpt-tokenizer"));
      console.log(JSON.stringify({ counts, ranksModule: loaded.some((file) => /bpeRanks/.test(file)), encoding: loaded.some((file) => /GptEncoding/.test(file)) }));
    `;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: repoRoot, encoding: "utf8" });
    expect(child.stderr).toBe("");
    const result = JSON.parse(child.stdout) as { counts: number[]; ranksModule: boolean; encoding: boolean };
    expect(result).toEqual({
      counts: [library.countTokens("Hello, world.", PLAIN_TEXT), library.countTokens("=".repeat(LONG_PIECE_LENGTH + 1), PLAIN_TEXT)],
      ranksModule: false,
      encoding: true,
    });
  });
});
