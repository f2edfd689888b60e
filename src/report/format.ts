/**
 * Number and text formatting shared by the HTML and Markdown renderers.
 * Written out rather than left to `toLocaleString`, so the bytes never depend
 * on the machine's locale data.
 */
import { NO_SESSIONS } from "../cost/format.js";

/** 11906 → "11,906" (whole numbers; fractions are rounded). */
export function count(value: number): string {
  const rounded = Math.round(value);
  return `${rounded < 0 ? "-" : ""}${group(String(Math.abs(rounded)))}`;
}

/** 58.876 → "$58.88" (as `cost` prints it). */
export function dollars(value: number): string {
  const [whole = "0", cents = "00"] = Math.abs(value).toFixed(2).split(".");
  return `${value < 0 && Number(value.toFixed(2)) !== 0 ? "-" : ""}$${group(whole)}.${cents}`;
}

function group(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** A signed dollar difference: "+$1.20", "-$0.40", "$0.00". */
export function dollarDelta(before: number, after: number): string {
  const cents = centsChange(before, after);
  return cents === 0 ? "$0.00" : `${cents > 0 ? "+" : ""}${dollars(cents / 100)}`;
}

/**
 * The change in whole cents between two amounts as {@link dollars} shows them, each rounded first: the
 * change printed beside "$34.92" and "$34.93" is "+$0.01", whatever the unrounded amounts were.
 */
export function centsChange(before: number, after: number): number {
  const cents = (value: number): number => Math.round(Number(value.toFixed(2)) * 100);
  return cents(after) - cents(before);
}

/** 0.9604 → "96.0%" (one decimal, as `cost` prints it). */
export function percent1(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

/** A cost row's cached share and price per 1,000 sessions as `cost` prints them: a dash and "no sessions" for a variant the profile starts no session of. */
export function costFigures(row: { sessions: number; cachedFraction: number; inputCostPer1000Sessions: number }): { cached: string; price: string } {
  if (row.sessions === 0) return { cached: "—", price: NO_SESSIONS };
  return { cached: percent1(row.cachedFraction), price: dollars(row.inputCostPer1000Sessions) };
}

/** 0.8 → "80%" (whole percent, as `eval` prints it). */
export function percent0(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** A pass rate and its interval as `eval` prints them: a dash for each when no run was evaluated (nothing was measured). */
export function rateFigures(rate: { runs: number; rate: number; interval: readonly [number, number] }): { rate: string; interval: string } {
  if (rate.runs === 0) return { rate: "—", interval: "—" };
  return { rate: percent0(rate.rate), interval: `${percent0(rate.interval[0])}–${percent0(rate.interval[1])}` };
}

/** The first 12 hex digits of a sha256, as the report shows them. */
export function shortHash(sha256: string): string {
  return sha256.slice(0, 12);
}

const BLOCK_LABELS: Readonly<Record<string, string>> = { tools: "tools", "static-prefix": "static prefix", "variant-tail": "variant tail" };

export function blockLabel(name: string): string {
  return BLOCK_LABELS[name] ?? name;
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}

/**
 * Text from outside the report's own code (a skill's or a variant's name, a lint message quoting a
 * skill's frontmatter, a scenario or a model name) in Markdown, in a table cell or in running text: it
 * reads as the text it is and nothing else. Line breaks become spaces, so it stays on its line and in its
 * row; `<`, `>` and `&` are entities, so GitHub reads no HTML in it; and every character that could open
 * inline Markdown (a link or an image `[…](…)`, emphasis, a code span, strikethrough, a table's pipe) is
 * backslash-escaped, so a third party's skill cannot put a tracking image or a link with text of its
 * choosing into a pull-request comment.
 */
export function markdownText(text: string): string {
  return text
    .replace(/\r\n?|\n/g, " ")
    .replace(/[\\`*[\]~|]/g, (char) => `\\${char}`)
    // Inside a word (o200k_base, my_skill) "_" opens no emphasis, and stays as written.
    .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, "\\_")
    .replace(/[&<>]/g, (char) => HTML_ESCAPES[char] ?? char);
}

/**
 * Outside text as inline code (a file name, a base's label): the fence is one backtick longer than the
 * longest run of backticks in it, so none of them closes it early; entities are not read inside code, so
 * `&` and `<` stay as they are, and a pipe is escaped for a table row (GFM reads `\|` there as `|`).
 */
export function markdownCode(text: string, where: "table" | "text"): string {
  const oneLine = text.replace(/\r\n?|\n/g, " ");
  const inline = where === "table" ? oneLine.replace(/\|/g, "\\|") : oneLine;
  const longest = Math.max(0, ...(inline.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const padding = inline.startsWith("`") || inline.endsWith("`") ? " " : "";
  return `${fence}${padding}${inline}${padding}${fence}`;
}

/** Sentence lists: "a", "a and b", "a, b and c". */
export function listing(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

export function plural(value: number, one: string, many = `${one}s`): string {
  return `${count(value)} ${value === 1 ? one : many}`;
}

/** "both variants" or "all 3 variants". */
export function allOf(total: number, noun: string): string {
  return total === 2 ? `both ${noun}s` : `all ${count(total)} ${noun}s`;
}
