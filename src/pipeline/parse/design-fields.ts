import type { Range } from "../../diagnostics/diagnostic.js";
import type { LineIndex } from "./positions.js";
import { ScalarWalk } from "./scalar-offsets.js";
import type { YamlTree } from "./plain-frontmatter.js";
import { DESIGN_FIELDS, type DesignFieldSpelling, type DesignField } from "../../protocol/manifest-spellings.js";

/**
 * Where a SKILL.md writes the design's fields, in either spelling (the table
 * of fields and their keys is protocol/manifest-spellings.ts), and the
 * frontmatter as the manifest reads it.
 */

export { DESIGN_FIELDS, fieldLabel, portableLabel, type DesignField, type DesignFieldSpelling } from "../../protocol/manifest-spellings.js";

/** Where one spelling writes a field. */
export interface FieldPlace {
  keyRange: Range;
  /** Absent for a key without a value. */
  valueRange?: Range;
  /** The value as YAML read it. */
  value: unknown;
}

export interface WrittenField {
  spelling: DesignFieldSpelling;
  topLevel?: FieldPlace;
  portable?: FieldPlace;
}

export interface ManifestSpellings {
  /**
   * The frontmatter as the manifest reads it: a field written under metadata
   * (and not also at the top) stands where its top-level key would, as a
   * string or a list of names, each with the range it has inside the string.
   * The same object as the tree when no field is written under metadata.
   */
  view: YamlTree;
  /** Fields the view took from metadata, in the order of {@link DESIGN_FIELDS}. */
  portableFields: DesignField[];
  /** Every design field the file writes, in either spelling or both. */
  written: WrittenField[];
}

export function readManifestSpellings(tree: YamlTree, index: LineIndex): ManifestSpellings {
  const value = tree.value as Record<string, unknown>;
  const metadata = value["metadata"];
  const metadataMap = typeof metadata === "object" && metadata !== null && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : undefined;
  const written: WrittenField[] = [];
  for (const spelling of DESIGN_FIELDS) {
    const field: WrittenField = { spelling };
    const topLevel = placeOf(tree, value, `/${spelling.field}`, spelling.field);
    if (topLevel) field.topLevel = topLevel;
    const portable = metadataMap ? placeOf(tree, metadataMap, `/metadata/${spelling.portableKey}`, spelling.portableKey) : undefined;
    if (portable) field.portable = portable;
    if (topLevel || portable) written.push(field);
  }
  const fromMetadata = written.filter((field) => field.portable && !field.topLevel && typeof field.portable.value === "string");
  if (fromMetadata.length === 0) return { view: tree, portableFields: [], written };
  const viewValue = Object.assign(Object.create(null) as Record<string, unknown>, value);
  const valueRanges = new Map(tree.valueRanges);
  const keyRanges = new Map(tree.keyRanges);
  for (const { spelling, portable } of fromMetadata) {
    const place = portable as FieldPlace;
    const text = place.value as string;
    const pointer = `/${spelling.field}`;
    keyRanges.set(pointer, place.keyRange);
    if (place.valueRange) valueRanges.set(pointer, place.valueRange);
    if (!spelling.list) {
      viewValue[spelling.field] = text;
      continue;
    }
    const names: string[] = [];
    const ranges = place.valueRange ? tokenRanges(index, place.valueRange, text) : undefined;
    for (const token of tokensOf(text)) {
      if (ranges && place.valueRange) valueRanges.set(`${pointer}/${names.length}`, ranges(token));
      names.push(token.text);
    }
    viewValue[spelling.field] = names;
  }
  return { view: { value: viewValue, valueRanges, keyRanges }, portableFields: fromMetadata.map((field) => field.spelling.field), written };
}

function placeOf(tree: YamlTree, mapping: Record<string, unknown>, pointer: string, key: string): FieldPlace | undefined {
  if (!Object.prototype.hasOwnProperty.call(mapping, key)) return undefined;
  const keyRange = tree.keyRanges.get(pointer);
  if (!keyRange) return undefined;
  const place: FieldPlace = { keyRange, value: mapping[key] };
  const valueRange = tree.valueRanges.get(pointer);
  if (valueRange) place.valueRange = valueRange;
  return place;
}

/** A name in a space-separated string: its text and its code point positions in the string. */
export interface Token {
  text: string;
  /** Code point index of its first character. */
  first: number;
  /** Code point index of its last character. */
  last: number;
}

/** The names of a space-separated string: split at runs of spaces, tabs and line breaks (a folded or literal block may hold one per line). */
export function tokensOf(text: string): Token[] {
  const tokens: Token[] = [];
  let current: Token | undefined;
  let position = 0;
  for (const character of text) {
    if (/[ \t\n\r]/.test(character)) {
      if (current) tokens.push(current);
      current = undefined;
    } else if (current) {
      current.text += character;
      current.last = position;
    } else current = { text: character, first: position, last: position };
    position++;
  }
  if (current) tokens.push(current);
  return tokens;
}

/**
 * Each token's range where the scalar writes it (plain, quoted with escapes,
 * or a block); the whole value when the source cannot be matched to it.
 * Tokens are asked for in order, and one walk of the scalar serves them all.
 */
function tokenRanges(index: LineIndex, valueRange: Range, text: string): (token: Token) => Range {
  const start = index.lineStart(valueRange.start.line) + valueRange.start.column - 1;
  const end = index.lineStart(valueRange.end.line) + valueRange.end.column - 1;
  const walk = new ScalarWalk(index.text, start, end, text);
  return (token) => {
    const first = walk.spanOf(token.first);
    const last = walk.spanOf(token.last);
    return first && last ? index.range(first.at, last.next) : valueRange;
  };
}
