/**
 * How many leading o200k tokens two texts share, without encoding either
 * whole: an edit to a 1,000-skill prompt changes one place in 270 KB, and
 * watch, the editor and check ask again after every edit.
 *
 * The texts are cut into chunks at line starts where the pre-tokenizer
 * always starts a new piece (see {@link nextChunkStart}), so a chunk's tokens
 * are exactly the whole text's tokens over the same characters. The chunks
 * before the first differing character are the same in both texts: their
 * counts are summed (and kept between calls, by chunk text). Only the chunk
 * holding the first difference is encoded, on each side, and compared token
 * by token.
 */
import { sharedTokenCount, tokenizer } from "../tokens.js";

/** A chunk ends at the first chunk start at least this many characters after its own start. */
const CHUNK_CHARS = 4096;
/** Chunk counts kept between calls (least recently used first out): about 4 MB of text at most. */
const KEPT_COUNTS = 1024;

const counts = new Map<string, number>();

/** Leading tokens `before` and `after` share, as `sharedTokenCount(encode(before), encode(after))` gives them. */
export function sharedPrefixTokens(before: string, after: string, chunkChars = CHUNK_CHARS): number {
  const differ = firstDifference(before, after);
  let shared = 0;
  let start = 0;
  for (;;) {
    const end = nextChunkStart(before, start + chunkChars);
    // Whether a position starts a chunk depends on the characters up to the one after it: a chunk that
    // ends before that reaches the first difference is the same chunk in both texts.
    if (end + 1 >= differ) break;
    shared += chunkCount(before.slice(start, end));
    start = end;
  }
  // From there, each side up to a chunk start past the first difference, so that both hold it.
  const encoder = tokenizer();
  const ours = encoder.encode(before.slice(start, nextChunkStart(before, differ + 1)));
  const theirs = encoder.encode(after.slice(start, nextChunkStart(after, differ + 1)));
  // Where one side's tokens are all the other's first ones, that side's text ended at the first
  // difference: nothing follows to share.
  return shared + sharedTokenCount(ours, theirs);
}

/** Index of the first character where the texts differ; the shorter length when one begins the other. */
function firstDifference(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  // Whole blocks first: comparing two slices is one memory comparison, not a loop over characters.
  while (index + DIFFERENCE_BLOCK <= limit && a.slice(index, index + DIFFERENCE_BLOCK) === b.slice(index, index + DIFFERENCE_BLOCK)) index += DIFFERENCE_BLOCK;
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

const DIFFERENCE_BLOCK = 1024;

/**
 * The first chunk start at or after `from` in a line that begins at or after `from - 1`, else the text's
 * end. A line's chunk start, if it has one, is where the pre-tokenizer of o200k (gpt-tokenizer's
 * O200K_TOKEN_SPLIT_PATTERN, applied left to right) always starts a new piece, whatever comes before the
 * line and after the line's first printable character:
 * - a line with no indentation, at its first character, when that is printable ASCII other than a space
 *   and "/";
 * - an indented line (spaces and tabs), at the last character of its indentation, when the indentation is
 *   followed by printable ASCII other than a space.
 *
 * Why it holds. A match that holds the line feed holds no character after it but spaces and tabs: the
 * letter alternatives' optional first character excludes "\r" and "\n" and the rest of them are letters and
 * marks, the digit alternative holds digits, the punctuation alternative's tail `[\r\n/]*` holds only "\r",
 * "\n" and "/", and `\s*[\r\n]+`, which wins over the other whitespace alternatives wherever a run of
 * whitespace holds a line feed, ends at the run's last line feed. So on a line with no indentation a new
 * match starts at its first character (unless that is "/", which the punctuation tail takes). After an
 * indentation of two or more characters, `\s+(?!\S)` takes all of it but its last character (the letter
 * and punctuation alternatives need a non-space right after their optional first character, which the
 * indentation's next character is not), and the last one starts the next match. Those matches look at the
 * characters after them only to stop, and stop the same way at the end of a chunk cut there: `\s+(?!\S)`
 * at the end of a text takes the same characters as before a space. The pattern has no look-behind, so
 * matching from the chunk start on sees nothing before it. Special-token strings are counted as plain text
 * (see tokens.ts), so nothing else splits the text.
 */
function nextChunkStart(text: string, from: number): number {
  let lineFeed = text.indexOf("\n", Math.max(0, from - 1));
  while (lineFeed >= 0) {
    const lineStart = lineFeed + 1;
    let first = lineStart;
    while (first < text.length && (text.charCodeAt(first) === 0x20 || text.charCodeAt(first) === 0x09)) first++;
    const code = first < text.length ? text.charCodeAt(first) : 0;
    const printable = code > 0x20 && code < 0x7f;
    if (first === lineStart ? printable && code !== 0x2f : printable) return first === lineStart ? first : first - 1;
    lineFeed = text.indexOf("\n", lineStart);
  }
  return text.length;
}

function chunkCount(chunk: string): number {
  const known = counts.get(chunk);
  if (known !== undefined) {
    // Most recently used last.
    counts.delete(chunk);
    counts.set(chunk, known);
    return known;
  }
  const count = tokenizer().count(chunk);
  // A slice keeps its whole parent text alive: the key is a copy of its own characters (the slice itself
  // when the text holds a lone surrogate, which the copy would not keep).
  const copy = Buffer.from(chunk, "utf8").toString("utf8");
  counts.set(copy === chunk ? copy : chunk, count);
  if (counts.size > KEPT_COUNTS) counts.delete(counts.keys().next().value as string);
  return count;
}
