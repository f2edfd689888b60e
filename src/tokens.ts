/**
 * o200k_base token counting. The tokenizer module is large, so it is loaded
 * on first use: a no-change build never pays for it. Special-token strings
 * such as `<|endoftext|>` are counted as the plain text they are in a prompt.
 */
import { createRequire } from "node:module";
import { encodeLongPieces, hasLongPiece } from "./long-pieces.js";
import { o200kRanks, type RankData } from "./o200k-ranks.js";

type Encoding = import("gpt-tokenizer/GptEncoding").GptEncoding;
type GptEncodingClass = typeof import("gpt-tokenizer/GptEncoding").GptEncoding;

export const TOKENIZER_NAME = "gpt-tokenizer";
export const TOKENIZER_ENCODING = "o200k_base";

/** OpenAI caches nothing below this many prompt tokens. */
export const CACHE_MINIMUM_TOKENS = 1024;
/** Above the minimum, cache hits grow in steps of this many tokens. */
export const CACHE_STEP_TOKENS = 128;

const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

let encoding: Encoding | undefined;

export async function loadTokenizer(): Promise<Tokenizer> {
  return tokenizer();
}

/**
 * The tokenizer, loaded synchronously on first call (its CommonJS build), so a counter can load it only on a miss.
 * The encoding is the library's own o200k_base, built by its public factory from the ranks o200k-ranks.ts
 * loads (the ones long-pieces.ts merges with).
 * A text with a pre-token longer than LONG_PIECE_LENGTH is encoded by long-pieces.ts, which gives the
 * library's tokens in O(n log n) where the library takes O(n²) in the piece's length; every other text
 * goes to the library as it is.
 */
export function tokenizer(): Tokenizer {
  encoding ??= o200kEncoding(o200kRanks());
  const loaded = encoding;
  return {
    encode: (text) => (hasLongPiece(text) ? encodeLongPieces(text) : loaded.encode(text, PLAIN_TEXT)),
    count: (text) => (hasLongPiece(text) ? encodeLongPieces(text).length : loaded.countTokens(text, PLAIN_TEXT)),
    decode: (tokens) => loaded.decode(tokens),
  };
}

/** gpt-tokenizer's o200k_base encoding of `ranks`, as its `gpt-tokenizer/encoding/o200k_base` module builds it from its own. */
export function o200kEncoding(ranks: RankData): Encoding {
  const { GptEncoding } = createRequire(import.meta.url)("gpt-tokenizer/GptEncoding") as { GptEncoding: GptEncodingClass };
  return GptEncoding.getEncodingApi(TOKENIZER_ENCODING, () => ranks);
}

export interface Tokenizer {
  encode(text: string): number[];
  count(text: string): number;
  decode(tokens: readonly number[]): string;
}

export function tokenizerVersion(): string {
  const require = createRequire(import.meta.url);
  return (require("gpt-tokenizer/package.json") as { version: string }).version;
}

/** What joining the prefix's tail with one variant suffix gives (see pipeline/render/measure.ts). */
export interface JoinMeasure {
  tailTokens: number;
  joinedTokens: number;
  sharedTokens: number;
  /** The first token that differs from the tail's own encoding, decoded (only when the join merged tokens). */
  mergedToken?: string;
}

/** Encodes `tail` alone and `tail + suffix`: how many tokens each has and how many leading ones they share. */
export function measureJoin(tokens: Tokenizer, tail: string, suffix: string): JoinMeasure {
  const tailTokens = tokens.encode(tail);
  const joined = tokens.encode(tail + suffix);
  const sharedTokens = sharedTokenCount(tailTokens, joined);
  const measure: JoinMeasure = { tailTokens: tailTokens.length, joinedTokens: joined.length, sharedTokens };
  if (sharedTokens < tailTokens.length) measure.mergedToken = tokens.decode(joined.slice(sharedTokens, sharedTokens + 1));
  return measure;
}

/** One request to the token worker (token-worker.ts): texts to count and (tail, suffix) pairs to measure. */
export interface TokenRequest {
  id: number;
  texts: string[];
  joins: Array<[tail: string, suffix: string]>;
}

/** The token worker's answer to one request, in the request's order. */
export interface TokenAnswer {
  id: number;
  counts: number[];
  joins: JoinMeasure[];
}

/** How many leading tokens two encodings share. */
export function sharedTokenCount(a: readonly number[], b: readonly number[]): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a[index] === b[index]) index++;
  return index;
}

/** Tokens an OpenAI exact-prefix cache can serve: 0 below 1,024, then whole steps of 128. */
export function cacheableTokens(sharedTokens: number): number {
  if (sharedTokens < CACHE_MINIMUM_TOKENS) return 0;
  return Math.floor(sharedTokens / CACHE_STEP_TOKENS) * CACHE_STEP_TOKENS;
}
