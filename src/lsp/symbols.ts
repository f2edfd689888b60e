import { readdirSync } from "node:fs";
import type { ProjectAnalysis } from "../analyze.js";
import type { Range } from "../diagnostics/diagnostic.js";
import type { SourceFile } from "../stage-data.js";
import { overrideSource, readSource, SOURCE_READ_RULES } from "../pipeline/discover/read-source.js";
import { PARTIALS_DIR } from "../pipeline/discover/source-paths.js";
import { isDiagnostic } from "../pipeline/discover/sources.js";
import { LineIndex } from "../pipeline/parse/positions.js";
import { parseJsonSource, parseYamlSource, rangeAt, type PathSegment } from "../pipeline/parse/positioned-source.js";
import { parseKnowledgeNote } from "../pipeline/validate/knowledge-note.js";
import { containsPosition } from "./locations.js";

/**
 * Every place the project names a skill, a partial or a tool, found from the
 * analysis (which already holds the positions of manifest fields) and from
 * the few files it does not read (evaluation scenarios). Quiet by design: a
 * name in prose is a reference only in the forms listed here, because a
 * wrong reference costs more than a missed one (rename would edit prose).
 */

export type SymbolKind = "skill" | "partial" | "tool";

export interface Occurrence {
  kind: SymbolKind;
  name: string;
  /** Root-relative file. */
  path: string;
  range: Range;
  /** The definition: a skill's `name`, a partial's file, a tool schema's `name`. */
  definition: boolean;
}

/** The folder evaluation scenarios live in. */
export const EVALS_DIR = "evals";

/** A partial is named after its file: prompts/partials/<name>.hbs. */
export function partialName(path: string): string | undefined {
  const match = /^prompts\/partials\/(.+)\.hbs$/.exec(path);
  return match?.[1];
}

export function partialPath(name: string): string {
  return `${PARTIALS_DIR}/${name}.hbs`;
}

const WHOLE_FILE_START: Range = { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } };

/** `{{> name` (and `{{~> name`) in a template; the name as written. */
const PARTIAL_CALL = /\{\{~?#?>\s*([A-Za-z0-9_\-./]+)/g;
/** A tool named in prose the one way that is unambiguous: `name` tool. */
const TOOL_MENTION = /`([A-Za-z0-9_-]+)` tool\b/g;

export interface SymbolIndex {
  occurrences: Occurrence[];
  /** Tool name → schema file. */
  toolFiles: Map<string, string>;
}

export async function indexSymbols(analysis: ProjectAnalysis, root: string, bufferText: (path: string) => string | undefined): Promise<SymbolIndex> {
  const occurrences: Occurrence[] = [];
  const add = (kind: SymbolKind, name: string, path: string, range: Range, definition = false): void => {
    occurrences.push({ kind, name, path, range, definition });
  };
  const toolFiles = new Map<string, string>();
  const sources = analysis.sources;
  for (const tool of sources?.toolFiles ?? []) {
    const located = parseJsonSource(tool);
    if (isDiagnostic(located)) continue;
    const name = (located.value as { name?: unknown } | null)?.name;
    if (typeof name !== "string") continue;
    toolFiles.set(name, tool.path);
    add("tool", name, tool.path, rangeAt(located, ["name"]), true);
  }
  for (const file of analysis.skillFiles) {
    const manifest = file.manifest;
    if (manifest?.name !== undefined && manifest.nameRange) add("skill", manifest.name, file.path, manifest.nameRange, true);
    for (const reference of [...(manifest?.requiresSkills ?? []), ...(manifest?.conflictsWith ?? [])]) add("skill", reference.name, file.path, reference.range);
    if (toolFiles.size > 0) {
      for (const match of file.body.matchAll(TOOL_MENTION)) {
        const name = match[1] as string;
        if (!toolFiles.has(name)) continue;
        const bodyOffset = (match.index ?? 0) + 1;
        add("tool", name, file.path, bodyRange(file.body, file.bodyStartLine, bodyOffset, name.length));
      }
    }
  }
  if (sources?.variants) {
    const located = parseYamlSource(sources.variants);
    if (!isDiagnostic(located)) {
      const variants = (located.value as { variants?: Record<string, { preload?: unknown }> } | null)?.variants;
      for (const [variant, declared] of Object.entries(variants ?? {})) {
        const preload = declared?.preload;
        if (!Array.isArray(preload)) continue;
        preload.forEach((name: unknown, position) => {
          if (typeof name === "string") add("skill", name, sources.variants?.path ?? "", rangeAt(located, ["variants", variant, "preload", position]));
        });
      }
    }
  }
  for (const note of sources?.knowledgeFiles ?? []) {
    const parsed = await parseKnowledgeNote(note);
    for (const reference of parsed.skillRefs) add("skill", reference.name, note.path, reference.range);
    for (const reference of parsed.toolRefs) if (toolFiles.has(reference.name)) add("tool", reference.name, note.path, reference.range);
  }
  const templates = [sources?.prefix, sources?.variant, ...(sources?.partials ?? [])].filter((file): file is SourceFile => file !== undefined);
  for (const template of templates) {
    const name = partialName(template.path);
    if (name !== undefined) add("partial", name, template.path, WHOLE_FILE_START, true);
    const index = new LineIndex(template.text);
    for (const match of template.text.matchAll(PARTIAL_CALL)) {
      const called = match[1] as string;
      const start = (match.index ?? 0) + match[0].length - called.length;
      add("partial", called, template.path, { start: index.position(start), end: index.position(start + called.length) });
    }
  }
  for (const scenario of readScenarios(root, bufferText)) {
    const located = parseYamlSource(scenario);
    if (isDiagnostic(located)) continue;
    for (const [name, path] of scenarioSkillNames(located.value)) add("skill", name, scenario.path, rangeAt(located, path));
  }
  return { occurrences, toolFiles };
}

/** The occurrence under a position of a file, if any. */
export function occurrenceAt(index: SymbolIndex, path: string, position: { line: number; column: number }): Occurrence | undefined {
  return index.occurrences.find((occurrence) => occurrence.path === path && !isWholeFile(occurrence) && containsPosition(occurrence.range, position));
}

/** What a position stands for: the occurrence under it, or in a partial's own file the partial. */
export function symbolAt(index: SymbolIndex, path: string, position: { line: number; column: number }): { kind: SymbolKind; name: string } | undefined {
  const occurrence = occurrenceAt(index, path, position);
  if (occurrence) return { kind: occurrence.kind, name: occurrence.name };
  const partial = partialName(path);
  return partial === undefined ? undefined : { kind: "partial", name: partial };
}

export function occurrencesOf(index: SymbolIndex, symbol: { kind: SymbolKind; name: string }): Occurrence[] {
  return index.occurrences.filter((occurrence) => occurrence.kind === symbol.kind && occurrence.name === symbol.name);
}

function isWholeFile(occurrence: Occurrence): boolean {
  return occurrence.kind === "partial" && occurrence.definition;
}

/** The skill names a scenario's expectations use, with their YAML paths. */
function scenarioSkillNames(value: unknown): Array<[string, PathSegment[]]> {
  const found: Array<[string, PathSegment[]]> = [];
  const expect = (value as { expect?: unknown } | null)?.expect;
  if (!Array.isArray(expect)) return found;
  expect.forEach((entry: unknown, position) => {
    if (typeof entry !== "object" || entry === null) return;
    const record = entry as Record<string, Record<string, unknown> | undefined>;
    for (const [kind, field] of [["skillActivated", "name"], ["skillNotActivated", "name"], ["stepsCompleted", "skill"]] as const) {
      const name = record[kind]?.[field];
      if (typeof name === "string") found.push([name, ["expect", position, kind, field]]);
    }
  });
  return found;
}

function readScenarios(root: string, bufferText: (path: string) => string | undefined): SourceFile[] {
  let names: string[];
  try {
    names = readdirSync(`${root}/${EVALS_DIR}`).filter((name) => name.endsWith(".yaml") || name.endsWith(".yml")).sort();
  } catch {
    return [];
  }
  const files: SourceFile[] = [];
  for (const name of names) {
    const path = `${EVALS_DIR}/${name}`;
    const buffer = bufferText(path);
    const read = buffer === undefined ? readSource(root, path, SOURCE_READ_RULES) : overrideSource(path, buffer, SOURCE_READ_RULES);
    if (read !== undefined && !isDiagnostic(read)) files.push(read);
  }
  return files;
}

function bodyRange(body: string, bodyStartLine: number, offset: number, length: number): Range {
  const bodyIndex = new LineIndex(body);
  const start = bodyIndex.position(offset);
  const end = bodyIndex.position(offset + length);
  const shift = bodyStartLine - 1;
  return { start: { line: start.line + shift, column: start.column }, end: { line: end.line + shift, column: end.column } };
}
