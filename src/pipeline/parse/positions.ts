import type { Position, Range } from "../../diagnostics/diagnostic.js";

/**
 * Maps string offsets of a normalised source text to 1-based line/column
 * positions. Columns count UTF-16 code units, as editors and the
 * diagnostics contract do. Built once per file; lookups are a binary search.
 */
export class LineIndex {
  private readonly lineStarts: number[] = [0];

  constructor(readonly text: string) {
    for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) {
      this.lineStarts.push(index + 1);
    }
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  position(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.lineStarts[middle] ?? 0) <= clamped) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: clamped - (this.lineStarts[low] ?? 0) + 1 };
  }

  /** The range from `start` to the exclusive `end` offset. */
  range(start: number, end: number): Range {
    return { start: this.position(start), end: this.position(Math.max(start, end)) };
  }

  /**
   * The range of the one character a parser's error points at: a surrogate pair whole (an offset on its second
   * half starts at its first), and empty where there is no character to cover, at a line's end or the text's.
   */
  characterAt(offset: number): Range {
    let start = Math.max(0, Math.min(offset, this.text.length));
    const code = this.text.charCodeAt(start);
    if (Number.isNaN(code) || code === 0x0a) return this.range(start, start);
    if (isLowSurrogate(code) && isHighSurrogate(this.text.charCodeAt(start - 1))) start--;
    const pair = isHighSurrogate(this.text.charCodeAt(start)) && isLowSurrogate(this.text.charCodeAt(start + 1));
    return this.range(start, start + (pair ? 2 : 1));
  }

  /** The whole of a 1-based line, without its line break. */
  lineRange(line: number): Range {
    const start = this.lineStarts[line - 1] ?? this.text.length;
    const next = this.lineStarts[line];
    const end = next === undefined ? this.text.length : next - 1;
    return this.range(start, end);
  }

  /** The text of a 1-based line without its line break; "" past the end, as splitting the text at "\n" would give. */
  lineText(line: number): string {
    const start = this.lineStarts[line - 1];
    if (start === undefined) return "";
    const next = this.lineStarts[line];
    return this.text.slice(start, next === undefined ? this.text.length : next - 1);
  }

  lineStart(line: number): number {
    return this.lineStarts[line - 1] ?? this.text.length;
  }
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
