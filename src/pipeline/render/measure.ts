import { createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { cacheableTokens, measureJoin, type JoinMeasure, type Tokenizer } from "../../tokens.js";

/**
 * Token figures for the prefix and each variant, and the join check: a
 * variant only reuses the cached prefix when the prefix's tokens are a prefix
 * of the variant's tokens (BPE may merge across a careless join).
 */

export interface VariantMeasure {
  name: string;
  bytes: number;
  tokens: number;
  sharedPrefixTokens: number;
  cacheableTokens: number;
}

export interface PromptMeasures {
  prefixTokens: number;
  catalogTokens: number;
  variants: VariantMeasure[];
  diagnostics: Diagnostic[];
}

export type { JoinMeasure } from "../../tokens.js";

/** What the last build recorded of a variant: its whole token count and the tokens it shares with the static prefix. */
export interface RecordedVariant {
  tokens: number;
  sharedPrefixTokens: number;
}

/**
 * Counts known without the tokenizer: facts the last build recorded about
 * exact texts (check reads them from dist/). Lookups are by the text itself.
 */
export interface RecordedTokenCounts {
  count(text: string): number | undefined;
  variant(text: string): RecordedVariant | undefined;
}

export interface TokenCounterOptions {
  /** Counts to take before asking the tokenizer (check). */
  recorded?: RecordedTokenCounts;
  /**
   * The counter serves successive builds (watch): long texts given with
   * pieces are counted piece by piece, so an edit re-counts one piece. The
   * first build checks the pieces' sum against the whole count; if they ever
   * differ, the counter counts whole texts from then on.
   */
  repeated?: boolean;
  /**
   * A counter for one build that counts every text once: texts given with pieces are counted piece by piece
   * from the start, trusting {@link isHardSplit} as a repeated counter does once checked. The static prefix
   * holds the whole catalog, which is measured on its own too, so its entries are then counted once for both
   * instead of the catalog twice. Pieces that do not join to their text are never summed: the text is counted
   * whole. Ignored with `repeated`.
   */
  trustPieces?: boolean;
}

/**
 * Token counts by text, reused across builds (watch) and between artifacts.
 * Keys are the texts themselves: a Map hashes a string far faster than
 * sha256 does, and the texts are held by the build's other caches anyway.
 */
export class TokenCounter {
  private readonly counts = new Map<string, number>();
  private readonly joins = new Map<string, JoinMeasure>();
  private readonly used = new Set<string>();
  private readonly usedJoins = new Set<string>();
  /**
   * `whole`: count whole texts; `verify`: count both and compare; `pieces`: trust the sum of the pieces;
   * `joined`: trust the sum of pieces that join to the text (see {@link TokenCounterOptions.trustPieces}).
   */
  private piecewise: "whole" | "verify" | "pieces" | "joined";
  private verifiedThisBuild = false;

  private loadedTokenizer: Tokenizer | undefined;
  private readonly loadTokenizer: (() => Tokenizer) | undefined;
  private readonly recorded: RecordedTokenCounts | undefined;

  /** `tokenizer` may be a loader: it then runs only when some text's count is not already known. */
  constructor(
    tokenizer: Tokenizer | (() => Tokenizer),
    options: TokenCounterOptions = {},
  ) {
    if (typeof tokenizer === "function") this.loadTokenizer = tokenizer;
    else this.loadedTokenizer = tokenizer;
    this.recorded = options.recorded;
    this.piecewise = options.repeated ? "verify" : options.trustPieces ? "joined" : "whole";
  }

  get tokenizer(): Tokenizer {
    this.loadedTokenizer ??= (this.loadTokenizer as () => Tokenizer)();
    return this.loadedTokenizer;
  }

  /** The last build's figures for a whole variant text, when they were recorded for exactly these bytes. */
  recordedVariant(text: string): RecordedVariant | undefined {
    return this.recorded?.variant(text);
  }

  /** Tokens of `text`, which must equal `pieces.join("")`; how it is counted is the counter's choice (see options). */
  countPieces(text: string, pieces: readonly string[]): number {
    if (this.piecewise === "whole") return this.count(text);
    if (this.piecewise === "joined") return pieces.join("") === text ? this.countJoined(pieces) : this.count(text);
    const summed = this.countJoined(pieces);
    if (this.piecewise === "pieces") return summed;
    const whole = this.count(text);
    if (whole === summed) this.verifiedThisBuild = true;
    else this.piecewise = "whole";
    return whole;
  }

  /** How many counts and join measures it holds: what a long session keeps between builds. */
  get size(): number {
    return this.counts.size + this.joins.size;
  }

  /** Whether the counter currently counts pieces (for tests and diagnostics of the counter itself). */
  get countsPieces(): boolean {
    return this.piecewise !== "whole";
  }

  count(text: string): number {
    let count = this.counts.get(text);
    if (count === undefined) {
      count = this.recorded?.count(text) ?? this.tokenizer.count(text);
      this.counts.set(text, count);
    }
    this.used.add(text);
    return count;
  }

  /**
   * Tokens of `pieces.join("")` as the sum of the pieces' cached counts.
   * Pieces are only counted apart where {@link isHardSplit} proves the
   * pre-tokenizer splits there anyway; any other join is counted as one text.
   */
  countJoined(pieces: readonly string[]): number {
    let total = 0;
    for (const text of countedTogether(pieces)) total += this.count(text);
    return total;
  }

  /**
   * The texts {@link countPieces} asks {@link count} for, given the same arguments (without pieces, `text`
   * alone), in this counter's mode: what to count ahead elsewhere (a worker thread) before the counter runs.
   */
  textsToCount(text: string, pieces?: readonly string[]): string[] {
    if (pieces === undefined || this.piecewise === "whole") return [text];
    if (this.piecewise === "joined") return pieces.join("") === text ? countedTogether(pieces) : [text];
    return this.piecewise === "pieces" ? countedTogether(pieces) : [...countedTogether(pieces), text];
  }

  /**
   * Takes counts and join measures made elsewhere by the same tokenizer (a worker thread): the texts are
   * then counted here from them, without loading the tokenizer. A text counted here already keeps its count.
   */
  takeCounted(counts: ReadonlyMap<string, number>, joins: ReadonlyArray<{ tail: string; suffix: string; measure: JoinMeasure }>): void {
    for (const [text, count] of counts) if (!this.counts.has(text)) this.counts.set(text, count);
    for (const { tail, suffix, measure } of joins) {
      const key = joinKey(tail, suffix);
      if (!this.joins.has(key)) this.joins.set(key, measure);
    }
  }

  measureJoin(tail: string, suffix: string): JoinMeasure {
    const key = joinKey(tail, suffix);
    let measure = this.joins.get(key);
    if (measure === undefined) {
      measure = measureJoin(this.tokenizer, tail, suffix);
      this.joins.set(key, measure);
    }
    this.usedJoins.add(key);
    return measure;
  }

  /**
   * Forgets what this build did not use, so a long watch session does not grow without bound; trusts pieces
   * once checked. A build that stopped before it measured (its sources had errors) keeps every count.
   */
  endBuild(): void {
    if (this.piecewise === "verify" && this.verifiedThisBuild) this.piecewise = "pieces";
    if (this.used.size > 0) for (const key of this.counts.keys()) if (!this.used.has(key)) this.counts.delete(key);
    if (this.usedJoins.size > 0) for (const key of this.joins.keys()) if (!this.usedJoins.has(key)) this.joins.delete(key);
    this.used.clear();
    this.usedJoins.clear();
    this.verifiedThisBuild = false;
  }
}

function joinKey(tail: string, suffix: string): string {
  return `${tail}\u0000${suffix}`;
}

/** `pieces` joined wherever {@link isHardSplit} does not prove a cut: the texts whose counts sum to the whole's. */
function countedTogether(pieces: readonly string[]): string[] {
  const texts: string[] = [];
  let pending: string | undefined;
  for (const piece of pieces) {
    if (pending === undefined) pending = piece;
    else if (isHardSplit(pending, piece)) {
      texts.push(pending);
      pending = piece;
    } else pending += piece;
  }
  if (pending !== undefined) texts.push(pending);
  return texts;
}

/**
 * True when o200k counts `before + after` as `count(before) + count(after)`:
 * `before` ends with ">\n" and `after` starts with neither "\r", "\n" nor "/".
 * (Every catalog entry ends with `</skill>` and a newline, so the catalog
 * splits between entries.)
 *
 * Why it holds. The pre-tokenizer (gpt-tokenizer's O200K_TOKEN_SPLIT_PATTERN,
 * applied left to right) cuts the text into pieces that are encoded
 * independently, so the counts add up exactly when the cuts of the whole are
 * the cuts of `before` followed by the cuts of `after`. The ">" belongs to
 * the alternative ` ?[^\s\p{L}\p{N}]+[\r\n/]*`: the letter alternatives
 * need a letter right after their optional leading character (here "\n"),
 * the digit and whitespace ones cannot hold ">". Its greedy `[\r\n/]*`
 * takes the "\n" and stops at the next character, which is outside the
 * class, exactly where it stops at the end of `before` alone. Matches before
 * it end at or before the ">" and look no further than the "\n", so they are
 * the same too. The pattern has no look-behind, so matching from the cut on
 * sees only `after`. Special-token strings are counted as plain text (see
 * tokens.ts), so nothing else splits the text.
 */
export function isHardSplit(before: string, after: string): boolean {
  if (!before.endsWith(">\n")) return false;
  const first = after.charCodeAt(0);
  return first !== 0x0d && first !== 0x0a && first !== 0x2f;
}

export interface MeasureInput {
  prefix: string;
  catalog: string;
  suffixes: ReadonlyMap<string, string>;
  variantTemplate: string;
  /**
   * The prefix and the catalog cut into pieces whose concatenations are
   * exactly `prefix` and `catalog`, for the counter to count piece by piece.
   */
  pieces?: { prefix: readonly string[]; catalog: readonly string[] };
}

export function measurePrompts(counter: TokenCounter, input: MeasureInput): PromptMeasures {
  const diagnostics: Diagnostic[] = [];
  const prefixTokens = input.pieces ? counter.countPieces(input.prefix, input.pieces.prefix) : counter.count(input.prefix);
  const catalogTokens = input.pieces ? counter.countPieces(input.catalog, input.pieces.catalog) : counter.count(input.catalog);
  const tail = joinTail(input.prefix);
  const variants: VariantMeasure[] = [];
  for (const [name, suffix] of input.suffixes) {
    const bytes = Buffer.byteLength(input.prefix) + Buffer.byteLength(suffix);
    if (suffix === "") {
      variants.push({ name, bytes, tokens: prefixTokens, sharedPrefixTokens: prefixTokens, cacheableTokens: cacheableTokens(prefixTokens) });
      continue;
    }
    // Recorded figures stand for an unmerged join only: a merge needs the tokenizer to name the merged token.
    const recorded = counter.recordedVariant(input.prefix + suffix);
    if (recorded && recorded.sharedPrefixTokens === prefixTokens && recorded.tokens >= prefixTokens) {
      variants.push({ name, bytes, tokens: recorded.tokens, sharedPrefixTokens: prefixTokens, cacheableTokens: cacheableTokens(prefixTokens) });
      continue;
    }
    const join = counter.measureJoin(tail, suffix);
    const headTokens = prefixTokens - join.tailTokens;
    const shared = headTokens + join.sharedTokens;
    if (join.mergedToken !== undefined) {
      diagnostics.push(
        createDiagnostic(
          "variant/token-boundary",
          input.variantTemplate,
          FILE_START,
          `Unexpected token ${JSON.stringify(join.mergedToken)} merging the end of the static prefix with the start of variant \`${name}\`, expected the variant text to start a new token (begin it with non-whitespace text; the prefix ends with one newline)`,
        ),
      );
    }
    variants.push({ name, bytes, tokens: headTokens + join.joinedTokens, sharedPrefixTokens: shared, cacheableTokens: cacheableTokens(shared) });
  }
  return { prefixTokens, catalogTokens, variants, diagnostics };
}

/**
 * The stretch of the prefix measured with each variant suffix: only the prefix's last stretch can interact
 * with a suffix, and encoding from a hard pre-token boundary keeps a large catalog from being encoded four times.
 */
export function joinTail(prefix: string): string {
  return prefix.slice(lastHardBoundary(prefix));
}

/**
 * The last offset where o200k's pre-tokenizer must split: right after a line
 * break and before a letter. No pre-token pattern spans "\n" followed by a
 * letter, so tokens on either side never merge.
 */
export function lastHardBoundary(text: string): number {
  const pattern = /\n(?=\p{L})/gu;
  let cut = 0;
  // Start well before the end so the tail stays small but has a boundary.
  pattern.lastIndex = Math.max(0, text.length - 4096);
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) cut = match.index + 1;
  if (cut === 0 && text.length > 4096) {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) cut = match.index + 1;
  }
  return cut;
}
