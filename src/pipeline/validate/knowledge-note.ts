import type { ErrorObject } from "ajv";
import { createDiagnostic, type Diagnostic, type Range } from "../../diagnostics/diagnostic.js";
import type { RuleId } from "../../diagnostics/rules/index.js";
import type { SourceFile } from "../../stage-data.js";
import type { KnowledgeNoteFields, KnowledgeSource } from "../../protocol/knowledge.js";
import { MAX_SOURCE_BYTES } from "../discover/read-source.js";
import { longChecklist } from "./body-rules.js";
import { valueAt } from "./frontmatter-schema.js";
import { buildSchemaValidator } from "./schemas.js";
import { didYouMean } from "../../protocol/suggest.js";
import { findOrderedLists, tooDeepLine } from "../parse/body.js";
import { splitFrontmatter } from "../parse/frontmatter.js";
import { lacksTrigger } from "./skill-file-rules.js";
import { LineIndex } from "../parse/positions.js";
import { parseYamlTree, type YamlTree } from "../parse/yaml-tree.js";
import { quoted } from "../../diagnostics/quote.js";

/** A name in `appliesTo.skills` or `appliesTo.tools`, with where it is written. */
export interface NoteReference {
  name: string;
  range: Range;
}

/**
 * What one knowledge/<id>.md says on its own. Findings that need the file
 * name, the other notes, the skills or the tools are made by validate.
 */
export interface ParsedNote {
  path: string;
  diagnostics: Diagnostic[];
  /** Present when the frontmatter met the schema (warnings aside). */
  fields?: KnowledgeNoteFields;
  /** The id as written, when it is a string (also when the schema failed elsewhere), and where. */
  id?: string;
  idRange?: Range;
  /** The names in appliesTo that are strings the schema accepts, also when it failed elsewhere. */
  skillRefs: NoteReference[];
  toolRefs: NoteReference[];
  /** Markdown after the frontmatter, LF line endings, exactly one trailing newline (empty when none). */
  body: string;
  /** Where findings about the body as a whole point. */
  bodyRange: Range;
}

const KNOWN_KEYS = ["id", "name", "scope", "source", "appliesTo"];
const KEY_HINTS: Record<string, string> = {
  id: "the note's id, equal to its file name without .md",
  name: `a short name such as "Workspace image rules"`,
  scope: `when the note applies, such as "Use for image selection in this workspace."`,
  source: `"user" or "system"`,
};

export async function parseKnowledgeNote(source: SourceFile): Promise<ParsedNote> {
  const index = new LineIndex(source.text);
  const diagnostics: Diagnostic[] = [];
  const report = (ruleId: RuleId, range: Range, message: string): void => {
    diagnostics.push(createDiagnostic(ruleId, source.path, range, message));
  };
  const note: ParsedNote = { path: source.path, diagnostics, skillRefs: [], toolRefs: [], body: "", bodyRange: index.lineRange(1) };
  const bytes = Buffer.byteLength(source.text);
  if (bytes > MAX_SOURCE_BYTES) {
    report("knowledge/file-too-large", index.lineRange(1), `Unexpected note of ${bytes} bytes, expected at most ${MAX_SOURCE_BYTES} bytes`);
    return note;
  }
  const split = splitFrontmatter(index);
  if ("ruleId" in split) {
    report("knowledge/frontmatter", split.range, split.message.replace("a Markdown body", "the note's body"));
    return note;
  }
  note.body = split.body;
  note.bodyRange = split.body === "" ? split.closing : index.lineRange(split.bodyStartLine);
  const tree = parseYamlTree(source.text.slice(split.yamlStart, split.yamlEnd), split.yamlStart, index);
  if (Array.isArray(tree)) {
    for (const problem of tree) report("knowledge/frontmatter", problem.range, problem.message);
    return note;
  }
  const value = tree.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    report("knowledge/frontmatter", tree.valueRanges.get("") ?? split.opening, "Unexpected frontmatter that is not a mapping, expected id, name, scope and source");
    return note;
  }
  const validate = buildSchemaValidator("knowledge-note");
  let valid = true;
  // The values a schema error is about; the others are still judged, so one error does not hide the rest.
  const failedPaths = new Set<string>();
  if (!validate(value)) {
    for (const error of validate.errors ?? []) failedPaths.add(error.instancePath);
    for (const problem of uniqueProblems((validate.errors ?? []).map((error) => describe(error, tree, split.opening)))) {
      report(problem.ruleId, problem.range, problem.message);
      if (problem.ruleId !== "knowledge/unknown-key") valid = false;
    }
  }
  const record = value as Record<string, unknown>;
  const id = record["id"];
  const idRange = tree.valueRanges.get("/id");
  if (typeof id === "string" && idRange) {
    note.id = id;
    note.idRange = idRange;
  }
  note.skillRefs = references(tree, record, "skills", failedPaths);
  note.toolRefs = references(tree, record, "tools", failedPaths);
  if (valid) {
    const appliesTo = (record["appliesTo"] ?? {}) as Record<string, string[] | undefined>;
    note.fields = {
      id: String(id),
      name: String(record["name"]),
      scope: String(record["scope"]),
      source: record["source"] as KnowledgeSource,
      appliesTo: { skills: appliesTo["skills"] ?? [], tools: appliesTo["tools"] ?? [], keywords: appliesTo["keywords"] ?? [] },
    };
  }
  const scope = record["scope"];
  if (typeof scope === "string" && !failedPaths.has("/scope") && lacksTrigger(scope)) {
    report("knowledge/scope-trigger", tree.valueRanges.get("/scope") ?? split.opening, `Unexpected scope without a trigger, expected when the note applies in direct terms ("Use for …", "Use when …")`);
  }
  if (split.body === "") {
    report("knowledge/empty-body", split.closing, "Unexpected note without a body, expected the facts or constraints it holds");
    return note;
  }
  if (tooDeepLine(split.body) === undefined) {
    const lists = await findOrderedLists(source.text, split.body, split.bodyStartLine);
    const checklist = longChecklist(lists, index);
    if (checklist) {
      const line = index.lineRange(checklist.list.line);
      report(
        "knowledge/checklist-body",
        { start: { line: checklist.list.line, column: checklist.list.column }, end: line.end },
        `Unexpected ordered list of ${checklist.steps} steps in a knowledge note, expected facts or constraints (a procedure belongs in a workflow skill)`,
      );
    }
  }
  return note;
}

/** The frontmatter is YAML: a JSON Schema type named as its author wrote it. */
const YAML_TYPE_NAMES: Readonly<Record<string, string>> = { array: "a list", object: "a mapping" };

interface Problem {
  ruleId: RuleId;
  range: Range;
  message: string;
}

function describe(error: ErrorObject, tree: YamlTree, opening: Range): Problem {
  const path = error.instancePath;
  const range = tree.valueRanges.get(path) ?? opening;
  const label = path.slice(1).replace(/\//g, ".");
  const params = error.params as Record<string, unknown>;
  const value = valueAt(tree.value, path);
  switch (error.keyword) {
    case "required": {
      const missing = String(params["missingProperty"]);
      return { ruleId: "knowledge/missing-key", range: opening, message: `Unexpected frontmatter without "${missing}", expected ${KEY_HINTS[missing] ?? "the key"}` };
    }
    case "additionalProperties": {
      const extra = String(params["additionalProperty"]);
      const known = path === "" ? KNOWN_KEYS : ["skills", "tools", "keywords"];
      const hint = didYouMean(extra, known);
      return {
        ruleId: "knowledge/unknown-key",
        range: tree.keyRanges.get(`${path}/${extra.replace(/~/g, "~0").replace(/\//g, "~1")}`) ?? range,
        message: `Unexpected key ${quoted(extra)}, expected ${hint === "" ? `one of ${known.join(", ")}` : "a known key"}${hint}`,
      };
    }
  }
  if (path === "/id" && typeof value === "string") {
    const length = [...value].length;
    const message = error.keyword === "maxLength" ? `Unexpected id of ${length} code points, expected at most 64` : `Unexpected id ${quoted(value)}, expected lowercase letters and digits in hyphen-separated words (^[a-z0-9]+(-[a-z0-9]+)*$)`;
    return { ruleId: "knowledge/id-format", range, message };
  }
  if (path === "/source" && error.keyword === "enum") {
    return { ruleId: "knowledge/schema-violation", range, message: `Unexpected source ${JSON.stringify(value)}, expected "user" or "system"${didYouMean(String(value), ["user", "system"])}` };
  }
  if ((path === "/name" || path === "/scope") && error.keyword === "pattern") {
    const message =
      path === "/name"
        ? `Unexpected ${quoted(label)} that is blank or holds < or >, a line break (U+2028, U+2029 and NEL included), a control character other than tab, a bidirectional control or a Unicode tag character (U+E0000 to U+E007F), expected one line of plain text`
        : `Unexpected ${quoted(label)} that is blank or holds < or >, a control character other than tab, line feed and carriage return (NEL included), U+2028, U+2029, a bidirectional control or a Unicode tag character (U+E0000 to U+E007F), expected plain text`;
    return { ruleId: "knowledge/schema-violation", range, message };
  }
  if (error.keyword === "type") {
    return { ruleId: "knowledge/schema-violation", range, message: `Unexpected ${describeValue(value)} for ${quoted(label)}, expected ${YAML_TYPE_NAMES[String(params["type"])] ?? `a ${String(params["type"])}`}` };
  }
  return { ruleId: "knowledge/schema-violation", range, message: `Unexpected value for ${quoted(label)}: it ${error.message ?? "does not match the schema"}` };
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return "empty value";
  if (Array.isArray(value)) return "list";
  if (typeof value === "object") return "mapping";
  return `${typeof value} ${JSON.stringify(value)}`;
}

/**
 * ajv can report several keywords for one value; one finding per value and
 * rule is enough. Every missing key points at the opening `---`, and each is
 * its own finding (as skill/missing-key reports each), told apart by message.
 */
function uniqueProblems(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.range.start.line}:${problem.range.start.column}|${problem.ruleId}${problem.ruleId === "knowledge/missing-key" ? `|${problem.message}` : ""}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The names listed under appliesTo.<key> that are strings without a schema error of their own. */
function references(tree: YamlTree, record: Record<string, unknown>, key: "skills" | "tools", failedPaths: ReadonlySet<string>): NoteReference[] {
  const appliesTo = record["appliesTo"];
  if (typeof appliesTo !== "object" || appliesTo === null || Array.isArray(appliesTo)) return [];
  const names = (appliesTo as Record<string, unknown>)[key];
  if (!Array.isArray(names)) return [];
  return names.flatMap((name: unknown, position) => {
    const path = `/appliesTo/${key}/${position}`;
    const range = tree.valueRanges.get(path);
    return typeof name === "string" && range && !failedPaths.has(path) ? [{ name, range }] : [];
  });
}
