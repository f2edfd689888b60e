/**
 * gpt-tokenizer's o200k_base ranks, loaded once per process for both
 * tokens.ts (the library's encoder) and long-pieces.ts (its own merge table).
 *
 * The library ships the ranks as a JavaScript module holding one array
 * literal of 200,000 entries; parsing and compiling it was a tenth of a cold
 * build. The package build writes the same array as JSON
 * (scripts/write-token-ranks.mjs, into lib/generated/), which JSON.parse reads
 * in well under half the time. This module sits at the top of src/ (and of
 * lib/, where every bundled chunk sits too), so the file's URL is the same
 * from all of them.
 *
 * The file is only ever a saving: missing (under the test runner, or a build
 * of the package that skipped the script), unreadable, not the expected
 * shape, or written from another version of gpt-tokenizer than the one
 * installed, the library's own module is loaded instead.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/** Each rank's token: its text, or its bytes when they are not valid UTF-8. */
export type RankData = readonly (string | readonly number[])[];

const require = createRequire(import.meta.url);

/** Where the package build writes the ranks. */
export const RANKS_FILE = new URL("./generated/o200k_base-ranks.json", import.meta.url);

let loaded: RankData | undefined;

/** The o200k_base ranks: from the package's data file when it is there and current, else from gpt-tokenizer. */
export function o200kRanks(): RankData {
  loaded ??= readRanksFile(RANKS_FILE, installedTokenizerVersion()) ?? libraryRanks();
  return loaded;
}

/** The ranks in `file` if it holds them for gpt-tokenizer `version`; undefined if it cannot be read or is another version's. */
export function readRanksFile(file: URL, version: string): RankData | undefined {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  if (typeof data !== "object" || data === null) return undefined;
  const { gptTokenizerVersion, ranks } = data as { gptTokenizerVersion?: unknown; ranks?: unknown };
  if (gptTokenizerVersion !== version || !Array.isArray(ranks) || ranks.length === 0) return undefined;
  return ranks as RankData;
}

/** The ranks as gpt-tokenizer itself loads them. */
export function libraryRanks(): RankData {
  return (require("gpt-tokenizer/bpeRanks/o200k_base") as { default: RankData }).default;
}

/** The version of the installed gpt-tokenizer. */
export function installedTokenizerVersion(): string {
  return (require("gpt-tokenizer/package.json") as { version: string }).version;
}
