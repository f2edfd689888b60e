// Writes lib/generated/o200k_base-ranks.json (part of the package build, after
// tsc; output in the ignored lib/, never edited by hand): the o200k_base
// ranks of the installed gpt-tokenizer, its own array as JSON, with the
// library's version. The package ships the ranks as a JavaScript module of one
// array literal, 2.4 MB that V8 must parse and compile in every process that
// counts tokens; JSON.parse reads the same array in well under half the time.
// src/o200k-ranks.ts reads this file, and falls back to the library's module
// when the file is missing, unreadable, or written for another version.
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(packageRoot, "package.json"));
const target = join(packageRoot, "lib", "generated", "o200k_base-ranks.json");

const { version } = require("gpt-tokenizer/package.json");
const ranks = require("gpt-tokenizer/bpeRanks/o200k_base").default;

// JSON has no holes and no typed arrays: every rank must be a string or an array of byte values, or the file
// would read back as something else than the library's array.
if (!Array.isArray(ranks) || ranks.length === 0) throw new Error("write-token-ranks: gpt-tokenizer's o200k_base ranks are not a non-empty array");
for (let rank = 0; rank < ranks.length; rank++) {
  const value = ranks[rank];
  const bytes = Array.isArray(value) && value.every((byte) => Number.isInteger(byte) && byte >= 0 && byte <= 255);
  if (!(rank in ranks) || (typeof value !== "string" && !bytes)) {
    throw new Error(`write-token-ranks: rank ${rank} of gpt-tokenizer's o200k_base is neither a string nor an array of bytes`);
  }
}

mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, `${JSON.stringify({ gptTokenizerVersion: version, ranks })}\n`);
