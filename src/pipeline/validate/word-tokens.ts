/**
 * The tokens of a text that hold one of a few words: what the
 * unreferenced-file rule resolves, found from the words instead of by
 * cutting the whole text into tokens.
 *
 * A token (a run of characters none of which is a break) names a file still
 * unnamed only when it holds a word of that file: its stem, its name or one
 * of its folders, since resolving a path keeps the segments written. The one
 * exception is a path that climbs (`../`, `a/../..`): it resolves against the
 * folder of the text, whose segments it need not write, so a token holding
 * `..` is taken too. Every other token marks nothing new, so leaving it out
 * changes no answer; taking a token twice or out of order would not either,
 * but each is given once, in the order of the text, as cutting would.
 */
export function tokensHolding(text: string, words: readonly string[]): string[] {
  const ends = new Map<number, number>();
  for (const word of [...words, ".."]) {
    // A word holding a break lies in no token; an empty one in every token, and names nothing.
    if (word === "" || hasBreak(word)) continue;
    for (let at = text.indexOf(word); at !== -1; ) {
      let start = at;
      while (start > 0 && !isBreak(text.charCodeAt(start - 1))) start--;
      let end = at + word.length;
      while (end < text.length && !isBreak(text.charCodeAt(end))) end++;
      ends.set(start, end);
      // The rest of this token is taken already.
      at = text.indexOf(word, end);
    }
  }
  return [...ends.keys()].sort((a, b) => a - b).map((start) => text.slice(start, ends.get(start)));
}

/** Characters that end a token (the unreferenced-file rule's `NOT_IN_TOKEN`): white space, quotes, brackets, `,;|*=`. */
const BREAK = /[\s`'"()<>[\]{},;|*=]/;
const ASCII_BREAKS = new Uint8Array(128);
for (let code = 0; code < 128; code++) ASCII_BREAKS[code] = BREAK.test(String.fromCharCode(code)) ? 1 : 0;

function isBreak(code: number): boolean {
  return code < 128 ? ASCII_BREAKS[code] === 1 : BREAK.test(String.fromCharCode(code));
}

function hasBreak(word: string): boolean {
  for (let at = 0; at < word.length; at++) if (isBreak(word.charCodeAt(at))) return true;
  return false;
}
