import { createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { cacheableTokens, sharedTokenCount, type Tokenizer } from "../../tokens.js";

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
  /** A verified piecewise count differed from the whole count (the whole was used). */
  piecesDisagree?: true;
}

/** What joining the prefix's tail with one variant suffix gives, cached by both texts. */
export interface JoinMeasure {
  tailTokens: number;
  joinedTokens: number;
  sharedTokens: number;
  /** The first token that differs from the tail's own encoding, decoded (only when the join merged tokens). */
  mergedToken?: string;
}

/**
 * Token counts by text, reused across builds (watch) and between artifacts.
 * Keys are the texts themselves: a Map hashes a string far faster than
 * sha256 does, and the texts are held by the build's other caches anyway.
 */
export class TokenCounter {
  private readonly used = new Set<string>();
  private readonly usedJoins = new Set<string>();

  constructor(
    readonly tokenizer: Tokenizer,
    private readonly counts: Map<string, number> = new Map(),
    private readonly joins: Map<string, JoinMeasure> = new Map(),
  ) {}

  count(text: string): number {
    let count = this.counts.get(text);
    if (count === undefined) {
      count = this.tokenizer.count(text);
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
    let pending: string | undefined;
    for (const piece of pieces) {
      if (pending === undefined) pending = piece;
      else if (isHardSplit(pending, piece)) {
        total += this.count(pending);
        pending = piece;
      } else pending += piece;
    }
    return pending === undefined ? total : total + this.count(pending);
  }

  measureJoin(tail: string, suffix: string): JoinMeasure {
    const key = `${tail}\u0000${suffix}`;
    let measure = this.joins.get(key);
    if (measure === undefined) {
      const tailTokens = this.tokenizer.encode(tail);
      const joined = this.tokenizer.encode(tail + suffix);
      const sharedTokens = sharedTokenCount(tailTokens, joined);
      measure = { tailTokens: tailTokens.length, joinedTokens: joined.length, sharedTokens };
      if (sharedTokens < tailTokens.length) measure.mergedToken = this.tokenizer.decode(joined.slice(sharedTokens, sharedTokens + 1));
      this.joins.set(key, measure);
    }
    this.usedJoins.add(key);
    return measure;
  }

  /** Forgets what this build did not use, so a long watch session does not grow without bound. */
  forgetUnused(): void {
    for (const key of this.counts.keys()) if (!this.used.has(key)) this.counts.delete(key);
    for (const key of this.joins.keys()) if (!this.usedJoins.has(key)) this.joins.delete(key);
  }
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
   * exactly `prefix` and `catalog`: counted piece by piece (watch mode).
   */
  pieces?: { prefix: readonly string[]; catalog: readonly string[] };
  /** Also count the whole texts and use those counts if the sums ever differ. */
  verifyPieces?: boolean;
}

export function measurePrompts(counter: TokenCounter, input: MeasureInput): PromptMeasures {
  const diagnostics: Diagnostic[] = [];
  let piecesDisagree = false;
  const disagree = (): void => {
    piecesDisagree = true;
  };
  const prefixTokens = countText(counter, input.prefix, input.pieces?.prefix, input.verifyPieces, disagree);
  const catalogTokens = countText(counter, input.catalog, input.pieces?.catalog, input.verifyPieces, disagree);
  // Only the prefix's last stretch can interact with a suffix; encoding from a
  // hard pre-token boundary keeps a large catalog from being encoded four times.
  const tail = input.prefix.slice(lastHardBoundary(input.prefix));
  const variants: VariantMeasure[] = [];
  for (const [name, suffix] of input.suffixes) {
    const bytes = Buffer.byteLength(input.prefix) + Buffer.byteLength(suffix);
    if (suffix === "") {
      variants.push({ name, bytes, tokens: prefixTokens, sharedPrefixTokens: prefixTokens, cacheableTokens: cacheableTokens(prefixTokens) });
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
  return piecesDisagree ? { prefixTokens, catalogTokens, variants, diagnostics, piecesDisagree } : { prefixTokens, catalogTokens, variants, diagnostics };
}

/** Pieces (when given) must join to `text`; with `verify` the whole is counted too and wins. */
function countText(counter: TokenCounter, text: string, pieces: readonly string[] | undefined, verify: boolean | undefined, mismatch: () => void): number {
  if (!pieces) return counter.count(text);
  const summed = counter.countJoined(pieces);
  if (!verify) return summed;
  const whole = counter.count(text);
  if (whole !== summed) mismatch();
  return whole;
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
