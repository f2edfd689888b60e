/**
 * o200k encoding for texts that hold a very long pre-token, in O(n log n).
 *
 * gpt-tokenizer merges each pre-token (a piece its split pattern cuts out)
 * by scanning every adjacent pair for the lowest rank before each merge, so
 * one piece of n bytes costs O(n²): a SKILL.md body of 400 KB of "=" (one
 * pre-token) took over a minute. This module gives the same tokens with a
 * heap of candidate pairs.
 *
 * The result is the library's, token for token, for any text:
 * - the text is cut with the library's own split pattern;
 * - a piece that is itself a token becomes that token (the library checks
 *   this first, for a well-formed piece only);
 * - otherwise the lowest-ranked adjacent pair is merged first and, among
 *   equal ranks, the leftmost (the heap orders by rank, then start offset);
 * - a byte sequence has the rank the library finds for it: tokens that are
 *   valid UTF-8 by their text, the others by their bytes (the library never
 *   finds a byte-array token whose bytes are valid UTF-8, so neither does
 *   this table).
 * Special-token strings are plain text here, as in tokens.ts.
 */
import { createRequire } from "node:module";
import { o200kRanks } from "./o200k-ranks.js";

const require = createRequire(import.meta.url);

/** Pieces up to this many UTF-16 code units go to the library as they are; it is quadratic only in the piece's length. */
export const LONG_PIECE_LENGTH = 512;

interface RankTable {
  /** Rank by the token's bytes, each byte one char (latin1), so a slice of a piece's key is a slice of a string. */
  ranks: Map<string, number>;
  longestToken: number;
}

let table: RankTable | undefined;

function rankTable(): RankTable {
  if (table) return table;
  const data = o200kRanks();
  const { tryConvertToString } = require("gpt-tokenizer/utfUtil") as { tryConvertToString(bytes: Uint8Array): string | undefined };
  const ranks = new Map<string, number>();
  let longestToken = 0;
  data.forEach((value, rank) => {
    let key: string;
    if (typeof value === "string") {
      if (!isWellFormed(value)) return;
      key = Buffer.from(value, "utf8").toString("latin1");
    } else {
      const bytes = Uint8Array.from(value);
      if (tryConvertToString(bytes) !== undefined) return;
      key = Buffer.from(bytes).toString("latin1");
    }
    ranks.set(key, rank);
    longestToken = Math.max(longestToken, key.length);
  });
  table = { ranks, longestToken };
  return table;
}

/** A lone surrogate (`u` mode reads a surrogate pair as one code point, outside this class). */
const LONE_SURROGATE = /\p{Cs}/u;

function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

function splitPattern(): RegExp {
  const { O200K_TOKEN_SPLIT_REGEX } = require("gpt-tokenizer/encodingParams/constants") as { O200K_TOKEN_SPLIT_REGEX: RegExp };
  return new RegExp(O200K_TOKEN_SPLIT_REGEX.source, O200K_TOKEN_SPLIT_REGEX.flags);
}

let pattern: RegExp | undefined;

/** The text's pre-tokens, as the library cuts them. */
export function preTokens(text: string): IterableIterator<RegExpExecArray> {
  pattern ??= splitPattern();
  return text.matchAll(pattern);
}

/** Whether some pre-token of `text` is longer than {@link LONG_PIECE_LENGTH}. */
export function hasLongPiece(text: string): boolean {
  if (!mayHoldLongPiece(text)) return false;
  for (const [piece] of preTokens(text)) if (piece.length > LONG_PIECE_LENGTH) return true;
  return false;
}

/**
 * A pass over the text's code units that rules most texts out before the
 * split pattern runs. Every o200k pre-token is either all whitespace, or
 * holds a space (U+0020) at most as its first unit (a letter run, a digit
 * run, a punctuation run with its trailing line breaks and slashes). So a
 * pre-token longer than the limit needs a whitespace run longer than the
 * limit, or as many units as the limit in a row without a space.
 */
export function mayHoldLongPiece(text: string): boolean {
  let sinceSpace = 0;
  let whitespaceRun = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x20) {
      sinceSpace = 0;
      whitespaceRun++;
    } else {
      sinceSpace++;
      whitespaceRun = isWhitespaceUnit(code) ? whitespaceRun + 1 : 0;
    }
    if (sinceSpace >= LONG_PIECE_LENGTH || whitespaceRun > LONG_PIECE_LENGTH) return true;
  }
  return false;
}

/** Every unit `\s` matches (and the C0 controls and U+0085 besides: a wider set only sends more texts to the full scan). */
function isWhitespaceUnit(code: number): boolean {
  if (code <= 0x20 || code === 0x85 || code === 0xa0) return true;
  if (code < 0x1680) return false;
  return code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

/** Work done by {@link encodeLongPieces}, for tests that bound it. */
export interface MergeWork {
  /** Candidate pairs taken off the heap, stale ones included. */
  heapPops: number;
}

/** The o200k tokens of `text`, equal to gpt-tokenizer's, in O(n log n) for any piece length. */
export function encodeLongPieces(text: string, work?: MergeWork): number[] {
  const { ranks, longestToken } = rankTable();
  const tokens: number[] = [];
  const known = new Map<string, readonly number[]>();
  for (const [piece] of preTokens(text)) {
    let pieceTokens = known.get(piece);
    if (pieceTokens === undefined) {
      const bytes = Buffer.from(piece, "utf8").toString("latin1");
      const whole = isWellFormed(piece) ? ranks.get(bytes) : undefined;
      pieceTokens = whole === undefined ? mergePiece(bytes, ranks, longestToken, work) : [whole];
      known.set(piece, pieceTokens);
    }
    for (const token of pieceTokens) tokens.push(token);
  }
  return tokens;
}

/** Heap keys: rank in the high bits, start offset in the low 32, so the smallest key is the leftmost lowest rank. */
const OFFSET_SPAN = 2 ** 32;

/**
 * Byte-pair merges of one piece (bytes as latin1 chars). Parts are named by
 * their start offset; `next` links them. `pairRank[start]` is the rank of the
 * part at `start` joined with the next one. A part's pair only ever grows, so
 * its rank never returns to an earlier value: a heap entry whose rank is no
 * longer its part's pair rank is stale and skipped.
 */
function mergePiece(bytes: string, ranks: ReadonlyMap<string, number>, longestToken: number, work?: MergeWork): number[] {
  const length = bytes.length;
  const next = new Int32Array(length);
  const previous = new Int32Array(length);
  const pairRank = new Float64Array(length);
  const heap = new MinHeap();
  const rankOf = (start: number, end: number): number =>
    end - start > longestToken ? Infinity : (ranks.get(bytes.slice(start, end)) ?? Infinity);
  const setPair = (start: number): void => {
    const right = next[start] as number;
    const rank = right < length ? rankOf(start, next[right] as number) : Infinity;
    pairRank[start] = rank;
    if (rank !== Infinity) heap.push(rank * OFFSET_SPAN + start);
  };
  for (let start = 0; start < length; start++) {
    next[start] = start + 1;
    previous[start] = start - 1;
  }
  for (let start = 0; start < length; start++) setPair(start);
  while (heap.size > 0) {
    const key = heap.pop();
    if (work) work.heapPops++;
    const start = key % OFFSET_SPAN;
    const rank = (key - start) / OFFSET_SPAN;
    if (pairRank[start] !== rank) continue;
    const absorbed = next[start] as number;
    const after = next[absorbed] as number;
    next[start] = after;
    if (after < length) previous[after] = start;
    pairRank[absorbed] = Infinity;
    setPair(start);
    const before = previous[start] as number;
    if (before >= 0) setPair(before);
  }
  const tokens: number[] = [];
  for (let start = 0; start < length; start = next[start] as number) {
    const rank = ranks.get(bytes.slice(start, next[start]));
    if (rank === undefined) throw new Error(`o200k has no token for bytes at ${start} of a ${length}-byte piece`);
    tokens.push(rank);
  }
  return tokens;
}

/** A binary min-heap of numbers. */
class MinHeap {
  private items: number[] = [];

  get size(): number {
    return this.items.length;
  }

  push(value: number): void {
    const items = this.items;
    let index = items.length;
    items.push(value);
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if ((items[parent] as number) <= value) break;
      items[index] = items[parent] as number;
      index = parent;
    }
    items[index] = value;
  }

  pop(): number {
    const items = this.items;
    const top = items[0] as number;
    const last = items.pop() as number;
    if (items.length === 0) return top;
    let index = 0;
    const size = items.length;
    while (true) {
      const left = 2 * index + 1;
      if (left >= size) break;
      const right = left + 1;
      const child = right < size && (items[right] as number) < (items[left] as number) ? right : left;
      if ((items[child] as number) >= last) break;
      items[index] = items[child] as number;
      index = child;
    }
    items[index] = last;
    return top;
  }
}
