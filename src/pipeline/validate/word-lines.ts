/**
 * The parts of a text worth reading for mentions of a few words: every line
 * that holds one of the words, with the line before it (where a link's `](`
 * or a name before "folder" may sit), adjoining lines joined into one part.
 *
 * One pattern of all the words (`a|b|c`) says which lines those are, but a
 * pattern is compiled afresh for each word list, and the unreferenced-file
 * rule makes a new list for nearly every skill: compiling costs more than
 * the search it serves. So a short list is searched word by word with
 * indexOf instead, which compiles nothing. Both give the same lines (a test
 * holds them to one answer): the lines where some word starts. The pattern's
 * matches do not overlap, but a word hidden inside an earlier match starts
 * on that match's line, as no word holds a line feed; the pattern stays the
 * reader for a word that does (or an empty one) and for a long list, where
 * one pass over the text beats one per word.
 */
export class WordLines {
  private pattern: RegExp | undefined;

  constructor(private readonly words: readonly string[]) {}

  parts(text: string): string[] {
    if (this.words.length === 0) return [];
    const searchable = this.words.length <= MAX_SEARCHED_WORDS && this.words.every((word) => word !== "" && !word.includes("\n"));
    return searchable ? this.partsBySearch(text) : this.partsByPattern(text);
  }

  /** The answer from the words' pattern: each match's line, skipping matches on a line already taken. */
  partsByPattern(text: string): string[] {
    this.pattern ??= new RegExp(this.words.map(escapeRegExp).join("|"), "g");
    const parts = new PartCollector(text);
    for (const match of text.matchAll(this.pattern)) parts.add(match.index ?? 0);
    return parts.done();
  }

  /** The answer from indexOf: the start of each line where some word starts, one search per word, in order. */
  partsBySearch(text: string): string[] {
    const lineStarts = new Set<number>();
    for (const word of this.words) {
      for (let at = text.indexOf(word); at !== -1; ) {
        lineStarts.add(text.lastIndexOf("\n", at - 1) + 1);
        // The rest of the line is taken already: the search goes on from the next one.
        const newline = text.indexOf("\n", at);
        at = newline === -1 ? -1 : text.indexOf(word, newline + 1);
      }
    }
    const parts = new PartCollector(text);
    for (const start of [...lineStarts].sort((a, b) => a - b)) parts.add(start);
    return parts.done();
  }
}

/** Beyond this many words one pass of the pattern is cheaper than a search per word. */
const MAX_SEARCHED_WORDS = 16;

/** Collects the parts from offsets on their lines, in increasing order; an offset on a line already taken adds nothing. */
class PartCollector {
  private readonly parts: string[] = [];
  private from = -1;
  private to = -1;

  constructor(private readonly text: string) {}

  add(at: number): void {
    const { text } = this;
    if (this.from !== -1 && at < this.to) return;
    const lineStart = text.lastIndexOf("\n", at - 1) + 1;
    const start = lineStart === 0 ? 0 : text.lastIndexOf("\n", lineStart - 2) + 1;
    const newline = text.indexOf("\n", at);
    const end = newline === -1 ? text.length : newline;
    if (this.from !== -1 && start <= this.to + 1) this.to = Math.max(this.to, end);
    else {
      if (this.from !== -1) this.parts.push(text.slice(this.from, this.to));
      this.from = start;
      this.to = end;
    }
  }

  done(): string[] {
    if (this.from !== -1) this.parts.push(this.text.slice(this.from, this.to));
    return this.parts;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
