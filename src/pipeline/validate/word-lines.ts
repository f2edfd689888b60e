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
  /** The words' UTF-8 bytes, when every word can be searched for as bytes. */
  private encoded: Buffer[] | null | undefined;

  constructor(private readonly words: readonly string[]) {}

  parts(text: string): string[] {
    if (this.words.length === 0) return [];
    return this.searchable() ? this.partsBySearch(text) : this.partsByPattern(text);
  }

  /**
   * The parts of a UTF-8 file, as `parts` gives them for its decoded text,
   * decoding only the parts: most of a followed file holds none of the words.
   * A line feed is one byte in UTF-8 and decoding keeps it, so the lines are
   * the same; a word found in the bytes is found in the text and the other
   * way round, since a UTF-8 sequence starts with a byte no sequence holds
   * inside it, which decoding never takes into the character before. A word
   * holding U+FFFD, which decoding writes for a byte that is not UTF-8, is
   * searched in the decoded text.
   */
  partsOfBytes(bytes: Buffer): string[] {
    if (this.words.length === 0) return [];
    this.encoded ??= this.searchable() && this.words.every((word) => !word.includes("\uFFFD")) ? this.words.map((word) => Buffer.from(word, "utf8")) : null;
    if (this.encoded === null) return this.parts(bytes.toString("utf8"));
    const lineStarts = new Set<number>();
    for (const word of this.encoded) {
      for (let at = bytes.indexOf(word); at !== -1; ) {
        lineStarts.add(at === 0 ? 0 : bytes.lastIndexOf(NEWLINE, at - 1) + 1);
        const newline = bytes.indexOf(NEWLINE, at);
        at = newline === -1 ? -1 : bytes.indexOf(word, newline + 1);
      }
    }
    const parts = new PartCollector(new ByteLines(bytes));
    for (const start of [...lineStarts].sort((a, b) => a - b)) parts.add(start);
    return parts.done();
  }

  /** A short list of words that hold no line feed (and are not empty) is searched word by word. */
  private searchable(): boolean {
    return this.words.length <= MAX_SEARCHED_WORDS && this.words.every((word) => word !== "" && !word.includes("\n"));
  }

  /** The answer from the words' pattern: each match's line, skipping matches on a line already taken. */
  partsByPattern(text: string): string[] {
    this.pattern ??= new RegExp(this.words.map(escapeRegExp).join("|"), "g");
    const parts = new PartCollector(new TextLines(text));
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
    const parts = new PartCollector(new TextLines(text));
    for (const start of [...lineStarts].sort((a, b) => a - b)) parts.add(start);
    return parts.done();
  }
}

const NEWLINE = 0x0a;

/** Where the line feeds of a text are, by offset, and its parts as strings. */
interface Lines {
  readonly length: number;
  /** The first line feed at or after `from`, or -1. */
  newlineFrom(from: number): number;
  /** The last line feed at or before `at` (none before 0: `lastIndexOf` with a negative start looks at 0 alone), or -1. */
  newlineBefore(at: number): number;
  slice(from: number, to: number): string;
}

class TextLines implements Lines {
  constructor(private readonly text: string) {}
  get length(): number {
    return this.text.length;
  }
  newlineFrom(from: number): number {
    return this.text.indexOf("\n", from);
  }
  newlineBefore(at: number): number {
    return this.text.lastIndexOf("\n", at);
  }
  slice(from: number, to: number): string {
    return this.text.slice(from, to);
  }
}

/** The same over UTF-8 bytes: offsets count bytes, and a part is decoded when taken. */
class ByteLines implements Lines {
  constructor(private readonly bytes: Buffer) {}
  get length(): number {
    return this.bytes.length;
  }
  newlineFrom(from: number): number {
    return this.bytes.indexOf(NEWLINE, from);
  }
  newlineBefore(at: number): number {
    // A Buffer counts a negative start from the end; a string's lastIndexOf looks at offset 0 alone.
    if (at < 0) return this.bytes[0] === NEWLINE ? 0 : -1;
    return this.bytes.lastIndexOf(NEWLINE, at);
  }
  slice(from: number, to: number): string {
    return this.bytes.toString("utf8", from, to);
  }
}

/** Beyond this many words one pass of the pattern is cheaper than a search per word. */
const MAX_SEARCHED_WORDS = 16;

/** Collects the parts from offsets on their lines, in increasing order; an offset on a line already taken adds nothing. */
class PartCollector {
  private readonly parts: string[] = [];
  private from = -1;
  private to = -1;

  constructor(private readonly text: Lines) {}

  add(at: number): void {
    const { text } = this;
    if (this.from !== -1 && at < this.to) return;
    const lineStart = text.newlineBefore(at - 1) + 1;
    const start = lineStart === 0 ? 0 : text.newlineBefore(lineStart - 2) + 1;
    const newline = text.newlineFrom(at);
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
